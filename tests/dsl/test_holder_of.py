"""`holder_of(card)`: the seat holding a card, in the rules that name a seat for the table
(docs/authoring.md, "A seat named by a card"); a rule that names no seat is refused at
load where that can be seen, else stops the deal with a RuleError naming it, never the
last seat. Deals of 28 built as in tests/dsl/test_parent.py (dealer 0, eldest 1)."""

from __future__ import annotations

import random

import pytest

from taash.interpreter import RuleError, State, check_files, load_variant
from taash.interpreter.variant import check_warnings

from tests.dsl.test_parent import SEAT1, deal, problems, to_play, write
from tests.engine.test_cli import taash

QUEEN_LEADS = 'extends: "28"\nname: queen-leads\nplay:\n  leader: holder_of("QS")\n'


def test_the_holder_of_the_queen_leads(tmp_path):
    # seat 1 holds QS (SEAT1), lays 9H face down: he leads, as the eldest would
    v = load_variant(write(tmp_path, QUEEN_LEADS))
    assert to_play(deal(v, SEAT1), "9H").to_act == 1
    # seat 1 without QS: seat 2 is dealt the first 8 cards left in suit order, QS 9S 7S
    # TH KH QH 8H 7H, so seat 2 leads, not the eldest
    st = deal(v, ["JS", "9H", "AS", "TS", "KS", "JH", "8S", "AH"])
    for a in ("bid 14", "pass", "pass", "pass", "trump-card 9H"):
        st.apply(a)
    assert st.phase == "play" and st.to_act == 2


def test_a_queen_laid_face_down_stops_the_deal_with_a_clear_error(tmp_path):
    v = load_variant(write(tmp_path, QUEEN_LEADS))
    st = deal(v, ["JS", "QS", "AS", "TS", "KS", "9H", "8S", "JH"])
    for a in ("bid 14", "pass", "pass", "pass"):
        st.apply(a)
    with pytest.raises(RuleError) as e:
        st.apply("trump-card QS")      # the queen leaves every hand: nobody holds it
    assert e.value.hook == "play.leader"
    assert str(e.value) == ("play.leader: the rule named no seat (none) in deal 1, dealer 0; it must "
                            "name one (e.g. `... else: eldest`)")


def test_check_warns_where_the_card_may_be_in_no_hand(tmp_path):
    p = write(tmp_path, QUEEN_LEADS)
    assert check_files([p]) == []
    [w] = check_warnings([p])
    assert (w.line, w.column, w.warning) == (4, 11, True)
    assert w.message.startswith("play.leader names the holder of a card, which may be in no hand when it "
                                "is asked (laid face down as trump)")
    safe = write(tmp_path, 'extends: "28"\nname: y\nplay:\n'
                           '  leader: holder_of("QS") if holder_of("QS") != none else eldest\n', "y.yaml")
    assert check_warnings([safe]) == []     # it says what to do when nobody holds the queen


def test_the_holder_of_a_card_calls_first(tmp_path):
    """`auction.first`: deal G5 in 29 (dealer 3, so the eldest is seat 0); seat 1's first
    packet is 9S KS 8H TH: the holder of KS, seat 1, calls first, then the turn goes on
    from him."""
    from tests.helpers.rules import G5_HANDS
    p = write(tmp_path, 'extends: "29"\nname: a\nauction:\n'
                        '  first: holder_of("KS") if holder_of("KS") != none else eldest\n')
    st = State(load_variant(p), dealer=3, hands=[list(h) for h in G5_HANDS])
    assert st.phase == "auction" and st.to_act == 1
    st.apply("bid 16")
    assert st.to_act == 2
    assert problems(write(tmp_path, 'extends: "29"\nname: a\nauction:\n  first: none\n', "n.yaml")) == [
        (4, 10, "auction.first: this rule names no seat (it is always none); it must name a seat")]


def test_simulate_says_a_rule_named_no_seat(tmp_path):
    # `partner` is none in every deal of 28 (no called partner): the deal stops at the lead
    p = write(tmp_path, 'extends: "28"\nname: z\nplay:\n  leader: partner\n')
    r = taash("simulate", p, "--matches", "1")
    assert r.returncode == 1
    assert r.stderr.strip() == ("taash: error: the variant's rule play.leader: the rule named no seat "
                                "(none) in deal 1, dealer 3; it must name one (e.g. `... else: eldest`)")


@pytest.mark.parametrize("rule, where, message", [
    ('|\n    when trick == 1: holder_of("QS")', (5, 5),
     "play.leader: when no case applies this rule names no seat: end it with `else: SEAT`"),
    ('holder_of("QS") if trick > 3 else none', (4, 45),
     "play.leader: `none` here names no seat; this rule must name a seat"),
    ("next(none)", (4, 11), "play.leader: this rule names no seat (it is always none); it must name a seat"),
])
def test_a_leader_that_can_be_seen_to_name_no_seat_is_refused(tmp_path, rule, where, message):
    p = write(tmp_path, f'extends: "28"\nname: x\nplay:\n  leader: {rule}\n')
    assert problems(p) == [(*where, message)]


def test_holder_of_only_where_a_rule_names_a_seat_for_the_table(tmp_path):
    p = write(tmp_path, 'extends: "28"\nname: x\nplay:\n'
                        '  may_play: hand if holder_of("QS") == me else in_suit(hand, led) otherwise hand\n')
    assert problems(p) == [(4, 21, "play.may_play: holder_of() reads every hand: only the rules that name "
                                   "a seat for the table have it (play.leader, trump.chooser, "
                                   "contract.declarer, flow.declare, auction.first, auction.all_pass)")]
    p = write(tmp_path, 'extends: "28"\nname: x\ntrump:\n  mode: open\n  chooser: none\n')
    assert problems(p) == [(5, 12, "trump.chooser: this rule names no seat (it is always none); it must "
                                   "name a seat")]


def test_resample_keeps_the_leader_a_seat_knows(tmp_path):
    # the leader is public once he leads: a resample replays the history, so the queen
    # stays with him (or was played by him)
    v = load_variant(write(tmp_path, 'extends: "28"\nname: q\ntrump:\n  mode: open\nplay:\n'
                                     '  leader: holder_of("QS")\n'))
    rng = random.Random(3)
    for seed in range(6):
        st = State(v, dealer=0, seed=seed)
        while st.phase != "play" or st.tricks_done < 1:
            st.apply(st.default_action())
        seat = st.to_act
        other = st.resample(seat, rng)
        assert other.observation(seat) == st.observation(seat)
        leader = st.tricks[0][0]
        qs = v.deck.card_index["QS"]
        assert qs in other.tricks[0][1] or qs in other.hands[leader]


def test_the_guides_example(tmp_path):
    """docs/authoring.md, "A seat named by a card": dealer 0, seat 2 dealt QS, seat 1 bids
    16, the others pass, seat 1 names spades openly: seat 2 leads the first trick."""
    import re
    from tests.helpers import ROOT
    guide = (ROOT / "docs" / "authoring.md").read_text()
    [text] = [e for e in re.findall(r"```yaml\n(.*?)```", guide, re.S) if "queen-leads-example" in e]
    v = load_variant(write(tmp_path, text))
    seat2 = ["QS", "JS", "9S", "AS", "TS", "KS", "8S", "7S"]
    st = deal(v, ["JH", "9H", "AH", "TH", "KH", "QH", "8H", "7H"])   # seat 1; seat 2 the spades
    for a in ("bid 16", "pass", "pass", "pass", "trump S"):
        st.apply(a)
    assert sorted(v.deck.text[c] for c in st.hands[2]) == sorted(seat2)
    assert st.phase == "play" and st.to_act == 2
