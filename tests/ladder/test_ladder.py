"""The ladder in-process: seatings and duplicate deals, ratings, the store, resume after
a kill, the standings from the records, and the command line's errors."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from taash.arena.ladder import (GameResult, InProcessRunner, LadderError, LadderSettings, Ratings, recompute,
                                run_ladder, seatings)
from taash.arena.store import open_ladder_store
from taash.arena.ladder.ratings import event_outcomes, game_teams, ranks_of
from taash.arena.ladder.schedule import GameSpec, pairs_by_rating, plan_round, round_seed
from taash.interpreter import load_variant, replay

from tests.helpers import ROOT, sigint_default

BASE = ("56", "28", "29", "304", "304-solo")
BOTS = {"heuristic": "heuristic", "random": "random"}


def first_legal(variant):
    """A third in-process bot for the tests: always the first legal action."""
    class First:
        def decide(self, obs, legal):
            return legal[0]
    return First()


def ladder(tmp_path, variant, deals, bots=BOTS, **kw):
    store = open_ladder_store(None, tmp_path)
    settings = LadderSettings(**kw)
    summary = run_ladder(store, InProcessRunner(variant, bots), list(bots), deals, settings)
    return store, summary


def run_cli(*args, timeout=120):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "taash.arena.cli", "ladder", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=timeout)


def test_ladder_run_arena_address_is_checked_like_server():
    """`--arena bad` tried to connect and said `cannot reach the arena at bad: is taash arena
    serve running?`; the address is refused at once as `taash bot --server bad` is."""
    r = run_cli("run", "--variant", "29", "--arena", "nonsense", "--deals", "4")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.splitlines()[-1] == ("taash ladder run: error: argument --arena: 'nonsense': the arena's "
                                         "address is HOST:PORT (default 127.0.0.1:50051)")


# -- seatings and duplicate deals -----------------------------------------------------------
@pytest.mark.parametrize("name", BASE)
def test_each_seat_is_held_by_each_bot_equally_often(name):
    v = load_variant(name)
    seats = seatings(v.players, v.partnership, v.side_of, "h", "r")
    assert len(seats) == {4: 2, 6: 2, 3: 6}[v.players]
    assert len(set(seats)) == len(seats)
    for s in range(v.players):
        held = Counter(t[s] for t in seats)
        assert held["h"] == held["r"] == len(seats) // 2
    if v.partnership == "fixed":
        # one bot per side, then the sides swapped
        assert seats[0] == tuple("h" if v.side_of[s] == 0 else "r" for s in range(v.players))
        assert seats[1] == tuple("r" if x == "h" else "h" for x in seats[0])


def test_a_round_shares_one_seed_across_its_pairings():
    v = load_variant("29")
    games = plan_round(3, [("a", "b"), ("a", "c"), ("b", "c")], ladder_seed=7, duplicate=True, game_deals=2,
                       players=4, partnership="fixed", side_of=v.side_of)
    assert len(games) == 6
    assert {g.seed for g in games} == {round_seed(7, 3)}
    assert round_seed(7, 3) != round_seed(7, 4) and round_seed(7, 3) != round_seed(8, 3)
    assert [g.event for g in games[:2]] == ["r00003/a/b"] * 2
    assert [g.bots for g in games[:2]] == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    solo = plan_round(0, [("a", "b")], ladder_seed=7, duplicate=False, game_deals=2, players=3,
                      partnership="solo", side_of=[0, 1, 0])
    assert len(solo) == 1 and solo[0].event == solo[0].key


@pytest.mark.parametrize("name", ["29", "56", "304", "304-solo"])
def test_duplicate_replays_the_same_cards_with_sides_swapped(tmp_path, name):
    v = load_variant(name)
    store, summary = ladder(tmp_path, name, 1, duplicate=True, game_deals=2, seed=5)
    games = store.games(summary.variant, records=True)
    events = store.events(summary.variant)
    k = len(seatings(v.players, v.partnership, v.side_of, "heuristic", "random"))
    assert len(events) == 1 and len(events[0]["games"]) == k
    recs = [games[key].record for key in events[0]["games"]]
    bots = [games[key].bots for key in events[0]["games"]]
    assert len({r["seed"] for r in recs}) == 1
    n = min(len(r["deals"]) for r in recs)
    assert n >= 1
    for d in range(n):
        # the same hands, widow and dealer in every seating of the set
        assert len({json.dumps([r["deals"][d]["hands"], r["deals"][d]["widow"], r["deals"][d]["dealer"]])
                    for r in recs}) == 1
    # every seat's cards were played by each bot equally often, and the bots did play differently
    for s in range(v.players):
        assert Counter(b[s] for b in bots) == Counter({"heuristic": k // 2, "random": k // 2})
    assert len({json.dumps(r["deals"][0]["actions"]) for r in recs}) > 1
    if v.partnership == "fixed":
        assert bots[1] == tuple("random" if b == "heuristic" else "heuristic" for b in bots[0])


def test_without_duplicate_rounds_deal_new_cards_and_alternate_sides(tmp_path):
    store, summary = ladder(tmp_path, "29", 8, game_deals=2, seed=5)
    games = store.games("29", records=True)
    assert len(games) == 4
    hands = {json.dumps(g.record["deals"][0]["hands"]) for g in games.values()}
    assert len(hands) == 4
    firsts = [g.bots[0] for g in games.values()]
    assert Counter(firsts) == Counter({"heuristic": 2, "random": 2})


# -- ratings ----------------------------------------------------------------------------------
def test_fixed_sides_rate_a_bot_alone_and_mixed_sides_as_teams():
    side_of = [0, 1, 0, 1]
    assert game_teams("fixed", side_of, ("a", "b", "a", "b"), [3, -1, 3, -1]) == ([("a",), ("b",)], [3.0, -1.0])
    assert game_teams("fixed", side_of, ("a", "c", "b", "d"), [1, 0, 1, 0]) == ([("a", "b"), ("c", "d")], [1.0, 0.0])
    # a bot on both sides is left out; alone it leaves nothing to rate
    assert game_teams("fixed", side_of, ("a", "a", "b", "c"), [1, 0, 1, 0]) == ([("b",), ("c",)], [1.0, 0.0])
    assert game_teams("fixed", side_of, ("a", "a", "a", "a"), [1, 0, 1, 0]) == ([], [])


def test_solo_and_called_partner_games_are_free_for_alls_of_bots():
    # 304-solo: declarer seat 1 (bot h) made it: +1, the two defenders 0
    assert game_teams("solo", [0, 1, 0], ("r", "h", "r"), [0, 1, 0]) == ([("h",), ("r",)], [1.0, 0.0])
    # 304, four bots: the declarer and his called partner +1, defenders 0: four players, no teams
    teams, scores = game_teams("called", [0, 1, 0, 1], ("a", "b", "c", "d"), [1, 0, 0, 1])
    assert teams == [("a",), ("b",), ("c",), ("d",)] and scores == [1.0, 0.0, 0.0, 1.0]
    assert ranks_of(scores) == [1, 3, 3, 1]
    # a lone declarer that wins gains as much as in a one-against-one, not what a team of
    # one against three would (openskill gives such a team 0.2% before the game)
    r = Ratings()
    r.apply("solo", [0, 1, 0], [GameResult("g", ("r", "h", "r"), [0, 1, 0], 1)])
    one = Ratings()
    one.apply("fixed", [0, 1], [GameResult("g", ("h", "r"), [1, 0], 1)])
    assert r.get("h").mu == pytest.approx(one.get("h").mu)
    assert r.get("h").mu > 25 > r.get("r").mu


def test_a_duplicate_set_is_compared_on_its_summed_scores():
    side_of = [0, 1, 0, 1]
    g1 = GameResult("s0", ("a", "b", "a", "b"), [2, 0, 2, 0], 4)     # a's cards were good
    g2 = GameResult("s1", ("b", "a", "b", "a"), [1, 0, 1, 0], 4)     # b did less with them
    assert event_outcomes("fixed", side_of, [g1, g2]) == [([("a",), ("b",)], [2.0, 1.0], 2)]
    tie = GameResult("s1", ("b", "a", "b", "a"), [2, 0, 2, 0], 4)    # b did as well: a draw
    r = Ratings()
    r.apply("fixed", side_of, [g1, tie])
    assert r.get("a").mu == pytest.approx(25.0) and r.get("b").mu == pytest.approx(25.0)
    assert r.get("a").sigma < 25 / 3
    assert (r.get("a").wins, r.get("a").losses, r.get("b").wins, r.get("b").losses) == (1, 1, 1, 1)


def test_pairs_by_rating_pairs_neighbours():
    mu = {"a": 30.0, "b": 20.0, "c": 25.0, "d": 10.0}
    assert pairs_by_rating(mu, mu.get) == [("a", "c"), ("b", "c"), ("b", "d")]


# -- the ladder ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", BASE)
def test_heuristic_ranks_above_random_on_every_variant(tmp_path, name):
    store, summary = ladder(tmp_path, name, 48, duplicate=True, game_deals=4, seed=2)
    table = store.standings(summary.variant)
    assert [s.bot for s in table] == ["heuristic", "random"]
    h, r = table
    assert h.mu > r.mu and h.win_rate > 0.5 > r.win_rate
    assert h.games == r.games == summary.games_total
    assert summary.deals_total == sum(g.deals for g in store.games(summary.variant).values())


def test_same_seed_same_ladder_whatever_the_workers(tmp_path):
    bots = {**BOTS, "first": "tests.ladder.test_ladder:first_legal"}
    a = open_ladder_store(None, tmp_path / "a")
    b = open_ladder_store(None, tmp_path / "b")
    s = LadderSettings(seed=4, duplicate=True, game_deals=2)
    run_ladder(a, InProcessRunner("28", bots), list(bots), 24, s, workers=1)
    run_ladder(b, InProcessRunner("28", {**bots, "first": "tests.ladder.test_ladder:first_legal"}), list(bots), 24, s, workers=2)
    assert [x.to_json() for x in a.standings("28")] == [x.to_json() for x in b.standings("28")]
    assert [e["event"] for e in a.events("28")] == [e["event"] for e in b.events("28")]
    assert len(a.standings("28")) == 3


def test_rating_schedule_plans_each_round_from_the_standings(tmp_path):
    bots = {**BOTS, "first": "tests.ladder.test_ladder:first_legal"}
    store, summary = ladder(tmp_path, "29", 24, bots=bots, schedule="rating", game_deals=2, seed=1)
    rounds = store.rounds("29")
    assert len(rounds) == 6 and all(len(r) == 2 for r in rounds)    # 3 bots: 2 pairings a round
    assert summary.events_total == 12


def test_the_standings_from_the_records_equal_the_stored_ones(tmp_path):
    for name in ("56", "304-solo"):
        store, summary = ladder(tmp_path, name, 30, duplicate=name == "56", game_deals=3, seed=9)
        again = recompute(store, load_variant(name))
        assert [s.to_json() for s in again.table()] == [s.to_json() for s in store.standings(summary.variant)]
        # every record replays to the stored scores
        for g in store.games(summary.variant, records=True).values():
            assert replay(g.record).seat_scores() == g.scores


def test_a_rerun_plays_nothing_twice_and_a_longer_one_extends(tmp_path):
    store, first = ladder(tmp_path, "29", 16, game_deals=4, seed=3)
    assert (first.games_played, first.games_total) == (4, 4)
    again = run_ladder(store, InProcessRunner("29", BOTS), list(BOTS), 16, LadderSettings(seed=3, game_deals=4))
    assert (again.games_played, again.games_total, again.events_total) == (0, 4, 4)
    more = run_ladder(store, InProcessRunner("29", BOTS), list(BOTS), 24, LadderSettings(seed=3, game_deals=4))
    assert (more.games_played, more.games_total, more.events_total) == (2, 6, 6)
    fresh = open_ladder_store(None, tmp_path / "fresh")
    run_ladder(fresh, InProcessRunner("29", BOTS), list(BOTS), 24, LadderSettings(seed=3, game_deals=4))
    assert [s.to_json() for s in fresh.standings("29")] == [s.to_json() for s in store.standings("29")]


def test_a_different_setting_is_refused_and_nothing_is_lost(tmp_path):
    store, _ = ladder(tmp_path, "28", 8, game_deals=4, seed=3)
    before = [s.to_json() for s in store.standings("28")]
    with pytest.raises(LadderError, match="--seed 3 --game-deals 4"):
        run_ladder(store, InProcessRunner("28", BOTS), list(BOTS), 8, LadderSettings(seed=4, game_deals=4))
    assert [s.to_json() for s in store.standings("28")] == before


def test_new_bots_on_a_finished_ladder_are_told_to_extend_it(tmp_path):
    # it used to play nothing and print the old standings, as if the new bot had been rated
    store, _ = ladder(tmp_path, "28", 8, game_deals=4)
    before = [s.to_json() for s in store.standings("28")]
    bots = {"heuristic": "heuristic", "other": "random"}
    with pytest.raises(LadderError, match="already has its 8 deals without other: give a larger --deals"):
        run_ladder(store, InProcessRunner("28", bots), list(bots), 8, LadderSettings(game_deals=4))
    assert [s.to_json() for s in store.standings("28")] == before
    summary = run_ladder(store, InProcessRunner("28", bots), list(bots), 16, LadderSettings(game_deals=4))
    assert "other" in {s.bot for s in summary.standings}


def test_the_store_never_keeps_a_game_or_an_event_twice(tmp_path):
    store = open_ladder_store(str(tmp_path / "x.sqlite3"))
    spec = GameSpec("r00000/a/b/s0", "r00000/a/b/s0", 0, 1, ("a", "b", "a", "b"), 1)
    res = GameResult(spec.key, spec.bots, [1, 0, 1, 0], 1, {"format": "taash-record/1"})
    assert store.save_game("29", spec, res, "test") is True
    assert store.save_game("29", spec, res, "test") is False
    r = Ratings()
    touched = r.apply("fixed", [0, 1, 0, 1], [res])
    assert store.apply_event("29", spec.event, [spec.key], 1, [r.get(b) for b in touched]) is True
    assert store.apply_event("29", spec.event, [spec.key], 1, [r.get(b) for b in touched]) is False
    assert len(store.games("29")) == 1 and len(store.events("29")) == 1 and len(store.history("29")) == 2
    assert store.games("29", records=True)[spec.key].record == {"format": "taash-record/1"}
    store.reset("29")
    assert store.games("29") == {} and store.standings("29") == []


def _stored_games(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as c:
            return c.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.Error:
        return 0


def _start_until(args, data: Path, games: int) -> subprocess.Popen:
    """Start `taash ladder ARGS` and return once ``games`` games are stored (or it ended)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", "taash.arena.cli", "ladder", *args], cwd=ROOT, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
    end = time.monotonic() + 60
    while _stored_games(data / "ladder.sqlite3") < games and p.poll() is None and time.monotonic() < end:
        time.sleep(0.02)
    return p


@pytest.mark.slow
def test_killed_mid_run_the_rerun_loses_and_doubles_nothing(tmp_path):
    data = tmp_path / "killed"
    args = ["run", "--variant", "29", "--bots", "heuristic,random", "--deals", "400", "--game-deals", "4", "--seed", "11", "--duplicate",
            "--data", str(data), "--quiet"]
    p = _start_until(args, data, 12)
    assert p.poll() is None, "the ladder ended before it could be killed"
    p.send_signal(signal.SIGKILL)
    p.wait()
    cut = _stored_games(data / "ladder.sqlite3")
    assert 12 <= cut < 100
    r = run_cli(*args)
    assert r.returncode == 0, r.stderr
    store = open_ladder_store(None, data)
    assert len(store.games("29")) == 100 and len(store.events("29")) == 50
    # the same as a ladder that was never stopped
    fresh = open_ladder_store(None, tmp_path / "fresh")
    run_ladder(fresh, InProcessRunner("29", BOTS), list(BOTS), 400, LadderSettings(seed=11, duplicate=True, game_deals=4))
    assert [s.to_json() for s in store.standings("29")] == [s.to_json() for s in fresh.standings("29")]
    h = store.standings("29")[0]
    assert (h.bot, h.games, h.deals) == ("heuristic", 100, 400)
    assert run_cli("verify", "--data", str(data)).returncode == 0


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path):
    data = tmp_path / "int"
    args = ["run", "--variant", "28", "--bots", "heuristic,random", "--deals", "2000", "--data", str(data), "--quiet"]
    p = _start_until(args, data, 3)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert "games are stored: run the same command again to resume" in err and "Traceback" not in err


# -- the command line ------------------------------------------------------------------------------
@pytest.mark.slow
def test_cli_run_standings_plot_verify(tmp_path):
    d = str(tmp_path / "d")
    r = run_cli("run", "--variant", "304-solo", "--bots", "heuristic,random", "--deals", "24", "--duplicate", "--data", d, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (out["variant"], out["games"], out["deals"]) == ("304-solo", 6, 24)
    assert [s["bot"] for s in out["standings"]] == ["heuristic", "random"]
    s = run_cli("standings", "--data", d)
    assert s.returncode == 0
    for word in ("304-solo", "heuristic", "random", "95% interval", "win rate"):
        assert word in s.stdout
    js = json.loads(run_cli("standings", "--data", d, "--json").stdout)
    assert js["304-solo"] == out["standings"]
    png = tmp_path / "p.png"
    pl = run_cli("plot", "--data", d, "--out", str(png))
    assert pl.returncode == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a wrong place for the plot or the report: one line, nothing made (from a fresh-eyes tester)
    pl = run_cli("plot", "--data", d, "--out", str(tmp_path / "nonexist" / "x.png"))
    assert pl.returncode == 1 and "no such folder" in pl.stderr and not (tmp_path / "nonexist").exists()
    rp = run_cli("report", "--data", d, "--out", str(tmp_path))
    assert rp.returncode == 1 and f"cannot write the report {tmp_path}: Is a directory" in rp.stderr
    assert "Errno" not in rp.stderr
    v = run_cli("verify", "--data", d)
    assert v.returncode == 0 and "equal the stored standings" in v.stdout


@pytest.mark.parametrize("args, code, message", [
    (["run", "--variant", "29", "--bots", "heuristic,nosuch"], 1, "unknown bot 'nosuch'"),
    (["run", "--variant", "29", "--bots", "heuristic"], 1, "at least 2 bots"),
    (["run", "--variant", "29", "--bots", "x=nosuchmodule:f,random"], 1, "cannot load bot"),
    (["run", "--variant", "29", "--deals", "0"], 2, "argument --deals: must be at least 1, not 0"),
    (["run", "--variant", "29", "--workers", "two"], 2, "argument --workers: must be an integer"),
    (["run", "--variant", "nosuch"], 1, "nosuch"),
    (["run", "--variant", "29", "--arena", "127.0.0.1:9"], 1, "no admin token"),
    (["standings", "--variant", "29"], 1, "no ladder in"),      # none created (test_ladder_faults.py)
    (["plot"], 1, "no ladder in"),
    (["run", "--variant", "29", "--store", "mysql://x"], 1, "unknown ladder store"),
])
def test_cli_errors_are_one_clear_line(tmp_path, args, code, message):
    r = run_cli(*args, "--data", str(tmp_path / "e"))
    assert r.returncode == code, r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("args, code, message", [
    (["standings", "--variant", "29"], 2, "no ladder for 29"),
    (["plot"], 1, "no rated games to plot"),
])
def test_cli_errors_of_a_database_without_that_ladder(tmp_path, args, code, message):
    from taash.arena.store import open_ladder_store
    open_ladder_store(None, tmp_path).close()
    r = run_cli(*args, "--data", str(tmp_path))
    assert r.returncode == code, r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr


@pytest.mark.slow
def test_cli_refuses_other_settings_and_keeps_the_standings(tmp_path):
    d = str(tmp_path / "d")
    assert run_cli("run", "--variant", "28", "--bots", "heuristic,random", "--deals", "8", "--seed", "1", "--data", d, "--quiet").returncode == 0
    before = run_cli("standings", "--data", d, "--json").stdout
    r = run_cli("run", "--variant", "28", "--bots", "heuristic,random", "--deals", "8", "--seed", "2", "--data", d)
    assert r.returncode == 1 and "was started with --seed 1" in r.stderr and "Traceback" not in r.stderr
    assert run_cli("standings", "--data", d, "--json").stdout == before


@pytest.mark.parametrize("args", [["--variant", "nosuch"], ["--variant", "29", "--bots", "heuristic,nosuch"]])
def test_a_ladder_refused_for_its_variant_or_bots_makes_no_database(tmp_path, args):
    r = run_cli("run", *args, "--data", str(tmp_path / "e"))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert not (tmp_path / "e").exists()
