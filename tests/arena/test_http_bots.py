"""HTTP bots of the SmartBots 29 protocol in the arena (docs/http-bots.md): each test bot
of tests/helpers/http_bot.py (written from docs/http-bots.md) is a process of its own,
seated by `taash bot http URL` (a process too) against `taash arena serve`, on
house/29-bhoos (docs/rules.md §29b). Each misbehaviour ends in its documented verdict, the
match completes, and its record replays."""

from __future__ import annotations

import subprocess
import sys

import pytest

from taash.interpreter import replay
from tests.helpers import ROOT, readline
from tests.helpers.arena_util import TAASH, Server, env, record, verdict_kinds

pytestmark = pytest.mark.slow
VARIANT = "house/29-bhoos"
TC = dict(move_ms=600, bank_ms=1, grace_ms=2000, max_strikes=3)   # 0 would be the default bank


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("http") / "data")
    yield s
    s.stop()


def start(server, argv) -> str:
    """Start a process that prints ``listening on URL``; its URL."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env(), cwd=ROOT)
    server.procs.append(p)
    line = readline(p.stdout)
    assert "listening on " in line, line
    return line.split("listening on ")[1].split()[0]


def http_bot(server, mode, every=3) -> str:
    return start(server, [sys.executable, "-m", "tests.helpers.http_bot", mode, "--every", str(every)])


def bridge(server, url, name):
    """`taash bot http URL --name NAME --token T --server ADDR` in a process of its own."""
    p = subprocess.Popen([*TAASH, "bot", "http", url, "--name", name, "--token", server.token(name),
                          "--server", server.addr], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, env=env(), cwd=ROOT)
    server.procs.append(p)
    return p


def play(server, mode, every=3, max_deals=1, seed=3, http_seats=(0, 2)):
    """Seats ``http_seats``: the HTTP bot of ``mode`` through one bridge; the others a
    random bot. Returns (GameResult, record). The bots' names are new for each mode, every
    and seed: issuing a token again cuts the stream of an earlier bridge of that name."""
    name, rname = f"h-{mode}-{every}-{seed}", f"r-{mode}-{every}-{seed}"
    server.bot("random", rname, server.token(rname))
    bridge(server, http_bot(server, mode, every), name)
    server.wait_connected([name, rname])
    bots = [name if s in http_seats else rname for s in range(4)]
    [res] = server.run_matches(VARIANT, bots, seed=seed, max_deals=max_deals, **TC)
    assert res.error == "", res.error
    rec = record(res.record)
    assert rec["arena"]["complete"] is (max_deals == 0)
    m = replay(rec)                                   # the record replays
    assert len(m.deals) == len(rec["deals"]) == (max_deals or len(m.deals))
    return res, rec


def http_verdicts(rec, seats=(0, 2)):
    return [v["kind"] for v in rec["arena"]["verdicts"] if v["seat"] in seats]


@pytest.mark.parametrize("mode", ["legal", "forms", "strict-ct", "reveal", "reveal-card"])
def test_well_behaved_bots_play_without_a_fault(server, mode):
    res, rec = play(server, mode, max_deals=3, seed=11)
    assert verdict_kinds(rec) == []
    assert all(not d["by_default"] for d in rec["arena"]["deals"])


def test_reveals_reach_the_arena_as_expose(server):
    # a seat that always reveals when void: some deal must show an expose by seat 0 or 2
    res, rec = play(server, "reveal", max_deals=4, seed=2)
    m = replay(rec)
    exposes = [(s, i) for st in m.deals for i, (s, a) in enumerate(st.history) if a == "expose"]
    assert any(s in (0, 2) for s, _ in exposes)
    for st in m.deals:       # each expose of seat 0 or 2 is followed by that seat's card
        for i, (s, a) in enumerate(st.history):
            if a == "expose" and s in (0, 2):
                assert st.history[i + 1][0] == s and st.history[i + 1][1].kind == "play"
    assert verdict_kinds(rec) == []


@pytest.mark.parametrize("mode,kind", [("500", "BOT_ERROR"), ("nonjson", "BOT_ERROR"), ("nofield", "BOT_ERROR"),
                                       ("slow", "TIMEOUT"), ("huge", "BOT_ERROR"), ("redirect", "BOT_ERROR")])
def test_failures_become_their_verdict(server, mode, kind):
    res, rec = play(server, mode, every=4)
    kinds = http_verdicts(rec)
    assert kinds and set(kinds) == {kind}
    assert verdict_kinds(rec) == kinds                # the random seats made no fault
    for v in rec["arena"]["verdicts"]:
        assert v["applied"]                           # the default action was applied
    # from a fresh-eyes tester: a 200 MB answer was read whole (2 GB of memory, answers
    # 20 s late) and a redirect was followed with a GET
    said = {"huge": "an answer of 8388", "redirect": "answered HTTP 302"}.get(mode)
    if said:
        assert all(said in v["message"] for v in rec["arena"]["verdicts"]), rec["arena"]["verdicts"][0]


def test_an_illegal_card_is_asked_again(server):
    res, rec = play(server, "illegal", every=3)
    kinds = http_verdicts(rec)
    assert "ILLEGAL_ACTION" in kinds and "STRIKE_OUT" not in kinds   # the next answer is legal


def test_an_unknown_card_every_time_strikes_out(server):
    res, rec = play(server, "unknown", every=1)
    kinds = http_verdicts(rec)
    assert kinds[:3] == ["ILLEGAL_ACTION"] * 2 + ["STRIKE_OUT"]     # the 3rd illegal answer strikes out
    v = rec["arena"]["verdicts"][0]
    assert v["action"] == "play ZZ"


def test_a_reveal_that_is_not_allowed_is_illegal(server):
    res, rec = play(server, "badreveal", every=2)
    assert any(v["kind"] == "ILLEGAL_ACTION" and v["action"] == "expose" for v in rec["arena"]["verdicts"])


def test_a_crash_mid_game_is_bot_error_and_the_match_ends(server):
    res, rec = play(server, "crash", every=6, max_deals=2)
    kinds = http_verdicts(rec)
    assert kinds and set(kinds) == {"BOT_ERROR"}
    assert any("connect" in v["message"] for v in rec["arena"]["verdicts"])


def test_no_bot_there_is_said_clearly(server, tmp_path):
    out = subprocess.run([*TAASH, "bot", "http", "http://127.0.0.1:9", "--token", "x", "--server", server.addr,
                          "--wait-http", "0.5"], capture_output=True, text=True, env=env(), cwd=ROOT, timeout=60)
    assert out.returncode == 1
    assert "the HTTP bot is not there" in out.stderr and "127.0.0.1:9" in out.stderr
    out = subprocess.run([*TAASH, "bot", "http", "--token", "x"], capture_output=True, text=True, env=env(),
                         cwd=ROOT, timeout=60)
    assert out.returncode == 2 and "needs the bot's URL" in out.stderr
    out = subprocess.run([*TAASH, "serve", "http", "--bot", "nosuch"], capture_output=True, text=True, env=env(),
                         cwd=ROOT, timeout=60)
    assert out.returncode == 2 and "unknown bot 'nosuch'" in out.stderr and "heuristic" in out.stderr


def test_round_trip_through_serve_http_heuristic(server):
    """arena <-> taash bot http <-> taash serve http --bot heuristic: a whole match of
    house/29-bhoos with no fault verdict, that replays."""
    url = start(server, [*TAASH, "serve", "http", "--bot", "heuristic", "--port", "0"])
    bridge(server, url, "heur-http")
    server.bot("random", "r-rt", server.token("r-rt"))
    server.wait_connected(["heur-http", "r-rt"])
    [res] = server.run_matches(VARIANT, ["heur-http", "r-rt", "heur-http", "r-rt"], seed=5,
                               move_ms=2000, bank_ms=20000, grace_ms=5000, max_strikes=3)
    assert res.error == ""
    rec = record(res.record)
    assert rec["arena"]["complete"] and rec["arena"]["verdicts"] == []
    m = replay(rec)
    assert m.over and (max(m.seat_scores()) >= 6 or min(m.seat_scores()) <= -6)   # §29b.9
    assert list(res.score) == m.seat_scores()


def test_a_variant_the_protocol_cannot_play_is_refused_at_its_start(server):
    """The bridge seated in a game of 29 (not §29b): it says why in one sentence and
    leaves at the game's start, exit 1; it sends no answer, so no BOT_ERROR is recorded."""
    url = start(server, [*TAASH, "serve", "http", "--bot", "random", "--port", "0"])
    p = bridge(server, url, "h-not29b")
    server.bot("random", "r-not29b", server.token("r-not29b"))
    server.wait_connected(["h-not29b", "r-not29b"])
    [res] = server.run_matches("29", ["h-not29b", "r-not29b", "h-not29b", "r-not29b"], seed=2, max_deals=1,
                               **TC)
    assert p.wait(60) == 1
    err = p.stderr.read()
    assert ("taash: error: the SmartBots 29 protocol plays only house/29-bhoos (docs/rules.md §29b: its auction, "
            "trump choice and reveal are the requests the protocol has), not 29 (29, 4 players)") in err
    assert "BOT_ERROR" not in err
    rec = record(res.record)
    assert "BOT_ERROR" not in http_verdicts(rec)
