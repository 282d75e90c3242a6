"""Running an arena, as its operator and a bot author do: the main job's
children die with it, `arena match` after losing the server, `watch --json`, a failed
bind, a bot at a wrong address, a variant file of the caller's. Real processes."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest

from taash.arena.store import SQLiteStore
from tests.helpers.arena_util import ROOT, TAASH, Server, env, record


def _lines(stream, out: list, seen: threading.Event, marker: str):
    for line in stream:
        out.append(line)
        if marker in line:
            seen.set()
    seen.set()


class Lines(list):
    """The lines read so far; a thread goes on reading into it (``thread``) to the end."""
    thread: threading.Thread


def read_until(proc, marker: str, timeout: float, stream="stderr") -> Lines:
    """Lines of ``proc``'s stream up to the first holding ``marker`` (a thread keeps reading)."""
    out = Lines()
    seen = threading.Event()
    out.thread = threading.Thread(target=_lines, args=(getattr(proc, stream), out, seen, marker), daemon=True)
    out.thread.start()
    seen.wait(timeout)
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:    # a thread that just ended
            pass
    return out


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_main_job_ends_the_arena_and_the_bots(tmp_path, how):
    job = subprocess.Popen([sys.executable, "-m", "taash.arena.cli.mainjob", "--data", str(tmp_path / "run"),
                            "--variants", "29", "--deals", "4000", "--no-node", "--bhoos-deals", "0"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
    try:
        lines = read_until(job, "bots connected", 240)
        assert any("bots connected" in x for x in lines), "".join(lines)
        kids = _children(job.pid)
        cmds = [Path(f"/proc/{k}/cmdline").read_bytes().replace(b"\0", b" ").decode() for k in kids]
        assert sum("arena serve" in c for c in cmds) == 1
        assert sum(" bot " in c for c in cmds) == 4          # random, heuristic, search, ismcts
        os.kill(job.pid, how)
        code = job.wait(30)
        # SIGTERM: it stops its children itself and exits 128 + 15, as a shell reports it
        assert code == (-9 if how == signal.SIGKILL else 143)
        end = time.monotonic() + 60
        while any(_alive(k) for k in kids) and time.monotonic() < end:
            time.sleep(0.2)
        assert [k for k in kids if _alive(k)] == []
    finally:
        if job.poll() is None:
            job.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("ops") / "data")
    s.tokens = {n: s.token(n) for n in ("r",)}
    s.bot("random", "r", s.tokens["r"])
    s.wait_connected(["r"])
    yield s
    s.stop()


def test_watch_json_has_the_proto_names_and_every_field(server):
    watch = subprocess.Popen([*TAASH, "arena", "watch", "--json", "--server", server.addr],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
    try:
        time.sleep(1.0)     # the watch call is up before the game starts (else it still sees it: replayed)
        [g] = server.run_matches("28", ["r"] * 4, seed=3, max_deals=1)
        lines = read_until(watch, '"game_ended"', 60, stream="stdout")
    finally:
        watch.terminate()
        watch.wait(10)
    events = [json.loads(x) for x in lines]
    mine = [e for e in events if e["game_id"] == g.game_id]
    assert "game_started" in mine[0] and mine[0]["index"] == 0        # index 0 printed, not dropped
    started = mine[0]["game_started"]
    assert started["bots"] == ["r"] * 4 and set(started["time_control"]) == {"move_ms", "bank_ms", "grace_ms",
                                                                             "max_strikes"}
    actions = [e["action"] for e in mine if "action" in e]
    assert {a["seat"] for a in actions} == {0, 1, 2, 3}               # seat 0 is there
    # every field (by_default false included), a trick when one is completed, the seat to
    # act next while the deal goes on
    assert all(set(a) - {"trick", "to_act"} == {"deal", "seat", "action", "by_default"} for a in actions)
    assert all("to_act" in a for a in actions[:-1]) and "to_act" not in actions[-1]
    tricks = [a["trick"] for a in actions if "trick" in a]   # a message field: there when set
    plays = sum(a.startswith("play ") for a in record(g.record)["deals"][0]["actions"])
    assert plays == 32 and [t["number"] for t in tricks] == list(range(1, 9))   # 28: 8 tricks of 4
    assert all(set(t) == {"number", "winner", "points"} for t in tricks)        # winner 0 too
    assert any(a["by_default"] is False for a in actions)            # false is printed too
    ended = mine[-1]["game_ended"]
    assert ended["record"] == g.record and ended["deals"] == 1 and len(ended["score"]) == 4
    assert ended["seed"] == 3           # a number (protobuf's JSON writes 64-bit integers as strings)


def test_a_failed_bind_is_one_line(server, tmp_path):
    port = server.addr.rsplit(":", 1)[1]
    out = server.taash("arena", "serve", "--port", port, "--data", str(tmp_path / "d2"), timeout=60)
    assert out.returncode == 1
    assert out.stderr.splitlines() == [out.stderr.strip()]
    assert out.stderr.startswith(f"taash: error: cannot listen on 127.0.0.1:{port}")
    # --web on a taken port: refused before the arena serves (it used to serve on, its pages not)
    out = server.taash("arena", "serve", "--port", "0", "--web", port, "--data", str(tmp_path / "d3"), timeout=60)
    assert out.returncode == 2 and out.stderr.splitlines() == [out.stderr.strip()], out.stderr
    assert f"--web {port}: cannot serve the web pages on 127.0.0.1:{port}" in out.stderr
    assert "listening" not in out.stdout


def test_a_bot_at_a_wrong_address_says_so(server):
    """Port 1 refuses connections: the bot logs each attempt's reason, with -v from the
    first, without -v from the third, and keeps trying (backing off)."""
    for verbose, first in ((["-v"], 1), ([], 3)):
        p = subprocess.Popen([*TAASH, "bot", "random", "--token", server.tokens["r"], "--server", "127.0.0.1:1",
                              *verbose], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env(),
                             cwd=ROOT)
        try:
            lines = read_until(p, "(attempt 4)", 60)
        finally:
            p.terminate()
            p.wait(10)
        attempts = [x for x in lines if "cannot connect to 127.0.0.1:1" in x]
        assert [int(x.split("(attempt ")[1].split(")")[0]) for x in attempts] == list(range(first, 5))
        assert all("UNAVAILABLE" in x and "Connection refused" in x for x in attempts)
        delays = [float(x.rsplit("retrying in ", 1)[1].split()[0]) for x in attempts]
        assert delays == [0.1 * 2 ** (n - 1) for n in range(first, 5)]


@pytest.mark.slow
def test_match_after_the_server_stops_says_what_it_received(tmp_path):
    """SIGTERM of the arena in the middle of `arena match`: each result was printed as it
    came, the game in progress is reported cut short, and the end says how many came,
    not "cannot reach the arena"."""
    s = Server(tmp_path / "data")
    try:
        s.bot("random", "r", s.token("r"))
        s.wait_connected(["r"])
        client = subprocess.Popen([*TAASH, "arena", "match", "28", "--bots", "r,r,r,r", "--matches", "500",
                                   "--max-deals", "1", "--server", s.addr, "--data", str(s.data)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
        lines = read_until(client, "1 deals", 120)
        assert lines and lines[-1].startswith("g")
        # stop it while a game is being played (its journal is in the store), not between
        # two games: a game that has not begun when the arena stops has nothing to report
        import sqlite3
        db = sqlite3.connect(f"file:{s.data / 'arena.sqlite3'}?mode=ro", uri=True, timeout=10)
        end = time.monotonic() + 60
        while not db.execute("SELECT count(*) FROM journal").fetchone()[0] and time.monotonic() < end:
            time.sleep(0.002)
        db.close()
        s.proc.send_signal(signal.SIGTERM)
        s.proc.wait(30)
        client.wait(60)
        lines.thread.join(10)
        err = "".join(lines)
        out = client.stdout.read()
    finally:
        s.stop()
    assert client.returncode == 1
    assert "cannot reach" not in err
    got = [x for x in err.splitlines() if x.startswith("g0")]
    # the game the stop cut short is reported too (SIGTERM lets the arena save and say it)
    assert got[-1].endswith("(not complete), error: the arena stopped before the game ended")
    assert all("error" not in x for x in got[:-1])
    assert err.splitlines()[-1] == (f"taash: error: the arena at {s.addr} ended the call after {len(got)} of 500 "
                                    "results (it was stopped); the results above are all it sent")
    assert 2 <= len(got) < 500
    for x in got:                                     # every result printed is in the table
        assert x.split(":")[0] in out


def test_observations_on_the_wire_fit_the_schema(server, tmp_path):
    """What a bot receives in observation_json, from a real arena, for a face-down trump
    (28) and a secret trump suit (house/29-hidden-trump)."""
    from tests.arena.test_observation_schema import validator
    script = tmp_path / "capture.py"
    out = tmp_path / "obs.jsonl"
    script.write_text(
        "import json, sys\n"
        "from taash.arena.sdk import run\n\n"
        "def decide(observation, legal_actions):\n"
        "    with open(sys.argv[3], 'a') as f:\n"
        "        f.write(json.dumps(observation) + '\\n')\n"
        "    return legal_actions[0]\n\n"
        "run(decide, token=sys.argv[1], name='cap', server=sys.argv[2], max_games=2)\n")
    p = subprocess.Popen([sys.executable, str(script), server.token("cap"), server.addr, str(out)], env=env(),
                         cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        server.wait_connected(["cap"])
        for variant in ("28", "house/29-hidden-trump"):
            [g] = server.run_matches(variant, ["cap", "r", "cap", "r"], seed=2, max_deals=2)
            assert g.deals == 2 and g.faults == 0
        p.wait(60)
    finally:
        if p.poll() is None:
            p.kill()
    check = validator()
    seen = [json.loads(x) for x in out.read_text().splitlines()]
    assert {o["variant"] for o in seen} == {"28", "29-hidden-trump"}
    for o in seen:
        assert o["seat"] in (0, 2)
        errors = list(check.iter_errors(o))
        assert not errors, errors[0].message


@pytest.mark.slow
def test_kill_9_of_the_arena_mid_match_loses_no_finished_deal(tmp_path):
    """The arena dies (SIGKILL) in the middle of a match: `arena match` says what it had;
    on restart the game is found, saved as cut short with every deal it had finished,
    and the record replays to the score of its row."""
    import sqlite3
    from taash.arena.server.persist import CUT_BY_CRASH
    data = tmp_path / "data"
    s = Server(data)
    try:
        s.bot("random", "r", s.token("r"))
        s.wait_connected(["r"])
        # random bots in 29 overbid and fail: the match runs towards its 1000-deal limit
        client = subprocess.Popen([*TAASH, "arena", "match", "29", "--bots", "r,r,r,r", "--seed", "4",
                                   "--server", s.addr, "--data", str(data)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
        db = sqlite3.connect(data / "arena.sqlite3", timeout=30)
        end = time.monotonic() + 120
        while db.execute("SELECT count(*) FROM journal WHERE n > 0").fetchone()[0] < 3:
            assert time.monotonic() < end, s.logtext()
            time.sleep(0.1)
        s.proc.kill()
        s.proc.wait(30)
        _, err = client.communicate(timeout=60)
        assert client.returncode == 1 and "cannot reach" not in err
        assert f"lost the arena at {s.addr} after 0 of 1 result" in err
        [(game_id,)] = db.execute("SELECT game_id FROM games WHERE finished IS NULL").fetchall()
        journaled = [json.loads(e) for (e,) in db.execute(
            "SELECT entry FROM journal WHERE game_id=? AND n > 0 ORDER BY n", (game_id,))]
        assert len(journaled) >= 3
        db.close()
    finally:
        for p in s.procs:
            p.kill()
        s.stop()
    s2 = Server(data)                                  # the restart
    try:
        assert "saved 1 game the arena was playing when it last stopped, cut short: " + game_id in s2.logtext()
        db = sqlite3.connect(data / "arena.sqlite3", timeout=30)
        row = db.execute("SELECT complete, score, record, faults, bots FROM games WHERE game_id=?",
                         (game_id,)).fetchone()
        assert db.execute("SELECT count(*) FROM journal").fetchone()[0] == 0
        db.close()
        complete, score, path, faults, bots = row
        assert complete == 0 and faults == 0 and json.loads(bots) == ["r"] * 4
        rec = record(path)
        assert rec["variant"] == "29" and rec["seed"] == 4
        assert [{k: d[k] for k in ("dealer", "hands", "widow", "actions")} for d in journaled] == rec["deals"]
        assert rec["arena"]["complete"] is False and rec["arena"]["error"] == CUT_BY_CRASH
        assert [d["t_ms"] for d in rec["arena"]["deals"]] == [d["t_ms"] for d in journaled]
        out = subprocess.run([*TAASH, "replay", path, "--json"], capture_output=True, text=True, env=env(),
                             cwd=ROOT, timeout=120)
        assert out.returncode == 0, out.stderr
        rj = json.loads(out.stdout)
        assert rj["match"]["score"] == json.loads(score) and rj["match"]["over"] is False
        assert len(rj["deals"]) == len(journaled)
    finally:
        s2.stop()
    s3 = Server(data)                                  # a second restart finds nothing more
    try:
        assert "saved" not in s3.logtext()
    finally:
        s3.stop()


def test_a_variant_file_of_the_caller_is_sent_as_text(server, tmp_path):
    """`arena match mine.yaml` in a directory the arena knows nothing of: the file (and its
    `extends:` chain) is read here and sent; the arena keeps it, and its record names the
    file as the caller did and replays from the kept copy."""
    (tmp_path / "base.yaml").write_text('extends: "28"\nname: my-28-base\n')
    (tmp_path / "mine.yaml").write_text('extends: base.yaml\nname: my-28\n')
    out = subprocess.run([*TAASH, "arena", "match", "mine.yaml", "--bots", "r,r,r,r", "--max-deals", "1",
                          "--seed", "6", "--json", "--server", server.addr, "--data", str(server.data)],
                         capture_output=True, text=True, env=env(), cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    [m] = json.loads(out.stdout)["matches"]
    rec = record(m["record"])
    # named as the caller named it; the arena's copy named relative to the record, so that
    # the data directory can be moved or copied
    assert rec["variant"] == "mine.yaml"
    assert not Path(rec["variant_copy"]).is_absolute(), rec["variant_copy"]
    kept = (Path(m["record"]).parent / rec["variant_copy"]).resolve()
    assert kept.parent == (server.data / "variants").resolve() and kept.is_file()
    assert json.loads(kept.read_text())["name"] == "my-28" and "extends" not in json.loads(kept.read_text())
    rj = subprocess.run([*TAASH, "replay", m["record"], "--json"], capture_output=True, text=True, env=env(),
                        cwd=ROOT, timeout=120)
    assert rj.returncode == 0, rj.stderr
    assert json.loads(rj.stdout)["match"]["score"] == m["score"]
    moved = tmp_path / "copy-of-data"
    for d in ("records", "variants"):
        shutil.copytree(server.data / d, moved / d)
    rj = subprocess.run([*TAASH, "replay", str(moved / "records" / Path(m["record"]).name), "--json"],
                        capture_output=True, text=True, env=env(), cwd=tmp_path, timeout=120)
    assert rj.returncode == 0, rj.stderr
    assert json.loads(rj.stdout)["match"]["score"] == m["score"]
    # a bad file is found here, located in the caller's file
    (tmp_path / "bad.yaml").write_text('extends: "28"\nplayers: 3\n')
    out = subprocess.run([*TAASH, "arena", "match", "bad.yaml", "--bots", "r,r,r", "--server", server.addr,
                          "--data", str(server.data)], capture_output=True, text=True, env=env(), cwd=tmp_path,
                         timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    # printed as `taash check` prints it: the location first, "error:" once
    assert out.stderr.startswith(str(tmp_path / "bad.yaml") + ":") and "bad.yaml:2:" in out.stderr, out.stderr
    assert "taash: error:" not in out.stderr
    # a shipped name with a bad option: the arena's problem, with no word of paths
    out = subprocess.run([*TAASH, "arena", "match", "29", "--bots", "r,r,r,r", "--set", "nope=1", "--server",
                          server.addr, "--data", str(server.data)], capture_output=True, text=True, env=env(),
                         cwd=tmp_path, timeout=120)
    assert out.returncode == 1 and "invalid argument: 29: unknown option 'nope'" in out.stderr, out.stderr
    assert "variant path" not in out.stderr and out.stderr.count("error:") == 1
    # a name that is neither here nor shipped: the arena's answer says where it looked
    out = subprocess.run([*TAASH, "arena", "match", "elsewhere.yaml", "--bots", "r,r,r,r", "--server", server.addr,
                          "--data", str(server.data)], capture_output=True, text=True, env=env(), cwd=tmp_path,
                         timeout=120)
    assert out.returncode == 1 and "no variant named 'elsewhere.yaml'" in out.stderr
    assert "DATA/variants/" in out.stderr


def test_reflection_describes_the_service_without_the_proto_files(server):
    """What grpcurl does: list the services, fetch the descriptors by reflection, and
    call ListBots with messages built from them alone (grpcio-reflection's client)."""
    import grpc
    from google.protobuf.descriptor_pool import DescriptorPool
    from google.protobuf.message_factory import GetMessageClass
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
    with grpc.insecure_channel(server.addr) as ch:
        db = ProtoReflectionDescriptorDatabase(ch)
        assert {"taash.arena.v1.Arena", "grpc.health.v1.Health"} <= set(db.get_services())
        pool = DescriptorPool(db)
        svc = pool.FindServiceByName("taash.arena.v1.Arena")
        assert [m.name for m in svc.methods] == ["Play", "Watch", "WatchBatches", "RunMatches", "ListBots",
                                                 "MyStanding"]
        dr = pool.FindMessageTypeByName("taash.arena.v1.DecisionRequest")
        assert {"request_id", "observation_json", "legal_actions", "deadline_ms"} <= set(dr.fields_by_name)
        method = svc.methods_by_name["ListBots"]
        req_cls, rep_cls = GetMessageClass(method.input_type), GetMessageClass(method.output_type)
        call = ch.unary_unary("/taash.arena.v1.Arena/ListBots", request_serializer=req_cls.SerializeToString,
                              response_deserializer=rep_cls.FromString)
        rep = call(req_cls(), metadata=[("authorization", f"Bearer {server.admin}")], timeout=10)
        assert "r" in [b.name for b in rep.bots]


@pytest.mark.slow
def test_health_is_serving_then_not_serving_while_draining(tmp_path):
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    S = health_pb2.HealthCheckResponse
    s = Server(tmp_path / "data")
    try:
        with grpc.insecure_channel(s.addr) as ch:
            stub = health_pb2_grpc.HealthStub(ch)
            for name in ("", "taash.arena.v1.Arena"):
                assert stub.Check(health_pb2.HealthCheckRequest(service=name), timeout=10).status == S.SERVING
            with pytest.raises(grpc.RpcError) as e:
                stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=10)
            assert e.value.code() == grpc.StatusCode.NOT_FOUND
            seen = []
            watch = stub.Watch(health_pb2.HealthCheckRequest(service="taash.arena.v1.Arena"), timeout=60)
            try:
                for up in watch:
                    seen.append(up.status)
                    if len(seen) == 1:
                        s.proc.send_signal(signal.SIGTERM)     # the drain begins
            except grpc.RpcError:
                pass                                           # the server went away after
        assert seen[:2] == [S.SERVING, S.NOT_SERVING]
        assert s.proc.wait(30) == 0
    finally:
        s.stop()


def test_the_protoc_command_of_the_docs_works(tmp_path):
    """docs/protocol.md's protoc command, as a bot author runs it from the checkout."""
    import shlex
    [line] = [x.strip() for x in (ROOT / "docs" / "protocol.md").read_text().splitlines()
              if x.strip().startswith("python -m grpc_tools.protoc -I proto ")]
    argv = [sys.executable if a == "python" else a.replace("OUT", str(tmp_path)) for a in shlex.split(line)]
    out = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    check = subprocess.run([sys.executable, "-c",
                            "from taash.arena.v1 import arena_pb2_grpc, messages_pb2 as m\n"
                            "print(arena_pb2_grpc.ArenaStub.__name__, 'observation_json' in "
                            "m.DecisionRequest.DESCRIPTOR.fields_by_name)"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=60,
                           env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert check.stdout.split() == ["ArenaStub", "True"], check.stderr


def test_one_arena_per_data_directory(server):
    """A second arena on the data directory of a running one (another port) is refused in
    one line, before it could take the running games for those of a dead arena."""
    out = server.taash("arena", "serve", "--port", "0", "--data", str(server.data), timeout=60)
    assert out.returncode == 1
    assert out.stderr.strip() == (f"taash: error: another arena is serving from {server.data} (it holds "
                                  f"{server.data / 'arena.lock'}): stop it or give another --data")


def test_a_match_request_past_the_limits_is_refused_with_its_reason(server):
    # a raw client's MatchRequest: each limit of docs/protocol.md is an INVALID_ARGUMENT
    # naming the field, never a game that fails later or a data directory that cannot be
    # saved to (a seed past 64 bits used to stop the arena from starting again)
    from taash.arena.pb import arena_pb2 as apb, arena_pb2_grpc
    from taash.arena.pb import messages_pb2 as pb

    def refused(**kw):
        req = apb.MatchRequest(**{"variant": "29", "bots": ["r"] * 4, "max_deals": 1, **kw})
        with grpc.insecure_channel(server.addr) as ch:
            with pytest.raises(grpc.RpcError) as e:
                list(arena_pb2_grpc.ArenaStub(ch).RunMatches(
                    req, metadata=[("authorization", f"Bearer {server.admin}")], timeout=60))
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT, e.value
        return e.value.details()

    assert "largest seed" in refused(seed=2**63 - 1, matches=2)
    assert "at most 10000" in refused(parallel=10_001)
    assert "time_control.move_ms" in refused(time_control=pb.TimeControl(move_ms=2**32 - 1, bank_ms=2**32 - 1))
    assert "nested too deeply" in refused(options_json="[" * 100_000 + "]" * 100_000)
    # a sent variant extends shipped names only, never a file on the arena's host
    host_file = server.data.parent / "host.yaml"
    host_file.write_text('extends: "28"\nname: host-28\n')
    assert "must be a shipped name" in refused(variant_yaml=f"extends: {host_file}\nname: mine\n")
    # a sent variant that does not load: located in the caller's file name, no path of the
    # arena's host, and nothing kept of it (a fresh-eyes tester found both)
    kept = set((server.data / "variants").glob("*")) if (server.data / "variants").is_dir() else set()
    text = refused(variant="x.yaml", variant_yaml='extends: "29"\nname: x\nauction: {min_bid: foo}\n')
    assert text.splitlines()[0] == 'x.yaml:3:20: error: auction.min_bid: "foo" should be a whole number'
    assert str(server.data) not in text and "taash-sent-" not in text
    assert "{{{{" in refused(variant="y.yaml", variant_yaml="{{{{")
    kept_after = set((server.data / "variants").glob("*")) if (server.data / "variants").is_dir() else set()
    assert kept_after == kept
    # the caller's side says so first
    out = server.taash("arena", "match", "29", "--bots", "r,r,r,r", "--seed", str(2**63 - 1), "--matches", "2",
                       "--server", server.addr, "--data", str(server.data), timeout=120)
    assert out.returncode == 2 and "largest seed" in out.stderr and "Traceback" not in out.stderr
    # the last seed there is still playable
    [g] = server.run_matches("29", ["r"] * 4, seed=2**63 - 1, max_deals=1)
    assert g.error == "" and g.seed == 2**63 - 1 and Path(g.record).is_file()


def test_a_call_for_many_matches_holds_only_its_parallel_games(server):
    # a million matches, two at a time: the arena starts each game as one ends (it used to
    # make a task per match up front: gigabytes, and a SIGTERM that took minutes)
    from taash.arena.pb import arena_pb2 as apb, arena_pb2_grpc
    req = apb.MatchRequest(variant="28", bots=["r"] * 4, matches=1_000_000, parallel=2, max_deals=1, seed=7_000_000)
    got = []
    with grpc.insecure_channel(server.addr) as ch:
        call = arena_pb2_grpc.ArenaStub(ch).RunMatches(req, metadata=[("authorization", f"Bearer {server.admin}")],
                                                       timeout=120)
        for u in call:
            if u.WhichOneof("update") == "game":
                got.append(u.game)
                if len(got) == 4:
                    break
        call.cancel()
    assert [g.error for g in got] == [""] * 4 and sorted(g.seed for g in got) == [7_000_000, 7_000_001, 7_000_002, 7_000_003]
    time.sleep(1)
    out = server.taash("arena", "bots", "--server", server.addr, "--data", str(server.data), timeout=60)
    assert out.returncode == 0 and "0 seats" in out.stdout, out.stdout     # the cancelled games let go
    games = SQLiteStore(server.data).games()
    assert len([g for g in games if g["seed"] >= 7_000_000 and g["variant"] == "28"]) <= 6


def test_a_game_the_store_refuses_is_logged_and_the_arena_starts_again(tmp_path, caplog):
    # a journal whose game cannot be saved (a seed past SQLite's 64-bit integers, as a
    # client could once ask for): recovery logs it and keeps it, and the start goes on
    from taash.arena.server import persist
    store = SQLiteStore(tmp_path / "data")
    store.journal("g000001", 0, {"variant": "28", "options": {}, "seed": 2**63, "bots": ["a", "b", "a", "b"],
                                 "max_deals": 1, "time_control": {"move_ms": 2000, "bank_ms": 0, "grace_ms": 0,
                                                                  "max_strikes": 3},
                                 "started": time.time()})
    assert persist.recover(store) == []
    assert "g000001 not saved: OverflowError" in caplog.text
    assert "g000001" in store.journals()                 # kept for a later start
    s = Server(tmp_path / "data")                        # a real arena on that directory starts
    try:
        assert s.taash("arena", "bots", "--server", s.addr, "--data", str(s.data), timeout=60).returncode == 0
    finally:
        s.stop()


def test_game_ids_are_one_statement_each_and_stay_unique(tmp_path):
    # a data directory of an older arena (its games table without the trigger, a game
    # id already handed out): new ids go on from its rows; a game saved under an id the
    # store did not hand out (the ladder's) takes a row number and no id is used twice
    import sqlite3
    d = tmp_path / "data"
    (d / "records").mkdir(parents=True)
    db = sqlite3.connect(d / "arena.sqlite3")
    db.executescript("""
        CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, game_id TEXT UNIQUE, created REAL NOT NULL,
            finished REAL, variant TEXT, seed INTEGER, bots TEXT, complete INTEGER,
            score TEXT, winners TEXT, faults INTEGER, record TEXT);
        INSERT INTO games(game_id, created) VALUES('g000001', 0);""")
    db.commit()
    db.close()
    store = SQLiteStore(d)
    calls = []
    store.db.set_trace_callback(calls.append)
    assert store.new_game_id() == "g000002"
    # one statement (sqlite traces it again for its trigger), no BEGIN, UPDATE or COMMIT
    assert calls and all(c.startswith("INSERT INTO games(created) VALUES(") for c in calls)
    store.db.set_trace_callback(None)
    store.save_game("ladder-7", {"variant": "29", "bots": ["a"] * 4, "score": [0, 0], "winners": []},
                    {"variant": "29"})
    ids = [store.new_game_id() for _ in range(3)]
    assert ids == ["g000004", "g000005", "g000006"]
    rows = store.db.execute("SELECT id, game_id FROM games ORDER BY id").fetchall()
    assert rows == [(1, "g000001"), (2, "g000002"), (3, "ladder-7"), (4, "g000004"), (5, "g000005"),
                    (6, "g000006")]
    store.close()


def test_a_score_past_32_bits_ends_its_game_by_its_id_and_leaves_no_running_game(server, tmp_path):
    """From a fresh-eyes tester: a variant whose scores pass the protocol's int32 made the
    game end with no id ("ValueError: Value out of range"), and the game stayed running for
    spectators and the live pages for ever. Now the result names the game and says why,
    the record holds the true scores, and a new Watch replays no running game."""
    from taash.arena.pb import arena_pb2 as apb, arena_pb2_grpc
    var = server.data / "variants" / "huge.yaml"      # a name is a file of DATA/variants/ (or shipped)
    var.parent.mkdir(exist_ok=True)
    var.write_text('extends: "28"\nname: huge\nscoring:\n  effect: |\n'
                   '    when made: score[declarer_side] += 99999999999 * 99999999999\n'
                   '    else: score[declarer_side] -= 99999999999 * 99999999999\n')
    [g] = server.run_matches("huge", ["r"] * 4, seed=3, max_deals=2)
    assert g.game_id and g.deals >= 1 and list(g.score) == []     # (such a score may end the match)
    assert "a score passes the protocol's 32-bit integers" in g.error
    from taash.interpreter import replay
    rec = record(g.record)
    assert rec["variant"] == "../variants/huge.yaml"    # named relative to the record (docs/records.md)
    rec["variant"] = str(var)
    assert {abs(x) for x in replay(rec).seat_scores()} == {0, 99999999999 * 99999999999}
    seen = []
    with grpc.insecure_channel(server.addr) as ch:
        call = arena_pb2_grpc.ArenaStub(ch).Watch(apb.WatchRequest(), timeout=3)
        try:
            for ev in call:
                seen.append(ev.game_id)
        except grpc.RpcError as e:
            assert e.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert g.game_id not in seen
