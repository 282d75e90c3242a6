"""The real command line, run as a subprocess (`python -m taash.arena.cli`, cwd = the project)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, sigint_default

SCRIPT = Path(sys.executable).parent / "taash"


def taash(*args, cwd=ROOT, timeout=120) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="120")
    return subprocess.run([sys.executable, "-m", "taash.arena.cli", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def assert_one_clear_error(r: subprocess.CompletedProcess, *fragments: str):
    """Non-zero exit, no traceback, exactly one line on stderr holding the fragments."""
    assert r.returncode != 0, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    for f in fragments:
        assert f in lines[0], lines[0]


# -- help ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [["--help"], ["check", "--help"], ["simulate", "--help"],
                                  ["replay", "--help"], ["variants", "--help"]])
def test_help_exits_0(args):
    r = taash(*args)
    assert r.returncode == 0, r.stderr
    assert "usage: taash" in r.stdout


@pytest.mark.skipif(not SCRIPT.exists(), reason="no console script next to the interpreter")
def test_console_script_help():
    r = subprocess.run([str(SCRIPT), "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    for cmd in ("check", "simulate", "replay", "variants"):
        assert cmd in r.stdout


def test_variants_lists_shipped():
    r = taash("variants")
    assert r.returncode == 0, r.stderr
    names = r.stdout.split()
    for n in ("28", "29", "house/29-hidden-trump", "house/29-no-last-trick"):
        assert n in names


# -- check ---------------------------------------------------------------------------------------

def test_check_ok():
    r = taash("check", "variants/29.yaml")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "variants/29.yaml: ok"


def test_check_broken_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text('extends: "29"\nname: bad\nauction:\n  may_bid: number > high_bd\n')
    r = taash("check", "variants/29.yaml", bad)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "variants/29.yaml: ok" in r.stdout
    lines = r.stderr.splitlines()
    # line 4, column 12 + 10 - 1 = 21 (see test_broken_files)
    assert lines[0] == (f"{bad.resolve()}:4:21: error: auction.may_bid: unknown name 'high_bd'"
                        " (did you mean 'high_bid'?)")
    assert lines[1] == "      may_bid: number > high_bd"
    assert lines[2] == "    " + " " * 20 + "^"
    assert lines[-1] == "1 problem in 1 of 2 files"


def test_check_yaml_error_has_location_and_caret(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text('extends: "29"\nname: bad: really\n')
    r = taash("check", bad)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert lines[0].startswith(f"{bad.resolve()}:2:10: error: YAML:")
    assert lines[1] == "    name: bad: really"
    assert lines[2] == "    " + " " * 9 + "^"


# -- simulate -------------------------------------------------------------------------------------

def test_simulate_json():
    r = taash("simulate", "29", "--matches", 2, "--seed", 3, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["variant"] == "29" and out["seed"] == 3
    assert [m["seed"] for m in out["matches"]] == [3, 4]
    assert sum(m["deals"] for m in out["matches"]) == out["deals"]
    for m in out["matches"]:
        assert m["over"] is True            # --matches plays each match to its end
        assert len(m["score"]) == 4
        # partnerships: seats 0 and 2, 1 and 3 show their side's score
        assert m["score"][0] == m["score"][2] and m["score"][1] == m["score"][3]
        top = max(m["score"])
        if m["ended_by"] == "rule":         # a side reached +6: the top total wins (§0.9)
            assert top >= 6 and m["winners"] == [s for s in range(4) if m["score"][s] == top]
        else:                               # random bots rarely reach +6: stopped, not won
            assert m["ended_by"] == "deal limit" and m["deals"] == 1000 and m["winners"] == []


def test_simulate_same_seed_same_json():
    a = taash("simulate", "29", "--matches", 2, "--seed", 3, "--json")
    b = taash("simulate", "29", "--matches", 2, "--seed", 3, "--json")
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout


def record_files(path: Path) -> list[Path]:
    """The record files `--record path` wrote: path itself (one match, or a set of them)."""
    return [path] if path.exists() else []


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    d = tmp_path_factory.mktemp("records")
    out = d / "out.json"
    r = taash("simulate", "29", "--deals", 50, "--record", out, "--json")
    assert r.returncode == 0, r.stderr
    files = record_files(out)
    assert files, list(d.iterdir())
    return json.loads(r.stdout), files


def test_record_and_replay_json(recorded):
    summary, files = recorded
    assert summary["deals"] == 50
    assert len(files) == len(summary["matches"])
    total = 0
    for f, msum in zip(files, summary["matches"]):
        rec = json.loads(f.read_text())
        assert rec["format"] == "taash-record/1" and rec["variant"] == "29"
        r = taash("replay", f, "--json")
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        assert set(out) == {"deals", "match"}
        assert set(out["match"]) == {"score", "over", "winners", "ended_by"}
        # the replay ends where the simulation did
        assert out["match"] == {k: msum[k] for k in ("score", "over", "winners", "ended_by")}
        assert len(out["deals"]) == msum["deals"] == len(rec["deals"])
        total += len(out["deals"])
        for d, rd in zip(out["deals"], rec["deals"]):
            assert {"dealer", "declarer", "bid", "trump", "target", "points", "made",
                    "score_change", "tricks"} <= set(d)
            assert d["dealer"] == rd["dealer"]
            if d["declarer"] is None:      # thrown in
                assert d["tricks"] == [] and d["made"] is None and sum(d["points"]) == 0
                continue
            assert 15 <= d["bid"] <= 29
            # royals (once a deal) moves the target by 4 either way
            assert d["target"] - d["bid"] in (-4, 0, 4)
            assert d["trump"] in ("S", "H", "D", "C")
            assert len(d["tricks"]) == 8
            for t in d["tricks"]:
                assert set(t) == {"leader", "cards", "winner"}
                assert t["leader"] in range(4) and t["winner"] in range(4) and len(t["cards"]) == 4
            assert sum(d["points"]) == 29          # 28 card points + 1 for the last trick
            dec = d["declarer"]
            side_pts = d["points"][dec] + d["points"][(dec + 2) % 4]
            assert d["made"] == (side_pts >= d["target"])
            ch = 1 if d["made"] else -1
            assert d["score_change"] == [ch if (s - dec) % 2 == 0 else 0 for s in range(4)]
    assert total == 50


def test_replay_text(recorded):
    _, files = recorded
    r = taash("replay", files[0])
    assert r.returncode == 0, r.stderr
    assert "deal 1:" in r.stdout and "match: score" in r.stdout


def test_replay_illegal_action(recorded, tmp_path):
    _, files = recorded
    rec = json.loads(files[0].read_text())
    assert len(rec["deals"]) >= 2
    deal = rec["deals"][1]
    deal["actions"][0] = "bid 99"
    bad = tmp_path / "illegal.json"
    bad.write_text(json.dumps(rec))
    r = taash("replay", bad)
    eldest = (deal["dealer"] + 1) % 4
    # the first call of a deal in 29: pass (nobody has called yet) or any bid 15..29
    legal = ", ".join(["pass"] + [f"bid {b}" for b in range(15, 30)])
    assert_one_clear_error(r)
    assert r.returncode == 1
    assert r.stderr.strip() == (f"taash: error: deal 2, action 0: illegal action 'bid 99' "
                                f"(seat {eldest}); legal: {legal}")


def test_replay_not_json(tmp_path):
    p = tmp_path / "rec.json"
    p.write_text("{not json")
    assert_one_clear_error(taash("replay", p), "is not JSON")


def test_replay_missing_file(tmp_path):
    p = tmp_path / "missing.json"
    assert_one_clear_error(taash("replay", p), "cannot read", str(p))


def test_simulate_unknown_variant():
    assert_one_clear_error(taash("simulate", "no-such-variant"), "no variant named 'no-such-variant'")


def test_simulate_unknown_option():
    assert_one_clear_error(taash("simulate", "29", "--set", "nope=1"), "unknown option 'nope'")


def test_simulate_set_without_value():
    assert_one_clear_error(taash("simulate", "29", "--set", "x"), "--set takes KEY=VALUE")


def test_simulate_zero_matches():
    assert_one_clear_error(taash("simulate", "29", "--matches", 0), "--matches must be at least 1")


def test_simulate_address_without_cluster_is_refused():
    """`--address` says where the Ray cluster is; without `--cluster ray` it played 1000
    deals locally and said nothing (`taash ladder run` refuses it already)."""
    assert_one_clear_error(taash("simulate", "29", "--address", "10.0.0.1:6379"),
                           "--address is for --cluster ray")


def test_record_of_a_users_variant_replays_from_anywhere_and_notices_edits(tmp_path):
    """A record names a user's variant relative to itself; an edited variant is refused."""
    var = tmp_path / "my29.yaml"
    var.write_text('extends: "29"\nname: my29\nauction:\n  min_bid: 16\n')
    (tmp_path / "recs").mkdir()
    r = taash("simulate", var, "--deals", 3, "--record", tmp_path / "recs" / "r.json")
    assert r.returncode == 0, r.stderr
    rec = json.loads((tmp_path / "recs" / "r.json").read_text())
    assert rec["variant"] == "../my29.yaml" and len(rec["variant_sha256"]) == 64
    r = taash("replay", "r.json", cwd=tmp_path / "recs")
    assert r.returncode == 0, r.stderr
    var.write_text('extends: "29"\nname: my29\nauction:\n  min_bid: 17\n')
    r = taash("replay", tmp_path / "recs" / "r.json")
    assert r.returncode == 1 and "has changed since this record was written" in r.stderr
    assert "Traceback" not in r.stderr


def test_record_place_is_checked_before_playing(tmp_path):
    r = taash("simulate", "28", "--matches", 3, "--record", tmp_path / "nowhere" / "x.json")
    assert r.returncode == 2 and "no such folder" in r.stderr and "Traceback" not in r.stderr
    r = taash("simulate", "28", "--matches", 2, "--record", str(tmp_path) + "/")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in tmp_path.glob("*.json")) == ["match-1.json", "match-2.json"]


def test_check_reports_every_problem_by_position_and_counts_them(tmp_path):
    bad = tmp_path / "bad.yaml"
    # line 4: may_pass at column 13; line 5: may_bid at column 12 (hnd at 18, '=' at 12 + 11)
    bad.write_text('extends: "29"\nname: bad\nauction:\n  may_pass: lead == me\n'
                   '  may_bid: count(hnd) = 2\n')
    r = taash("check", bad, "variants/28.yaml")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    heads = [ln for ln in r.stderr.splitlines() if ln.startswith(str(bad.resolve()))]
    assert [h.split(": error: ")[0] for h in heads] == [f"{bad.resolve()}:{p}" for p in ("4:13", "5:18", "5:23")]
    assert r.stderr.splitlines()[-1] == "3 problems in 1 of 2 files"


def test_rules_diff_without_base_compares_with_the_files_parent(tmp_path):
    own = taash("rules", "variants/house/29-double.yaml", "--diff")
    explicit = taash("rules", "variants/house/29-double.yaml", "--diff", "29")
    assert own.returncode == explicit.returncode == 0, own.stderr
    assert own.stdout == explicit.stdout
    assert own.stdout.startswith("# Twenty-nine with doubling: how it differs from Twenty-nine\n")
    # a user's file two levels down compares with its own parent, not with the shipped root
    (tmp_path / "mid.yaml").write_text('extends: "29"\nname: mid\nauction:\n  min_bid: 16\n')
    (tmp_path / "top.yaml").write_text('extends: mid.yaml\nname: top\ntitle: Top\nauction:\n  min_bid: 17\n')
    r = taash("rules", tmp_path / "top.yaml", "--diff")
    assert r.returncode == 0, r.stderr
    # only the auction differs, and what it replaces is the parent's (bids from 16), not 29's
    assert [ln for ln in r.stdout.splitlines() if ln.startswith("## ")] == ["## Auction"]
    assert "> Bids are numbers from 16 to" in r.stdout and "Bids are numbers from 17 to" in r.stdout
    assert_one_clear_error(taash("rules", "29", "--diff"), "29 extends no variant", "--diff BASE")


def test_several_matches_recorded_in_one_file_replay_from_it(tmp_path):
    out = tmp_path / "out.json"
    r = taash("simulate", "28", "--matches", 3, "--seed", 5, "--record", out, "--json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    data = json.loads(out.read_text())
    assert data["format"] == "taash-records/1" and len(data["records"]) == 3
    assert [rec["seed"] for rec in data["records"]] == [5, 6, 7]
    r = taash("replay", out, "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)["matches"]
    assert [m["match"]["score"] for m in got] == [m["score"] for m in summary["matches"]]
    text = taash("replay", out).stdout
    assert [ln for ln in text.splitlines() if ln.startswith("match ") and " of " in ln] == [
        "match 1 of 3:", "match 2 of 3:", "match 3 of 3:"]
    # a bad action in the second record is named with the record's place in the set
    data["records"][1]["deals"][0]["actions"][0] = "bid 99"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert_one_clear_error(taash("replay", bad), "taash: error: record 2 of the set: deal 1, action 0: "
                                                 "illegal action 'bid 99'")
    bad.write_text(json.dumps({"format": "taash-records/1", "records": []}))
    assert_one_clear_error(taash("replay", bad), "a set of records needs 'records'")


def test_a_bot_that_raises_shows_its_first_fault(tmp_path):
    # every fault is counted; the first of each seat is said, with its error, so that a
    # crashing bot of the user's is not a silent column of default actions
    (tmp_path / "crashbot.py").write_text(
        "class Crash:\n"
        "    def decide(self, observation, legal):\n"
        "        raise RuntimeError('my bot broke')\n\n"
        "def crash(variant):\n"
        "    return Crash()\n")
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200", PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    r = subprocess.run([sys.executable, "-m", "taash.arena.cli", "simulate", "29", "--bots",
                        "me=crashbot:crash,random,random,random", "--deals", "2"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "seat 0 (me), first fault: match seed 0, deal 1: error (RuntimeError: my bot broke)" in r.stdout
    assert "seat 1" not in r.stdout
    j = subprocess.run([sys.executable, "-m", "taash.arena.cli", "simulate", "29", "--bots",
                        "me=crashbot:crash,random,random,random", "--deals", "2", "--json"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    out = json.loads(j.stdout)
    assert out["faults"][0] > 0 and out["faults"][1:] == [0, 0, 0]
    assert "RuntimeError: my bot broke" in out["first_faults"][0] and out["first_faults"][1:] == [None] * 3


def test_a_record_folder_named_with_a_slash_is_made(tmp_path):
    r = taash("simulate", "28", "--matches", 2, "--record", str(tmp_path / "new") + "/")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (tmp_path / "new").glob("*.json")) == ["match-1.json", "match-2.json"]
    r = taash("simulate", "28", "--matches", 2, "--record", str(tmp_path / "no" / "such") + "/")
    assert_one_clear_error(r, "no such folder")


def test_a_refused_simulation_makes_no_record_folder(tmp_path):
    r = taash("simulate", "29", "--bots", "nosuch,random,random,random", "--record", str(tmp_path / "out") + "/")
    assert r.returncode != 0 and "unknown bot 'nosuch'" in r.stderr
    assert not (tmp_path / "out").exists()


def test_replay_prints_an_arena_records_verdicts_under_their_deal(recorded, tmp_path):
    _, files = recorded
    rec = json.loads(Path(files[0]).read_text())
    assert len(rec["deals"]) >= 2
    rec["arena"] = {"verdicts": [
        {"deal": 1, "index": 3, "seat": 2, "request_id": "g000007.40", "kind": "TIMEOUT", "action": None,
         "applied": "pass", "strikes": 0, "message": "no legal answer before the deadline"},
        {"deal": 0, "index": 0, "seat": 1, "request_id": None, "kind": "DISCONNECTED"},
        "not a verdict", {"deal": "x", "kind": "TIMEOUT"}]}       # a record is any JSON: left out
    f = tmp_path / "taash.arena.json"
    f.write_text(json.dumps(rec))
    r = taash("replay", f)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    d1 = next(i for i, ln in enumerate(lines) if ln.startswith("deal 1:"))
    d2 = next(i for i, ln in enumerate(lines) if ln.startswith("deal 2:"))
    assert lines[d1 + 1] == "  verdict DISCONNECTED seat 1 at action 0"
    assert lines[d2 + 1] == "  verdict TIMEOUT seat 2 at action 3 (g000007.40): applied pass"
    assert sum(ln.startswith("  verdict") for ln in lines) == 2


@pytest.mark.parametrize("where", ["folder", "file"])
def test_ctrl_c_keeps_the_records_of_the_finished_matches(tmp_path, where):
    """SIGINT in the middle of `taash simulate --record`: the matches finished by then are
    recorded (a folder: each file as its match ended; one file: the finished ones as a
    set), the command says how many, exits 130, and the records replay (from a
    fresh-eyes tester: the folder was left empty)."""
    import signal
    import time
    target = tmp_path / ("recs/" if where == "folder" else "all.json")
    if where == "folder":
        (tmp_path / "recs").mkdir()
    env = dict(os.environ, NO_COLOR="1")
    p = subprocess.Popen([sys.executable, "-m", "taash.arena.cli", "simulate", "28", "--matches", "100000", "--seed", "3",
                          "--record", str(target) + ("/" if where == "folder" else ""), "--json"],
                         cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=sigint_default)
    end = time.monotonic() + 60
    while time.monotonic() < end:    # some matches done (a folder shows them; a file: give it time)
        time.sleep(0.5)
        if (where == "folder" and len(list((tmp_path / "recs").glob("*.json"))) >= 3
                or where == "file" and time.monotonic() > end - 58):
            break
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:        # never left running after a failure
            p.kill()
    assert p.returncode == 130, err
    assert "Traceback" not in err and "taash: interrupted" in err
    said = int(err.split(" finished match")[0].rsplit(" ", 1)[-1])
    if where == "folder":
        files = sorted((tmp_path / "recs").glob("match-*.json"), key=lambda f: int(f.stem.split("-")[1]))
        assert len(files) == said >= 3
        assert [f.name for f in files] == [f"match-{i + 1}.json" for i in range(said)]
        assert not list((tmp_path / "recs").glob("*.tmp"))
        for i in (0, said - 1):
            rec = json.loads(files[i].read_text())
            assert rec["seed"] == 3 + i
            assert taash("replay", files[i], "--json").returncode == 0
    else:
        data = json.loads(target.read_text())
        recs = data["records"] if "records" in data else [data]
        assert len(recs) == said >= 1 and [r["seed"] for r in recs] == list(range(3, 3 + said))
        for i in (0, said - 1):         # the first and the last finished, each replayed alone
            (tmp_path / "one.json").write_text(json.dumps(recs[i]))
            assert taash("replay", tmp_path / "one.json", "--json").returncode == 0


def test_rules_diff_of_a_copy_that_kept_its_title_names_both(tmp_path):
    # from a fresh-eyes tester: "Twenty-nine: how it differs from Twenty-nine"
    copy = tmp_path / "my29.yaml"
    copy.write_text((ROOT / "variants" / "29.yaml").read_text())
    r = taash("rules", copy, "--diff", "29")
    assert r.returncode == 0, r.stderr
    head = r.stdout.splitlines()[0]
    assert head == f"# Twenty-nine ({copy}): how it differs from Twenty-nine (29)"


# -- the core install: no extras -------------------------------------------------------------

# runs `taash` with the optional libraries unimportable, as in an install without extras
NO_EXTRAS = """
import importlib.abc, sys
BLOCK = {"grpc", "grpc_health", "grpc_reflection", "google", "openskill", "aiohttp", "jinja2",
         "markupsafe", "matplotlib", "ray"}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCK:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Block())
from taash.arena.cli import main
sys.exit(main(sys.argv[1:]))
"""


def taash_core(*args, cwd=ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="120")
    env.pop("TAASH_TOKEN", None)
    return subprocess.run([sys.executable, "-c", NO_EXTRAS, *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_engine_commands_need_no_extra(tmp_path):
    """check, simulate (with the heuristic and search bots), replay, variants, rules and
    proto run with none of grpc, protobuf, aiohttp, openskill, jinja2, matplotlib, ray."""
    assert taash_core("check", "29").stdout == "29: ok\n"
    rec = tmp_path / "m.json"
    r = taash_core("simulate", "28", "--deals", "1", "--json", "--bots", "heuristic,search,random,random",
                   "--record", rec)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["deals"] == 1
    r = taash_core("replay", rec)
    assert r.returncode == 0 and r.stdout.startswith("Twenty-eight (28), seed 0: 1 deals"), r.stderr
    assert "29" in taash_core("variants").stdout.split()
    assert taash_core("rules", "28").stdout.startswith("# Twenty-eight")
    r = taash_core("proto", "--out", tmp_path / "contract")
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("args,command,extra", [
    (["arena", "serve", "--data", "D"], "taash arena serve", "arena"),
    (["bot", "random", "--token", "t"], "taash bot", "arena"),
    (["ladder", "run", "--variant", "29", "--data", "D"], "taash ladder run", "arena"),
    (["ladder", "report", "--data", "D"], "taash ladder report", "web"),
    (["web", "--data", "D"], "taash web", "web"),
    (["serve", "http", "--bot", "random"], "taash serve http", "arena"),
    # the missing extra is said before any other complaint: no token, an address beyond
    # loopback, a seat the variant has not
    (["bot", "random"], "taash bot", "arena"),
    (["bot", "http", "http://127.0.0.1:1"], "taash bot", "arena"),
    (["serve", "http", "--bot", "random", "--host", "0.0.0.0"], "taash serve http", "arena"),
    (["play", "29", "--host", "0.0.0.0"], "taash play", "web"),
    (["play", "29", "--seat", "9"], "taash play", "web"),
    (["arena", "match", "29", "--bots", "a,b,c,d", "--seed", "-1"], "taash arena match", "arena"),
    (["simulate", "29", "--deals", "2", "--cluster", "ray"], "taash simulate", "ray")])
def test_a_command_without_its_extra_says_which_in_one_line(args, command, extra, tmp_path):
    """Exit 2, one line naming the command and the extra to install, no traceback."""
    (tmp_path / "D").mkdir()
    r = taash_core(*args, cwd=tmp_path)
    assert r.returncode == 2
    assert_one_clear_error(r, f"{command}: needs the {extra} extra: pip install 'taash[{extra}]'")


def test_arena_token_needs_no_extra(tmp_path):
    """`taash arena token` only writes the data directory."""
    r = taash_core("arena", "token", "bob", "--data", tmp_path / "d")
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.strip()) > 20


# -- proto ------------------------------------------------------------------------------------------

def test_proto_writes_the_contract_that_protoc_compiles(tmp_path):
    """`taash proto --out DIR` writes the two .proto files and the observation schema as
    shipped (proto/), and protoc -I DIR compiles them."""
    out = tmp_path / "contract"
    r = taash("proto", "--out", out)
    assert r.returncode == 0, r.stderr
    rels = ["taash/arena/v1/arena.proto", "taash/arena/v1/messages.proto", "observation.schema.json"]
    assert r.stdout.split() == [str(out / p) for p in rels]
    for p in rels:
        assert (out / p).read_bytes() == (ROOT / "proto" / p).read_bytes()
    grpc_tools = pytest.importorskip("grpc_tools")
    from grpc_tools import protoc
    include = Path(grpc_tools.__file__).parent / "_proto"
    gen = tmp_path / "gen"
    gen.mkdir()
    code = protoc.main(["protoc", f"-I{out}", f"-I{include}", f"--python_out={gen}",
                        str(out / rels[0]), str(out / rels[1])])
    assert code == 0
    assert (gen / "taash/arena/v1/arena_pb2.py").is_file() and (gen / "taash/arena/v1/messages_pb2.py").is_file()


def test_proto_out_must_be_a_folder(tmp_path):
    f = tmp_path / "file"
    f.write_text("")
    assert_one_clear_error(taash("proto", "--out", f), "taash: error: --out", "not a folder")
    assert taash("proto", "--out", f).returncode == 2


def test_a_game_without_contracts_simulates_and_replays_as_such(tmp_path):
    """Queen hunt (docs/examples/queen-hunt.yaml) has no auction and no contract: no deal
    is 'thrown in', no rate of contracts made; each deal's 21 points are all taken and
    each seat's score change is minus its points."""
    rec = tmp_path / "q.json"
    r = taash("simulate", ROOT / "docs" / "examples" / "queen-hunt.yaml", "--deals", 2, "--record", rec)
    assert r.returncode == 0, r.stderr
    assert "no contract played" in r.stdout and "contracts made" not in r.stdout
    r = taash("replay", rec)
    assert r.returncode == 0, r.stderr
    deals = [ln for ln in r.stdout.splitlines() if ln.startswith("deal ")]
    assert len(deals) == 2 and not any("thrown in" in ln for ln in deals)
    for ln in deals:
        pts = json.loads(ln.split("points per seat ", 1)[1].split(";", 1)[0])
        change = json.loads(ln.split("score change ", 1)[1])
        assert sum(pts) == 21 and change == [-p for p in pts]
