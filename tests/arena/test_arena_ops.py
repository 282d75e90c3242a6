"""Running an arena, as its operator and a bot author do (issue 12): the main job's
children die with it, `arena match` after losing the server, `watch --json`, a failed
bind, a bot at a wrong address, a variant file of the caller's. Real processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

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
def test_sigkill_of_the_main_job_ends_the_arena_and_the_bots(tmp_path):
    job = subprocess.Popen([sys.executable, "-m", "arena.mainjob", "--data", str(tmp_path / "run"),
                            "--variants", "29", "--deals", "4000", "--no-node", "--bhoos-deals", "0"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
    try:
        lines = read_until(job, "bots connected", 240)
        assert any("bots connected" in x for x in lines), "".join(lines)
        kids = _children(job.pid)
        cmds = [Path(f"/proc/{k}/cmdline").read_bytes().replace(b"\0", b" ").decode() for k in kids]
        assert sum("arena serve" in c for c in cmds) == 1
        assert sum(" bot " in c for c in cmds) == 3          # random, heuristic, search
        os.kill(job.pid, signal.SIGKILL)
        job.wait(30)
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
    assert all(set(a) == {"deal", "seat", "action", "by_default"} for a in actions)
    assert all(a["by_default"] is False for a in actions)
    ended = mine[-1]["game_ended"]
    assert ended["record"] == g.record and ended["deals"] == 1 and len(ended["score"]) == 4


def test_a_failed_bind_is_one_line(server, tmp_path):
    port = server.addr.rsplit(":", 1)[1]
    out = server.taash("arena", "serve", "--port", port, "--data", str(tmp_path / "d2"), timeout=60)
    assert out.returncode == 1
    assert out.stderr.splitlines() == [out.stderr.strip()]
    assert out.stderr.startswith(f"taash: error: cannot listen on 127.0.0.1:{port}")


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
    came, and the end says how many came, not "cannot reach the arena"."""
    s = Server(tmp_path / "data")
    try:
        s.bot("random", "r", s.token("r"))
        s.wait_connected(["r"])
        client = subprocess.Popen([*TAASH, "arena", "match", "28", "--bots", "r,r,r,r", "--matches", "500",
                                   "--max-deals", "1", "--server", s.addr, "--data", str(s.data)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
        lines = read_until(client, "1 deals", 120)
        assert lines and lines[-1].startswith("g")
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
    [lost] = [x for x in err.splitlines() if "lost the arena" in x]
    assert lost.startswith(f"taash: error: lost the arena at {s.addr} after {len(got)} of 500 results")
    assert 1 <= len(got) < 500
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
        "from arena.sdk import run\n\n"
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
