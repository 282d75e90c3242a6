"""Reads never stall a game's journal (docs/protocol.md, "Limits"): MyStanding reads on
the store's reading connection and thread, from the bot_games key (no scan of every
game), counts the faults of the records' ``fault_counts`` (the repeated faults only
counted included), and is refused past its per-token budget. A real arena process,
real SQLite."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import threading
import time

import grpc
import pytest

from taash.arena.pb import arena_pb2 as apb, arena_pb2_grpc
from taash.arena.pb import messages_pb2 as pb
from taash.arena.server.hosting import Arena
from taash.arena.store import SQLiteStore
from tests.helpers.arena_util import faulty_game, record

def ask(addr, token, recent=0):
    with grpc.insecure_channel(addr) as ch:
        return arena_pb2_grpc.ArenaStub(ch).MyStanding(apb.StandingRequest(recent=recent),
                                                       metadata=[("authorization", f"Bearer {token}")], timeout=60)


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    data = tmp_path_factory.mktemp("reads") / "data"
    data.mkdir()
    # seat 0 answers its 2nd request 8 times: 7 STALE_REQUEST, the first 5 kept in full
    s = faulty_game(data, "stale8", "--query-burst", "3", "--query-rate", "1")
    yield s
    s.stop()


def test_the_standing_counts_the_faults_the_record_only_counted(arena):
    rec = record(arena.game.record)
    kept = [v["kind"] for v in rec["arena"]["verdicts"] if v["seat"] == 0]
    assert kept == ["STALE_REQUEST"] * 5                       # DETAIL_LIMIT of them in full
    assert rec["arena"]["fault_counts"][0] == {"STALE_REQUEST": 7}
    rep = ask(arena.addr, arena.tokens["f"])
    assert {pb.Verdict.Kind.Name(f.kind): f.count for f in rep.faults} == {"STALE_REQUEST": 7}
    [g] = rep.games
    assert g.faults == 7 and list(g.seats) == [0] and rep.games_total == 1


def test_a_token_past_its_query_budget_is_refused_alone(arena):
    # --query-burst 3: the fixture's module asked once with f's token; the calls here
    # come well within a second, so at most 3 in all pass
    served, refused = 0, []
    for _ in range(4):
        try:
            ask(arena.addr, arena.tokens["f"])
            served += 1
        except grpc.RpcError as e:
            refused.append(e)
    assert served <= 3 and refused
    e = refused[0]
    assert e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "too many MyStanding calls with this token" in e.details() and "--query-burst" in e.details()
    assert re.search(r"ask again in (0\.\d|1\.0) s$", e.details()), e.details()   # at 1 a second: within 1 s
    rep = ask(arena.addr, arena.tokens["r"])       # another token's budget is its own
    assert rep.bot == "r" and list(rep.games[0].seats) == [1, 2, 3]
    # fifty more refusals cost f's token nothing: after the wait the last one named, its
    # next call is answered (charged, the refusals would have left 50 s of debt)
    with grpc.insecure_channel(arena.addr) as ch:   # one connection: the front door's bound is on new ones
        stub = arena_pb2_grpc.ArenaStub(ch)
        for _ in range(50):
            with pytest.raises(grpc.RpcError) as more:
                stub.MyStanding(apb.StandingRequest(), metadata=[("authorization", f"Bearer {arena.tokens['f']}")],
                                timeout=60)
    assert more.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, more.value.details()
    wait = float(re.search(r"ask again in ([\d.]+) s$", more.value.details()).group(1))
    time.sleep(wait + 0.2)
    assert ask(arena.addr, arena.tokens["f"]).bot == "f"


def test_a_refusal_takes_nothing_from_the_bucket():
    # burst 3, 1 a second (refill is slow against these few calls): three taken, the next
    # ones refused with the time to one more (about 1 s), the level left where it was
    from taash.arena.server.faults import Bucket
    b = Bucket(3, 1.0)
    assert [b.take() for _ in range(3)] == [0.0, 0.0, 0.0]
    level = b.level()
    waits = [b.take() for _ in range(100)]
    assert all(0.0 < w <= 1.0 for w in waits)
    assert level <= b.level() < level + 0.5        # only the refill moved it, no debt
    assert Bucket(1, 0.0).take(2) == float("inf")


def _game(store: SQLiteStore, bots: list[str], counts: list[dict]) -> str:
    gid = store.new_game_id()
    store.save_game(gid, {"variant": "28", "seed": 1, "bots": bots, "complete": True, "score": [0, 0],
                          "winners": [], "faults": 0},
                    {"variant": "28", "arena": {"game_id": gid, "bots": bots, "verdicts": [],
                                                "fault_counts": counts}})
    return gid


def test_a_bots_games_come_from_its_key_and_an_old_directory_is_indexed(tmp_path):
    store = SQLiteStore(tmp_path / "d")
    a = _game(store, ["x", "y", "x", "y"], [{"TIMEOUT": 2}, {}, {"RESUMED": 1, "TIMEOUT": 1}, {}])
    b = _game(store, ["y", "z", "y", "z"], [{}, {"CRASHED": 1}, {}, {}])
    c = _game(store, ["x_", "x", "x_", "x"], [{}, {"ILLEGAL_ACTION": 9}, {}, {}])
    games, total = store.games_of("x", 10)
    # newest first; x's seats and their faults summed (TIMEOUT 2 + 1)
    assert total == 2 and [(g["game_id"], g["seats"], g["fault_counts"]) for g in games] == [
        (c, [1, 3], {"ILLEGAL_ACTION": 9}), (a, [0, 2], {"RESUMED": 1, "TIMEOUT": 3})]
    assert [g["game_id"] for g in store.games_of("x", 1)[0]] == [c] and store.games_of("y", 10)[1] == 2
    plan = " ".join(r[-1] for r in store.reader.execute(
        "EXPLAIN QUERY PLAN SELECT count(*) FROM bot_games WHERE bot=?", ("x",)).fetchall())
    assert "USING PRIMARY KEY (bot=?)" in plan or "USING COVERING INDEX" in plan, plan
    store.close()
    # a directory made before the table: indexed from the records at its next open
    db = sqlite3.connect(tmp_path / "d" / "arena.sqlite3")
    db.execute("DROP TABLE bot_games")
    db.commit()
    db.close()
    store = SQLiteStore(tmp_path / "d")
    assert store.games_of("x", 10) == (games, 2)
    assert [g["game_id"] for g in store.games_of("z", 10)[0]] == [b]
    store.close()


def test_a_read_does_not_wait_for_the_store_thread(tmp_path):
    """With the store's writing thread busy (a journal entry that does not end), the
    standing's read still runs, on the reader's thread and connection."""
    store = SQLiteStore(tmp_path / "d")
    gid = _game(store, ["x", "y", "x", "y"], [{}, {}, {}, {}])
    release = threading.Event()

    async def main():
        arena = Arena(store)
        stuck = arena.store_submit(release.wait)          # the writer's thread is busy
        games, total = await asyncio.wait_for(arena.store_read(store.games_of, "x", 5), 30)
        assert not stuck.done()
        release.set()
        await asyncio.wrap_future(stuck)
        arena.writer.shutdown(wait=True)
        arena.reader.shutdown(wait=True)
        return games, total

    games, total = asyncio.run(main())
    assert total == 1 and games[0]["game_id"] == gid
    store.close()


def test_the_sdk_raises_a_limit_error_past_the_budget(arena):
    # r's token: burst 3 at 1 a second; four quick SDK calls past what is left end in a
    # LimitError naming the budget and the wait, never a raw gRPC error
    from taash.arena.sdk import LimitError, standing
    with pytest.raises(LimitError) as e:
        for _ in range(5):
            standing(token=arena.tokens["r"], server=arena.addr)
    assert "too many MyStanding calls with this token" in str(e.value)
    assert 0.0 < e.value.retry_s <= 1.0
