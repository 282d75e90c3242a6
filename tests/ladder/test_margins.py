"""Head-to-head margins (arena/ladder/margins.py): the score margin a deal of one bot
over another, with a Student t interval over the events, worked out by hand; and the
`taash ladder margins` command against the stored games."""

from __future__ import annotations

import json
import math

import pytest

from taash.arena.ladder import GameResult
from taash.arena.ladder.margins import event_margin, pair_margins, t975

from tests.ladder.test_ladder import run_cli

SIDES4 = (0, 1, 0, 1)      # 28, 29, 56: seats 0 and 2 against 1 and 3


def dup(a_first, b_first, deals=4):
    """A duplicate event of bots a and b at four seats: a holds side 0 with the cards, then
    b does. ``a_first``, ``b_first``: side 0's match score in each seating (zero-sum)."""
    return [GameResult("g1", ("a", "b", "a", "b"), [a_first, -a_first, a_first, -a_first], deals),
            GameResult("g2", ("b", "a", "b", "a"), [b_first, -b_first, b_first, -b_first], deals)]


def test_one_duplicate_event_by_hand():
    # a makes +3 with side 0's cards; b makes +1 with them, so a's side scores -1 there:
    # a totals 3 - 1 = 2, b totals -3 + 1 = -2, a margin of 4 over 8 deals played
    assert event_margin("fixed", SIDES4, dup(3, 1)) == ("a", "b", 0.5, 8)


def test_three_events_mean_and_t_interval_by_hand():
    # margins 0.5, 0 and 1 a deal: mean 0.5, sample sd 0.5, standard error 0.5 / sqrt 3,
    # t with 2 degrees of freedom 4.303: half-width 4.303 * 0.288675 = 1.24217
    [m] = pair_margins("fixed", SIDES4, [dup(3, 1), dup(2, 2), dup(4, 0)])
    assert (m.better, m.worse, m.events, m.deals) == ("a", "b", 3, 24)
    assert m.mean == pytest.approx(0.5)
    assert m.ci95 == pytest.approx((0.5 - 1.24217, 0.5 + 1.24217), abs=1e-4)
    assert not m.apart


def test_the_better_bot_comes_first_and_apart_needs_the_interval_above_zero():
    # dup(x, y) gives a (x - y) / 4 a deal over b (a totals x - y, b y - x, over 8 deals).
    # b gains 0.25, 0.5 and 0.25 a deal: mean 1/3, sd 0.144338, se 0.083333,
    # half-width 4.303 * 0.083333 = 0.358583: 1/3 - 0.358583 < 0, not apart
    [m] = pair_margins("fixed", SIDES4, [dup(-1, 0), dup(-1, 1), dup(0, 1)])
    assert (m.better, m.worse) == ("b", "a")
    assert m.mean == pytest.approx(1 / 3)
    assert m.ci95 == pytest.approx((1 / 3 - 0.358583, 1 / 3 + 0.358583), abs=1e-5)
    assert not m.apart
    # ten events of b gaining 0.25 and ten of 0.5: mean 0.375, sd 0.128247, se 0.028677,
    # t(19) 2.093: 0.375 +- 0.060021, wholly above 0
    [m] = pair_margins("fixed", SIDES4, [dup(-1, 0)] * 10 + [dup(-1, 1)] * 10)
    assert m.ci95 == pytest.approx((0.375 - 0.060021, 0.375 + 0.060021), abs=1e-5)
    assert m.apart and m.events == 20


def test_a_zero_width_interval_needs_ten_events():
    # whole-number scores: nine events of +2 game points over 8 deals each have margin
    # 0.25, sd 0 and an interval of no width above 0, yet nine are too few to trust it
    [m] = pair_margins("fixed", SIDES4, [dup(1, 0)] * 9)
    assert m.ci95 == (0.25, 0.25) and m.events == 9 and not m.apart
    [m] = pair_margins("fixed", SIDES4, [dup(1, 0)] * 10)
    assert m.apart


def test_one_event_has_no_interval():
    [m] = pair_margins("fixed", SIDES4, [dup(3, 1)])
    assert m.ci95 is None and not m.apart and m.to_json()["ci95"] is None


def test_solo_games_score_each_bot_by_its_mean_seat_score():
    # three seats, the other way of rating: bot a held seats 0 and 2 (scores 2 and -1, mean
    # 0.5), b seat 1 (score -1); one game of 2 deals: (0.5 - -1) / 2 = 0.75
    g = GameResult("s", ("a", "b", "a"), [2, -1, -1], 2)
    assert event_margin("solo", (0, 1, 2), [g]) == ("a", "b", 0.75, 2)


def test_events_of_a_mixed_side_are_left_out():
    # a and c share side 0 against b: three bots, not a head-to-head
    g = GameResult("m", ("a", "b", "c", "b"), [1, -1, 1, -1], 4)
    assert event_margin("fixed", SIDES4, [g]) is None
    assert pair_margins("fixed", SIDES4, [[g]]) == []


def test_t_quantiles_from_the_table():
    assert t975(1) == 12.706 and t975(9) == 2.262 and t975(30) == 2.042
    assert t975(35) == 2.042            # between 30 and 40: the larger quantile of 30
    assert t975(121) == pytest.approx(1.959964, abs=1e-6)
    with pytest.raises(ValueError):
        t975(0)


@pytest.mark.slow
def test_cli_margins_agree_with_the_stored_games(tmp_path):
    d = str(tmp_path / "d")
    r = run_cli("run", "--variant", "29", "--bots", "heuristic,random", "--deals", "24", "--duplicate",
                "--data", d, "--json")
    assert r.returncode == 0, r.stderr
    run = json.loads(r.stdout)
    # the margin worked out again here from the stored games: each event is both seatings
    # of 4 deals, heuristic's side total minus random's over the 8 deals
    from taash.arena.store import open_ladder_store
    store = open_ladder_store(None, d, create=False)
    games = store.games("29")
    per_event = []
    for ev in store.events("29"):
        diff = 0
        for key in ev["games"]:
            g = games[key]
            h = g.bots.index("heuristic")
            diff += g.scores[h] - g.scores[1 - h]    # seat h's side against the next seat's
        per_event.append(diff / 8)
    store.close()
    assert len(per_event) == 3
    mean = sum(per_event) / 3
    sd = math.sqrt(sum((x - mean) ** 2 for x in per_event) / 2)
    half = 4.303 * sd / math.sqrt(3)
    js = json.loads(run_cli("margins", "--data", d, "--json").stdout)["29"]
    assert run["margins"] == js
    [m] = js
    assert (m["better"], m["worse"], m["events"], m["deals"]) == ("heuristic", "random", 3, 24)
    assert m["mean"] == pytest.approx(mean) and mean > 0
    assert m["ci95"] == pytest.approx([mean - half, mean + half])
    text = run_cli("standings", "--data", d).stdout
    assert "head to head, score margin a deal" in text and "heuristic" in text and "95% interval" in text
