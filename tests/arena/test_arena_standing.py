"""A bot sees its own standing with its own token (MyStanding, `taash arena standing`):
its ratings in the ladder of the arena's data directory, its latest games and the faults
of its seats, and nothing of another bot's; the admin token is no bot's. A real arena,
a misbehaving bot and a random one, each a process of its own."""

from __future__ import annotations

import json

import grpc
import pytest

from taash.arena.ladder.ratings import BotStanding
from taash.arena.pb import arena_pb2 as apb, arena_pb2_grpc
from taash.arena.pb import messages_pb2 as pb
from taash.arena.sdk import AuthError, standing
from taash.arena.store import SQLiteLadderStore
from tests.helpers.arena_util import faulty_game


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    data = tmp_path_factory.mktemp("standing") / "data"
    data.mkdir()
    ladder = SQLiteLadderStore(data / "ladder.sqlite3")       # where `taash ladder run` keeps it by default
    for v in ("28", "29"):
        ladder.save_settings(v, {"seed": 0})
    ladder.apply_event("28", "e0", ["k0"], 8, [BotStanding("f", 27.5, 7.0, 2, 4, 1, 0, 1),
                                               BotStanding("r", 22.5, 7.0, 2, 4, 1, 0, 1),
                                               BotStanding("z", 30.0, 6.0, 2, 4, 2, 0, 0)])
    ladder.apply_event("29", "e0", ["k0"], 4, [BotStanding("r", 25.0, 8.0, 1, 4, 1, 0, 0)])
    ladder.close()
    # seat 0: at its 2nd request an illegal action then a legal one, at its 4th three
    # illegal ones: ILLEGAL_ACTION, ILLEGAL_ACTION, ILLEGAL_ACTION, STRIKE_OUT
    s = faulty_game(data, "illegal")
    yield s
    s.stop()


def ask(server, token: str | None, recent: int = 0):
    md = [("authorization", f"Bearer {token}")] if token else None
    with grpc.insecure_channel(server.addr) as ch:
        return arena_pb2_grpc.ArenaStub(ch).MyStanding(apb.StandingRequest(recent=recent), metadata=md, timeout=60)


def test_a_bot_sees_its_ratings_games_and_faults(arena):
    rep = ask(arena, arena.tokens["f"])
    assert rep.bot == "f" and rep.games_total == 1
    [r] = rep.ratings
    assert (r.variant, r.mu, r.sigma, r.rank, r.ranked) == ("28", 27.5, 7.0, 2, 3)   # z 30.0 > f 27.5 > r 22.5
    assert (r.games, r.deals, r.wins, r.draws, r.losses) == (2, 4, 1, 0, 1)
    [g] = rep.games
    assert g.game_id == arena.game.game_id and list(g.seats) == [0] and list(g.bots) == ["f", "r", "r", "r"]
    assert g.faults == 4 and g.variant == "28" and g.record == arena.game.record
    assert {pb.Verdict.Kind.Name(f.kind): f.count for f in rep.faults} == {"ILLEGAL_ACTION": 3, "STRIKE_OUT": 1}
    assert rep.resumed == 0


def test_another_bot_sees_only_its_own(arena):
    rep = ask(arena, arena.tokens["r"])
    assert rep.bot == "r" and rep.games_total == 1
    assert [(r.variant, r.rank, r.ranked) for r in rep.ratings] == [("28", 3, 3), ("29", 1, 1)]
    [g] = rep.games
    assert list(g.seats) == [1, 2, 3] and g.faults == 0 and not rep.faults     # f's faults are not r's


def test_the_admin_token_and_strangers_are_refused(arena):
    for token, code, words in [(arena.admin, grpc.StatusCode.PERMISSION_DENIED, "the admin token is no bot's"),
                               ("taash_nobody", grpc.StatusCode.UNAUTHENTICATED, "unknown token"),
                               (None, grpc.StatusCode.UNAUTHENTICATED, "missing token")]:
        with pytest.raises(grpc.RpcError) as e:
            ask(arena, token)
        assert e.value.code() == code and words in e.value.details()


def test_the_command_line_prints_the_standing(arena):
    out = arena.taash("arena", "standing", "--token", arena.tokens["f"], "--server", arena.addr, "--json")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["bot"] == "f" and d["ratings"][0]["rank"] == 2 and d["games"][0]["seats"] == [0]
    assert sorted((f["kind"], f["count"]) for f in d["faults"]) == [("ILLEGAL_ACTION", 3), ("STRIKE_OUT", 1)]
    out = arena.taash("arena", "standing", "--token", arena.tokens["f"], "--server", arena.addr)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "bot f: 1 finished game in this arena"
    assert lines[1].startswith("28\trating 27.50 +- 13.72\trank 2 of 3")      # 1.96 * 7.0 = 13.72
    assert lines[-1] == "faults in these games: ILLEGAL_ACTION 3, STRIKE_OUT 1; seats taken back (RESUMED, no fault): 0"
    out = arena.taash("arena", "standing", "--server", arena.addr)
    assert out.returncode == 2 and "no token" in out.stderr


def test_the_sdk_reads_the_standing(arena, monkeypatch):
    rep = standing(token=arena.tokens["r"], server=arena.addr, recent=1)
    assert rep.bot == "r" and rep.games_total == 1 and len(rep.games) == 1
    assert [(r.variant, r.rank, r.ranked) for r in rep.ratings] == [("28", 3, 3), ("29", 1, 1)]
    for token in (arena.admin, "taash_nobody"):
        with pytest.raises(AuthError):
            standing(token=token, server=arena.addr)
    monkeypatch.delenv("TAASH_TOKEN", raising=False)
    with pytest.raises(ValueError):
        standing(token="", server=arena.addr)
