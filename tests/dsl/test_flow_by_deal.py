"""A flow whose sizes read the deal's number (docs/authoring.md, "A hand size that
changes by deal"): each deal's cards, widow, tricks and bids, checked at load for every
deal up to match.max_deals.

Worked by hand on the guide's example docs/examples/judgement.yaml (4 players, 52 cards):
the hand is `8 - deals if deals < 8 else deals - 6`, `deals` counting the deals before:
deal 1 (deals = 0) 8 cards, deal 3 (deals = 2) 6, deal 8 (deals = 7) 1, deal 9 (deals =
8) 2, deal 15 (deals = 14) 8; the widow set aside is the rest, 52 - 4 x the hand: 20, 28,
48, 44, 20.
"""

from __future__ import annotations

import pickle
import random

import pytest

from taash.interpreter import Match, State, StateError, load_variant
from taash.interpreter.records import replay
from taash.interpreter.rulebook import render
from taash.interpreter.variant import VariantError

from tests.dsl.test_broken_files import check
from tests.helpers import ROOT

JUDGEMENT = ROOT / "docs" / "examples" / "judgement.yaml"

# deal (1-based) -> cards per seat, widow, tricks: worked out above
BY_DEAL = {1: (8, 20, 8), 2: (7, 24, 7), 3: (6, 28, 6), 8: (1, 48, 1), 9: (2, 44, 2), 15: (8, 20, 8)}


@pytest.fixture(scope="module")
def judgement():
    return load_variant(JUDGEMENT)


@pytest.mark.parametrize("deal", sorted(BY_DEAL))
def test_each_deal_deals_its_own_hand(judgement, deal):
    per_seat, widow, tricks = BY_DEAL[deal]
    w = judgement.for_deal(deal - 1)
    assert (w.cards_per_seat, w.widow_size, w.tricks) == (per_seat, widow, tricks)
    st = State(judgement, dealer=0, seed=deal, deal_number=deal - 1)
    assert st.v is w
    assert [len(h) for h in st.dealt] == [per_seat] * 4 and len(st.widow) == widow
    # the eldest (seat 1) bids first: 0 to the deal's tricks (bids.max: tricks)
    assert [str(a) for a in st.legal_actions()] == [f"bid {k}" for k in range(tricks + 1)]


def test_the_encoding_size_is_the_most_of_any_deal(judgement):
    # the most: 8 cards and 8 tricks (deals 1 and 15); the largest widow 48 (deal 8)
    assert (judgement.most_cards_per_seat, judgement.most_tricks, judgement.most_widow_size) == (8, 8, 48)
    # one action table for every deal: bids 0 to 8 in each, allowed up to the deal's tricks
    texts = [str(a) for a in judgement.actions]
    assert all([str(a) for a in judgement.for_deal(n).actions] == texts for n in range(15))
    assert "bid 8" in texts and "bid 9" not in texts


def test_dealers_hook_in_the_one_card_deal(judgement):
    # deal 8: one card, one trick. Seat 2 deals; seats 3, 0, 1 bid 0, 0, 0 (total 0): the
    # dealer may not bid 1 (0 + 1 = 1 trick), so only `bid 0` is left to him
    st = State(judgement, dealer=2, seed=5, deal_number=7)
    for a in ("bid 0", "bid 0", "bid 0"):
        st.apply(a)
    assert st.to_act == 2 and [str(a) for a in st.legal_actions()] == ["bid 0"]


def test_a_match_deals_eight_down_to_one_and_back(judgement):
    m = Match(judgement, seed=4)
    rng = random.Random(4)
    sizes = []
    while not m.over:
        st = m.new_deal()
        sizes.append(len(st.dealt[0]))
        while st.to_act >= 0:
            st.apply(rng.choice(st.legal_actions()))
        assert len(st.tricks) == sizes[-1]
        m.finish_deal(st)
    assert sizes == [8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8]
    assert m.ended_by == "rule"
    # replayed from its record, deal by deal, to the same scores
    m2 = replay(m.record(), judgement)
    assert m2.played == 15 and m2.scores == m.scores


def test_a_deal_beyond_the_match_is_refused(judgement):
    for number in (15, -1, None):
        with pytest.raises(StateError, match="is not a deal of the match .the deals played before it: 0 to 14, "
                                             "match.max_deals 15"):
            State(judgement, deal_number=number)


def test_pickles_as_its_deal(judgement):
    st = State(judgement, dealer=1, seed=2, deal_number=4)     # deal 5: 4 cards
    back = pickle.loads(pickle.dumps(st))
    assert back.v is judgement.for_deal(4) and back.v.cards_per_seat == 4
    assert back.observation(1) == st.observation(1)


def test_a_re_deal_in_a_later_deal_keeps_the_observation(judgement):
    # deal 12 (deals = 11): 5 cards each and 32 set aside; after the bids and a trick,
    # every seat's view is the same on the cards dealt again
    st = State(judgement, dealer=3, seed=9, deal_number=11)
    rng = random.Random(3)
    for _ in range(4 + 4):
        st.apply(rng.choice(st.legal_actions()))
    for seat in range(4):
        other = st.resample(seat, random.Random(seat))
        assert other.v is st.v and [len(h) for h in other.hands] == [len(h) for h in st.hands]
        assert other.observation(seat) == st.observation(seat)


def test_the_rulebook_states_the_hand_of_every_deal(judgement):
    book = render(judgement)
    assert ("by deal, from deal 1 to deal 15: each player is dealt 8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, "
            "8 cards (as many tricks); the widow 20, 24, 28, 32, 36, 40, 44, 48, 44, 40, 36, 32, 28, 24, 20") in book
    assert ("at step 1, the cards each player is dealt: 8 minus the number of deals played before if the number of deals played "
            "before is less than 8, else the number of deals played before minus 6") in book


def test_the_kernel_takes_each_deal_at_its_own_size(judgement):
    # 8 cards a seat in the first deal, 7 in the second, 1 in the eighth (deals = 7)
    from taash.kernel import why_not
    from taash.kernel.source import facts
    assert why_not(judgement) is None
    assert [facts(judgement.for_deal(n)).tricks for n in (0, 1, 7)] == [8, 7, 1]


# -- refused at load, located ----------------------------------------------------------------
SMALL = """name: by-deal
players: 4
partnership: individual
deck:
  suits: [S, H, D, C]
  ranks: [A, K, Q, J, T, "9", "8", "7", "6", "5", "4", "3", "2"]
  points: {}
  total: 0
flow:
  - deal: ["HAND"]
  - play
trump:
  mode: none
play:
  leader: eldest
  may_play: in_suit(hand, led) otherwise hand
scoring:
  effect: score[dealer] += 1
match:
  score: seat
  start: 0
  MAXDEALS
  ends: deals_played == 4
"""


def write(tmp_path, hand, max_deals="max_deals: 4"):
    p = tmp_path / "by-deal.yaml"
    p.write_text(SMALL.replace("HAND", hand).replace("MAXDEALS", max_deals))
    return p


def test_a_deal_the_deck_cannot_supply_is_located_at_the_rule(tmp_path):
    # line 10 `  - deal: ["13 + deals // 2"]`, the rule's quote at column 12: deals 0 and 1
    # give 13 (52 cards), deals 2 and 3 give 14: 4 x 14 = 56 of 52, first in deal 3
    p = write(tmp_path, "13 + deals // 2")
    check(p, 10, 12, "flow.0.deal.0: in deal 3 (deals = 2) the flow deals 14 cards to each of 4 players (56), "
                     "but the deck has 52 (and 1 other deal)")


def test_fourteen_cards_to_four_players_in_the_first_deal(tmp_path):
    p = write(tmp_path, "14 - deals * 0")
    check(p, 10, 12, "in deal 1 (deals = 0) the flow deals 14 cards to each of 4 players (56), but the deck "
                     "has 52 (and 3 other deals)")


def test_a_size_below_one_in_some_deal(tmp_path):
    # 13 - 4 x deals: 13, 9, 5, 1 for deals 0..3; with 5 deals the fifth gives -3
    p = write(tmp_path, "13 - 4 * deals", "max_deals: 5")
    check(p, 10, 12, "flow.0.deal.0: a size must be a number of 1 or more, not -3 in deal 5 "
                     "(deals = 4)")


def test_a_division_by_zero_in_some_deal_names_the_deal(tmp_path):
    # 13 // (2 - deals): 6 in deal 1, 13 in deal 2, then 2 - 2 = 0 divides in deal 3
    p = write(tmp_path, "13 // (2 - deals)")
    check(p, 10, 12, "flow.0.deal.0: in deal 3 (deals = 2): division by zero")


def test_a_size_by_deal_needs_the_match_length(tmp_path):
    p = write(tmp_path, "13 - deals * 0", "")
    check(p, 10, 12, "a size that reads `deals` needs the match's length: write match.max_deals")


def test_other_names_of_the_deal_are_refused(tmp_path):
    # `deals_played` is no option and not `deals`: at its own column (the rule starts at 13)
    p = write(tmp_path, "13 - deals_played")
    check(p, 10, 18, "'deals_played' is not an option; a preset's condition or a flow's size may use only "
                     "options (none declared); a flow's size may also read deals")


def test_a_flow_that_only_fits_some_deals_loads_none(tmp_path):
    with pytest.raises(VariantError):
        load_variant(write(tmp_path, "13 + deals // 3"))   # deal 4: 14
    v = load_variant(write(tmp_path, "13 + deals // 4"))   # 13 in deals 1 to 4
    assert v.deal_sizes == ((13,),) * 4 and len(v.deal_variants) == 1 and v.for_deal(3) is v


def test_the_guide_shows_the_whole_file():
    guide = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
    assert "```yaml\n" + JUDGEMENT.read_text(encoding="utf-8") + "```" in guide


def test_a_state_from_a_later_deal_s_observation(judgement):
    # deal 10 (deals = 9): 3 cards each, 40 set aside; rebuilt from seat 2's view alone
    st = State(judgement, dealer=0, seed=6, deal_number=9)
    rng = random.Random(2)
    for _ in range(4 + 2):
        st.apply(rng.choice(st.legal_actions()))
    obs = st.observation(2)
    back = State.from_observation(judgement, obs, random.Random(1))
    assert back.v is judgement.for_deal(9) and [len(h) for h in back.dealt] == [3] * 4
    assert back.observation(2) == obs


def test_another_rule_wrong_in_one_deal_is_located_there(tmp_path):
    """`bids.max: 8` suits deal 1 (8 tricks) but not deal 2 (7): the problem is at the
    `max:` value, saying which deal."""
    text = JUDGEMENT.read_text(encoding="utf-8").replace("  max: tricks", "  max: 8")
    line = text.splitlines().index("  max: 8") + 1
    p = tmp_path / "judgement-8.yaml"
    p.write_text(text)
    check(p, line, 8, "in deal 2 (deals = 1): bids.max 8 is above the 7 tricks of a deal")


def test_the_match_end_reads_the_deal_s_tricks(tmp_path):
    """12, 8 then 4 cards each (the widow 52 - 4 x that: 4, 20, 36); `ends: tricks == 8`
    ends the match after deal 2, by the rule, not at the limit of 3 deals."""
    text = (SMALL.replace('["HAND"]', '["12 - 4 * deals"]\n  - widow: "4 + 16 * deals"\n    set_aside: true\n    points_to: nobody')
            .replace("MAXDEALS", "max_deals: 3").replace("ends: deals_played == 4", "ends: tricks == 8"))
    p = tmp_path / "ends.yaml"
    p.write_text(text)
    m = Match(load_variant(p), seed=1)
    rng = random.Random(1)
    while not m.over:
        st = m.new_deal()
        while st.to_act >= 0:
            st.apply(rng.choice(st.legal_actions()))
        m.finish_deal(st)
    assert (m.played, m.ended_by, [len(d.widow) for d in m.deals]) == (2, "rule", [4, 20])


def test_a_rule_false_in_every_deal_is_refused(tmp_path):
    """12, 8, 4 tricks: `tricks == 8` holds in deal 2 (no warning either: meant so);
    `tricks == 20` in none, an error at the rule."""
    text = (SMALL.replace('["HAND"]', '["12 - 4 * deals"]\n  - widow: "4 + 16 * deals"\n    set_aside: true\n'
                                      '    points_to: nobody')
            .replace("MAXDEALS", "max_deals: 3").replace("ends: deals_played == 4", "ends: tricks == 8"))
    p = tmp_path / "ends.yaml"
    p.write_text(text)
    assert all(not x.warnings for x in load_variant(p).deal_variants.values())
    p.write_text(text.replace("tricks == 8", "tricks == 20"))
    line = text.splitlines().index("  ends: tricks == 8") + 1
    check(p, line, 9, "match.ends: this rule can never be satisfied in any deal of the match (it is always false)")
