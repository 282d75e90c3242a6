"""The heuristic bot plays every shipped variant from its data and beats random clearly.
Offline (the engine directly), fixed seeds; the duels test a margin, not exact counts, so
that an engine change that deals or plays otherwise (same rules) does not break them."""

from __future__ import annotations

import pytest

from taash.arena.bots.heuristic import VariantHeuristicBot
from taash.arena.bots.random import ObservationRandomBot, RandomBot
from taash.arena.bots.heuristic import HeuristicBot
from taash.arena.sdk import GameInfo
from taash.interpreter.actions import default_of as default_action   # State.default_action among given actions
from taash.interpreter import Match, load_variant, shipped_variants


def duel(name, matches, max_deals):
    """Heuristic seats against random seats; returns (heuristic wins, ties, matches).
    Fixed partnerships: the heuristic holds one side (alternating by match); otherwise
    one seat. A match cut at ``max_deals`` is judged by the score."""
    v = load_variant(name)
    h = HeuristicBot(v.data)
    wins = ties = 0
    for k in range(matches):
        r = RandomBot(k)
        m = Match(v, k)
        if v.data.get("partnership") == "fixed":
            mine = {s for s in range(v.players) if s % 2 == k % 2}
        else:
            mine = {k % v.players}
        while not m.over and len(m.deals) < max_deals:
            st = m.new_deal()
            while not st.is_terminal:
                s, legal = st.to_act, st.legal_actions()
                a = h.decide(st.observation(s), legal) if s in mine else r.decide(None, legal)
                assert a in legal
                st.apply(a)
            m.finish_deal(st)
        sc = m.seat_scores()
        best_mine = max(sc[s] for s in mine)
        best_other = max(sc[s] for s in range(v.players) if s not in mine)
        wins += best_mine > best_other
        ties += best_mine == best_other
    return wins, ties, matches


# matches of 20 the heuristic must win: a player no better than random wins 16 or more with
# probability under 1% against one random side (half of the matches on average); in 304 the
# heuristic is weaker (on main at 893837c: 13 won, 2 tied, 5 lost; elsewhere 20 of 20)
MIN_WINS = {"29": 16, "28": 16, "house/29-hidden-trump": 16, "house/29-bhoos": 16, "56": 16, "304-solo": 16,
            "304": 12}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MIN_WINS))
def test_heuristic_beats_random(name):
    """20 matches (at most 40 deals each): at least MIN_WINS[name] won, and at least twice
    as many won as lost."""
    wins, ties, matches = duel(name, 20, 40)
    losses = matches - wins - ties
    assert wins >= MIN_WINS[name] and wins >= 2 * losses, (name, wins, ties, losses)


@pytest.mark.parametrize("name", shipped_variants())
def test_plays_every_shipped_variant_legally(name):
    v = load_variant(name)
    bot = VariantHeuristicBot()
    game = GameInfo("g", name, {}, v.data, [], [], {})
    m = Match(v, 1)
    for _ in range(2):
        st = m.new_deal()
        while not st.is_terminal:
            legal = st.legal_actions()
            a = bot.decide(st.observation(st.to_act), legal, game)
            assert a in legal
            st.apply(a)
        m.finish_deal(st)
        if m.over:
            break


def test_heuristic_choices():
    v = load_variant("29")
    h = HeuristicBot(v.data)
    obs = {"seat": 0, "players": 4, "hand": ["JS", "9S", "AS", "TS"], "trick": [], "tricks": [],
           "high_bidder": None, "declarer": None}
    legal = ["pass"] + [f"bid {n}" for n in range(15, 30)]
    assert h.decide(obs, legal) == "bid 15"                     # a strong hand opens
    weak = dict(obs, hand=["7S", "8H", "QD", "KC"])
    assert h.decide(weak, legal) == "pass"
    assert h.decide(obs, ["trump S", "trump H", "trump D", "trump C"]) == "trump S"
    # following: wins cheaply as the last to play, lets a winning partner have points
    play = {"seat": 3, "players": 4, "hand": ["JH", "9H", "7H", "AD"], "trump": "S", "trump_exposed": True,
            "trick": [[0, "TH"], [1, "KH"], [2, "8H"]], "tricks": [], "declarer": 0}
    assert h.decide(play, ["play JH", "play 9H", "play 7H"]) == "play 9H"
    partner = dict(play, seat=2, hand=["TH", "7H", "9D"], trick=[[3, "QH"], [0, "JH"], [1, "8H"]])
    assert h.decide(partner, ["play TH", "play 7H"]) == "play TH"
    # ... but keeps a card no unseen card can beat (9H, AH: the J is gone) for later
    keeps = dict(partner, hand=["9H", "AH", "7H"])
    assert h.decide(keeps, ["play 9H", "play AH", "play 7H"]) == "play 7H"


def test_random_bot_is_a_function_of_what_it_sees():
    a, b = ObservationRandomBot(7), ObservationRandomBot(7)
    obs = {"seat": 1, "hand": ["JS", "9S"], "history": []}
    legal = [f"bid {n}" for n in range(15, 30)]
    picks = [a.decide(obs, legal) for _ in range(5)]
    assert len(set(picks)) == 1 and picks[0] == b.decide(obs, legal) and picks[0] in legal
    assert ObservationRandomBot(8).decide(dict(obs, seat=2), legal) in legal


def test_default_action():
    v = load_variant("house/56-cot")
    acts = [v.action(t) for t in ("cot", "expose", "play JS", "play 9S")]
    assert default_action(acts) == "play JS"       # a question is no default (docs/protocol.md)
    assert default_action([v.action("pass"), v.action("bid 28 S")]) == "pass"
    assert default_action([v.action("double"), v.action("bid 29 NT")]) == "bid 29 NT"
    assert default_action([v.action("cot")]) == "cot"   # nothing else is legal


def test_heuristic_bids_its_own_tricks_by_its_hand():
    """At a `bids` step (Call Break: spades always trump, bids 1 to 8) the heuristic bids
    the legal bid nearest its trick estimate. Every spade: each is the top spade it does
    not see above (chance 0.95), 13 x 0.95 = 12.35, plus half a trick for each of the 10
    spades past the third: 17.35, nearest legal bid 8. No spade and no card above a nine:
    each card has three or more unseen cards of its suit above it (0.05, times 0.75
    with a trump): 13 x 0.0375 = 0.49, nearest legal bid 1."""
    bot = HeuristicBot(load_variant("call-break").data)
    legal = [f"bid {n}" for n in range(1, 9)]
    obs = {"phase": "bids", "seat": 0, "players": 4, "trump": "S"}
    spades = [r + "S" for r in "AKQJT98765432"]
    assert bot.tricks_estimate(spades, "S") == pytest.approx(17.35)
    assert bot.decide(dict(obs, hand=spades), legal) == "bid 8"
    low = [r + s for s in "HDC" for r in "5432"] + ["6H"]
    assert bot.tricks_estimate(low, "S") == pytest.approx(13 * 0.0375)
    assert bot.decide(dict(obs, hand=low), legal) == "bid 1"
