"""A bid of one's own: the flow's `bids` step (interpreter/bids.py), on Call Break
(variants/call-break.yaml) and the guide's worked example docs/examples/exact-bid.yaml.
Values worked out by hand from the files' rules."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from taash.interpreter import State, VariantError, load_variant
from taash.interpreter.errors import StateError

ROOT = Path(__file__).resolve().parents[2]
EXACT = ROOT / "docs" / "examples" / "exact-bid.yaml"
RANKS = "AKQJT98765432"


def suit_hand(suit: str) -> list[str]:
    return [r + suit for r in RANKS]


def test_call_break_bids_stand_side_by_side_and_score_in_tenths():
    v = load_variant("call-break")
    # dealer 3: seat 0 is the eldest, bids first and leads. Seat 0 holds every spade
    # (always trump): void in every other suit he trumps each trick led by another, and
    # nobody can follow his spades: he takes all 13 tricks, the others none.
    st = State(v, dealer=3, hands=[suit_hand("S"), suit_hand("H"), suit_hand("D"), suit_hand("C")])
    assert st.phase == "bids" and st.to_act == 0
    assert st.legal_actions() == [f"bid {n}" for n in range(1, 9)]   # min 1, max 8
    assert st.observation(2)["trump"] == "S"                           # fixed: known from the start
    st.apply("bid 8")
    for seat in range(4):   # public: every seat sees the bid at once
        assert st.observation(seat)["bids"] == [8, None, None, None]
    st.apply("bid 1")
    st.apply("bid 1")
    st.apply("bid 1")
    assert st.phase == "play" and st.to_act == 0
    while not st.is_terminal:
        st.apply(st.default_action())
    assert [sum(1 for t in st.result()["tricks"] if t["winner"] == s) for s in range(4)] == [13, 0, 0, 0]
    # seat 0: bid 8 made with 5 over: 8 + 0.5 = 8.5, in tenths 85; the others bid 1, took
    # none: -1 each, -10 in tenths
    assert st.scores == [85, -10, -10, -10]
    assert st.result()["bids"] == [8, 1, 1, 1]


def test_call_break_beat_the_trick_when_you_can():
    v = load_variant("call-break")
    # dealer 0: seat 1 is the eldest. Seat 1 holds eleven hearts and two diamonds, seat
    # 2 the king and two of hearts and eleven diamonds; seat 0 every spade, seat 3 every club
    hands = [suit_hand("S"),
             [r + "H" for r in "AQJT9876543"] + ["AD", "KD"],
             ["KH", "2H"] + [r + "D" for r in "QJT98765432"],
             suit_hand("C")]
    st = State(v, dealer=0, hands=hands)
    for _ in range(4):
        st.apply("bid 1")
    assert st.to_act == 1
    st.apply("play QH")
    # seat 2 holds KH (above the queen) and 2H: he must play the king
    assert st.legal_actions() == ["play KH"]
    st.apply("play KH")
    # seat 3 has no heart and no spade: any card
    assert len(st.legal_actions()) == 13
    st.apply("play 2C")
    # seat 0 has only spades: he must trump, with any spade (all beat the king of hearts)
    assert len(st.legal_actions()) == 13
    st.apply("play 2S")
    assert st.result()["tricks"][0]["winner"] == 0
    # seat 0 leads a spade: nobody else holds one; seat 1 must then beat nothing he can:
    # any card (no spade to follow or to trump with)
    st.apply("play 3S")
    assert len(st.legal_actions()) == 12


def test_sum_rule_hooks_the_last_bid():
    v = load_variant(EXACT)
    assert v.tricks == 8
    st = State(v, dealer=2, seed=4)
    assert st.to_act == 0
    assert st.legal_actions() == [f"bid {n}" for n in range(0, 9)]   # 0 to tricks
    st.apply("bid 3")
    st.apply("bid 2")
    # the dealer bids last: 3 + 2 + 3 would make 8, the tricks: refused
    assert st.legal_actions() == [f"bid {n}" for n in (0, 1, 2, 4, 5, 6, 7, 8)]
    with pytest.raises(Exception):
        st.apply("bid 3")
    copy = pickle.loads(pickle.dumps(st))
    assert copy.observation(1) == st.observation(1)
    st.apply("bid 0")
    assert st.phase == "play" and st.observation(1)["bids"] == [3, 2, 0]


def test_exact_bid_scoring():
    v = load_variant(EXACT)
    # the guide's second deal: seat 0 (the eldest, dealer 2) holds the six hearts (trump)
    # and the ace and king of spades: 8 sure tricks
    hands = [["AH", "KH", "QH", "JH", "TH", "9H", "AS", "KS"],
             ["QS", "JS", "TS", "9S", "AD", "KD", "QD", "JD"],
             ["TD", "9D", "AC", "KC", "QC", "JC", "TC", "9C"]]
    st = State(v, dealer=2, hands=hands)
    st.apply("bid 8")     # seat 0
    st.apply("bid 0")     # seat 1
    st.apply("bid 1")     # seat 2, the dealer: 8 + 0 + 1 = 9, not 8: allowed
    while not st.is_terminal:
        st.apply(st.default_action())
    # seat 0 holds every trump and the top spades: he takes all 8 tricks, exactly his bid:
    # 10 + 8 = 18; seat 1 bid 0 and took none: 10 + 0 = 10; seat 2 bid 1, took none: 0
    assert st.scores == [18, 10, 0]


def write(tmp_path, text: str) -> Path:
    p = tmp_path / "v.yaml"
    p.write_text(text)
    return p


BASE = EXACT.read_text()


MAY_BID = "  may_bid: not (calls == players - 1 and bids_total + number == tricks)"
STEP = "  - bids                       # each bids his own tricks, from the eldest\n"


@pytest.mark.parametrize("old, new, line, message", [
    ("  min: 0 ", "  min: 9 ", "min: 9", "bids.min 9 is above the 8 tricks"),
    ("  max: tricks", "  max: 9", "max: 9", "bids.max 9 is above the 8 tricks"),
    ("  max: tricks", "  max: -1", "max: -1", "bids.max -1 is below bids.min 0"),
    ("  max: tricks", "  max: 3 - 4", "max: 3 - 4", "always -1, below bids.min 0"),
    (MAY_BID, "  may_bid: false", "may_bid", "after 0 bids adding up to 0, bids.may_bid allows no bid"),
    (STEP, "", "min: 0", "the flow has no 'bids' step"),
    # the last bidder could bid nothing: decidable, the rule reads only the bids so far
    (MAY_BID, "  may_bid: calls < players - 1", "may_bid", "bids.may_bid allows no bid from 0 to 8"),
])
def test_load_errors_are_located(tmp_path, old, new, line, message):
    text = BASE.replace(old, new)
    assert text != BASE
    with pytest.raises(VariantError) as e:
        load_variant(write(tmp_path, text))
    p = e.value.problems[0]
    assert message in p.message
    assert line in text.splitlines()[p.line - 1], p


def test_a_bids_step_needs_its_section(tmp_path):
    start = BASE.index("bids:\n  min")
    end = BASE.index("trump:")
    text = BASE[:start] + BASE[end:]
    with pytest.raises(VariantError) as e:
        load_variant(write(tmp_path, text))
    p = e.value.problems[0]
    assert "needs a `bids:` section" in p.message
    assert text.splitlines()[p.line - 1].strip().startswith("- bids")


def test_no_bid_left_is_a_clear_state_error(tmp_path):
    # the same rule reading the hand (always 8 cards here) is not decided at load
    text = BASE.replace("  may_bid: not (calls == players - 1 and bids_total + number == tricks)",
                        "  may_bid: calls < players - 1 or count(hand) > 8")
    v = load_variant(write(tmp_path, text))
    st = State(v, dealer=2, seed=1)
    st.apply("bid 1")
    st.apply("bid 1")
    with pytest.raises(StateError, match="no legal bid"):
        st.legal_actions()


def test_the_guide_prints_the_example_file():
    guide = (ROOT / "docs" / "authoring.md").read_text()
    assert EXACT.read_text() in guide


def test_the_load_check_goes_only_where_the_bids_can_reach(tmp_path):
    """The first bid must be 1 or more, and a later one only with bids made so far: after
    one bid adding up to 0 no bid would be allowed, but no first bid adds up to 0, so the
    file loads and every seat has a bid."""
    text = BASE.replace(MAY_BID, "  may_bid: (calls == 0 and number > 0) or (calls > 0 and bids_total > 0)")
    v = load_variant(write(tmp_path, text))
    st = State(v, dealer=2, seed=3)
    assert st.legal_actions() == [f"bid {n}" for n in range(1, 9)]
    st.apply("bid 1")
    assert st.legal_actions() == [f"bid {n}" for n in range(0, 9)]
