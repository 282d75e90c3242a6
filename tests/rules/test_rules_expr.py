"""The rules language's expressions, each in a rule played on a real
State: seats named from others and quantifiers over them, the trick as data and `beats`,
sets of cards and rank comparison, `let` and `define:`; and the house rule
house/28-no-undertrump that uses them.

Deals: G5_HANDS (tests/helpers/rules.py; dealer 3, eldest 0; seat 0 declares 15 and names
trump S), and NU28 below. Expected values are worked out by hand in the comments from
docs/rules.md (§0.1 turn order s+1, §0.3 strength J 9 A T K Q 8 7, §0.4 trick winner, §0.6
sides s mod 2) and the guide's definitions of each construct (docs/authoring.md).
"""

from __future__ import annotations

import textwrap

from taash.interpreter import State, load_variant

from tests.helpers.rules import G5_HANDS, do, hands, illegal, new_state, plays


def variant_file(tmp_path, body: str, base: str = "29"):
    p = tmp_path / "expr.yaml"
    p.write_text(f'extends: "{base}"\nname: expr\n' + textwrap.dedent(body))
    return load_variant(p)


def g5_play(v) -> State:
    """G5 in variant ``v``: seat 0 bids 15, the others pass, seat 0 names trump S."""
    st = State(v, dealer=3, hands=[list(h) for h in G5_HANDS])
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S")
    assert st.phase == "play"
    return st


def card_plays(st: State) -> set[str]:
    return {a for a in st.legal_actions() if a.startswith("play ")}


# -- 1. seats ---------------------------------------------------------------------------
def test_seats_named_from_others(tmp_path):
    """Declarer 0, dealer 3, fixed sides {0, 2} {1, 3}: next(declarer) = 1,
    previous(declarer) = 3, partner_of(declarer) = 2, next(dealer) = 0 (the eldest),
    previous(next(declarer)) = 0, and partner_of(previous(dealer)) = partner_of(2) = 0."""
    want = {"next(declarer)": 1, "previous(declarer)": 3, "partner_of(declarer)": 2,
            "next(dealer)": 0, "previous(next(declarer))": 0,
            "partner_of(previous(dealer))": 0}
    for rule, seat in want.items():
        v = variant_file(tmp_path, f"play:\n  leader: {rule}\n")
        assert g5_play(v).to_act == seat, rule


def test_seat_sets_and_quantifiers(tmp_path):
    """A made-up may_play to read the quantifiers: the last player of a trick (both
    opponents have played) must play a club; a player one of whose opponents played a
    card ranking above an ace (a J or a 9) must play a diamond; else any card. Leader:
    partner_of(declarer) = seat 2.
    Trick 1: seat 2 leads JH (any card). Seat 3: opponents 0 (not played), 2 (JH, J above
    A) -> his diamonds QD 7D. Seat 0: opponents 1 (not played) and 3 (QD, Q below A) ->
    any card. Seat 0 plays 7H; seat 1: opponents 0 and 2 have both played -> his clubs
    KC 8C."""
    v = variant_file(tmp_path, """\
        play:
          leader: partner_of(declarer)
          may_play: |
            when leading: hand
            when all(s in opponents(me): played(s) != none): in_suit(hand, "C") otherwise hand
            when any(s in opponents(me): rank(played(s)) > "A"): in_suit(hand, "D") otherwise hand
            else: hand
        """)
    st = g5_play(v)
    assert st.to_act == 2 and card_plays(st) == set(plays("AS 8S JH KH 8D TD AC 7C"))
    do(st, "2 play JH")
    assert card_plays(st) == set(plays("QD 7D"))
    illegal(st, "play QH")
    do(st, "3 play QD")
    assert card_plays(st) == set(plays("JS QS 7H AH 9D AD TC 9C"))
    do(st, "0 play 7H")
    assert card_plays(st) == set(plays("KC 8C"))


def test_seat_set_values(tmp_path):
    """Sets of seats as values, read through a rule on a real State, for every seat
    (fixed sides {0, 2} {1, 3}, declarer 0): one partner, the seat two after (next of
    next), and two opponents, the seats next and previous; partners and opponents
    together are the 3 other seats and share none; every seat minus one's opponents is
    one's side (2 seats, oneself among them); only seat 2 is among the partners of the
    declarer; nobody has played before the lead."""
    v = variant_file(tmp_path, """\
        play:
          may_expose: |
            count(partners(me)) == 1 and next(next(me)) in partners(me)
            and partner_of(me) == next(next(me))
            and count(opponents(me)) == 2 and next(me) in opponents(me)
            and previous(me) in opponents(me) and not (me in opponents(me))
            and count(union(partners(me), opponents(me))) == 3
            and count(intersection(partners(me), opponents(me))) == 0
            and count(difference(seats, opponents(me))) == 2 and me in difference(seats, opponents(me))
            and count(seats) == players and count(trick_seats) == 0
        """)
    st = g5_play(v)
    for seat in range(4):
        assert v.may_expose(st, seat, None, None) is True, seat
    v = variant_file(tmp_path, "play:\n  may_expose: me in partners(declarer)\n")
    assert [v.may_expose(st, seat, None, None) for seat in range(4)] == [False, False, True, False]


def test_quantifiers_over_cards_and_those_over_seats(tmp_path):
    """G5 spades: seat 0 JS QS, seat 1 9S KS, seat 2 AS 8S, seat 3 TS 7S.
    `any(c in hand: rank(c) > "9" and suit(c) == "S")`: a spade above the nine is the
    jack: seat 0 only. `all(c in in_suit(hand, "S"): rank(c) < "A")`: both spades below
    the ace: seat 3 only (9 is above A; A is not below itself). `those(s in seats: ...)`
    keeps the seats of one's side: always 2, oneself among them."""
    cases = {'any(c in hand: rank(c) > "9" and suit(c) == "S")': [True, False, False, False],
             'all(c in in_suit(hand, "S"): rank(c) < "A")': [False, False, False, True],
             "count(those(s in seats: same_side(s, me))) == 2 "
             "and me in those(s in seats: same_side(s, me))": [True] * 4}
    for rule, want in cases.items():
        v = variant_file(tmp_path, f"play:\n  may_expose: |\n    {rule}\n")
        st = g5_play(v)
        assert [v.may_expose(st, seat, None, None) for seat in range(4)] == want, rule


def test_in_suit_of_none_and_of_a_no_trump_denomination_is_no_card(tmp_path):
    """`in_suit` is made inline (two bisections into the sorted hand); a suit that is none
    (the suit led before the lead) or a no-trump denomination (56's NT, NOES: codes below
    none) gives no card, and a suit gives that suit's cards: in G5 every seat holds two
    spades (trump S), and nobody has led yet."""
    rule = "count(in_suit(hand, led)) == 0 and count(in_suit(hand, trump)) == 2"
    st = g5_play(variant_file(tmp_path, f"play:\n  may_expose: {rule}\n"))
    assert [st.v.may_expose(st, seat, None, None) for seat in range(4)] == [True] * 4
    v = variant_file(tmp_path, "auction:\n  may_bid: count(in_suit(hand, denomination)) == 0\n",
                     base="56")
    st = State(v, dealer=5, seed=3)
    do(st, "0 bid 28 NT")
    # after 0's bid of 28 NT the denomination is NT: no card is of it, every bid is allowed
    assert st.v.may_bid(st, 1, 29, None) is True
    do(st, "1 bid 29 S")
    # now it is S: seat 2 may bid only while he holds no spade
    spades = [c for c in st.hands[2] if st.v.deck.suit_of[c] == 0]
    assert st.v.may_bid(st, 2, 30, None) is (not spades)


# -- 2. the trick as data, beats ---------------------------------------------------------
def test_must_beat_the_winning_card(tmp_path):
    """The guide's must-beat example: a player who cannot follow suit must beat the card
    winning the trick if he can (`beats` by the engine's trick order: trump S open).
    Deal: seat 1 is void in hearts with 9S AS 8S (spades) and diamonds.
    Seat 0 leads AH; seat 1 (void) may play any spade (every trump beats AH), not a
    diamond (neither led nor trump). He plays 8S: winning card 8S, seat 1 winning. Seat 2,
    void in hearts, holds JS 7S: only JS beats 8S (7S is below it). Seat 3 holds hearts
    JH 9H and follows suit."""
    v = variant_file(tmp_path, """\
        play:
          may_play: |
            when leading: hand
            else: in_suit(hand, led) otherwise those(c in hand: beats(c, winning_card)) otherwise hand
        """)
    rows = hands("AH TH KH QH 8H 7H AC KC",
                 "9S AS 8S JD 9D AD TD KD",
                 "JS 7S QD 8D 7D JC 9C TC",
                 "JH 9H TS KS QS QC 8C 7C")
    st = State(v, dealer=3, hands=rows)
    do(st, "0 bid 15", "1 pass", "2 pass", "3 pass", "0 trump S", "0 play AH")
    assert card_plays(st) == set(plays("9S AS 8S"))
    do(st, "1 play 8S")
    assert st.winning_card() == v.deck.parse("8S") and st.trick_winner() == 1
    assert card_plays(st) == set(plays("JS"))
    illegal(st, "play 7S")
    do(st, "2 play JS")
    assert card_plays(st) == set(plays("JH 9H"))


def test_trick_cards_and_beats_values(tmp_path):
    """`trick_cards`, `trick_seats` and `beats` read on a real State (G5, trump S open).
    Trick 1: seat 0 leads JS, seat 1 plays 9S. Then for seat 2: trick_cards = {JS, 9S},
    trick_seats = {0, 1}; JS beats 9S (J above 9), 9S does not beat JS; AS (in seat 2's
    hand, as if played now) beats neither (A is below J and 9); JH (neither led nor
    trump) does not beat 9S; every card beats none, none beats nothing, and a card does
    not beat itself."""
    v = variant_file(tmp_path, """\
        play:
          may_expose: |
            count(trick_cards) == 2 and "JS" in trick_cards and "9S" in trick_cards
            and eldest in trick_seats and next(eldest) in trick_seats and not (me in trick_seats)
            and beats("JS", "9S") and not beats("9S", "JS") and not beats("AS", "JS")
            and not beats("AS", "9S") and not beats("JH", "9S") and beats("JH", none)
            and not beats(none, "7S") and not beats("JS", "JS")
        """)
    st = g5_play(v)
    do(st, "0 play JS", "1 play 9S")
    assert v.may_expose(st, 2, None, None) is True


def test_beats_before_the_lead_takes_the_second_card_as_led(tmp_path):
    """Before the lead (trump S open): beats(a, b) counts b as led. KH beats QH (same suit,
    K above Q); QD does not beat 7H (7H counts as led; QD neither trump nor of it); 7S (a
    trump) beats JH; JH does not beat 7S."""
    v = variant_file(tmp_path, """\
        play:
          may_expose: |
            leading and beats("KH", "QH") and not beats("QD", "7H") and beats("7S", "JH")
            and not beats("JH", "7S")
        """)
    st = g5_play(v)
    assert v.may_expose(st, 0, None, None) is True


# -- 3. card sets, rank comparison --------------------------------------------------------
def test_card_sets_and_ranks(tmp_path):
    """Seat 0 of G5 holds JS QS 7H AH 9D AD TC 9C. above(hand, "A") = the J and 9s:
    JS 9D 9C (3); below(hand, "T") = QS 7H (2); above(in_suit(hand, "D"), rank("AD"))
    = 9D; union(in_suit(hand, "S"), in_suit(hand, "H")) = 4 cards; difference(hand,
    in_suit(hand, "S")) = 6; intersection(hand, in_suit(hand, "C")) = 2; union of a set
    with itself counts each card once; rank comparisons in the order of strength:
    J > 9 > A > T, Q < K, rank(none) below every rank."""
    v = variant_file(tmp_path, """\
        play:
          may_expose: |
            count(above(hand, "A")) == 3 and "9C" in above(hand, "A")
            and count(below(hand, "T")) == 2 and "QS" in below(hand, "T")
            and count(above(in_suit(hand, "D"), rank("AD"))) == 1
            and "9D" in above(in_suit(hand, "D"), rank("AD"))
            and count(union(in_suit(hand, "S"), in_suit(hand, "H"))) == 4
            and count(difference(hand, in_suit(hand, "S"))) == 6
            and count(intersection(hand, in_suit(hand, "C"))) == 2
            and count(union(hand, hand)) == 8
            and "J" > "9" and "9" > "A" and "A" > "T" and "Q" < "K" and rank("7C") < rank("8S")
            and rank(none) < "7" and count(above(hand, rank(none))) == 8
            and count(below(hand, rank(none))) == 0
        """)
    st = g5_play(v)
    assert v.may_expose(st, 0, None, None) is True


# -- 4. let and define ----------------------------------------------------------------------
def test_let_names_parts_of_a_rule(tmp_path):
    """`let` names a value for the rest of the rule: G5, seat 0 holds JS QS (two spades,
    the jack among them), seat 1 9S KS (two, no jack), seat 2 AS 8S, seat 3 TS 7S. The
    rule holds for seat 0 only. A let of a constant (k = 2) is folded."""
    v = variant_file(tmp_path, """\
        play:
          may_expose: |
            let k = 2;
            let spades = in_suit(hand, "S");
            let n = count(spades);
            n == k and "JS" in spades
        """)
    st = g5_play(v)
    assert [v.may_expose(st, seat, None, None) for seat in range(4)] == [True, False, False, False]
    assert "_v0" not in v.sources["play.may_expose"]   # k folded away
    assert "_v1 = " in v.sources["play.may_expose"]    # spades computed once


def test_define_is_usable_in_every_rule(tmp_path):
    """Named expressions of the file's define: map, one built on another and one read in
    two rules, one of them a hook with its own names (`card` in counts_as_trump):
    `is_trump` gives the shipped 29's counts_as_trump, so G5 plays as in 29 (side 0 takes
    15 points, docs/rules.md §G G5); `jack_of_spades_seat` holds for seat 0 (JS) only."""
    from tests.helpers.rules import play_g5
    v = variant_file(tmp_path, """\
        define:
          is_trump: suit(card) == trump
          spades: in_suit(hand, "S")
          jack_of_spades_seat: '"JS" in spades'
        play:
          counts_as_trump: is_trump
          may_expose: jack_of_spades_seat and count(spades) == 2
        """)
    st = g5_play(v)
    assert [v.may_expose(st, seat, None, None) for seat in range(4)] == [True, False, False, False]
    play_g5(st)
    assert st.side_points == [15, 14]


# -- the house rule: 28 without undertrumping -------------------------------------------------
# Dealer 3, eldest 0. Seat 0 bids 14 and lays 7S face down (trump S). First packets are
# the first four cards of each row.
NU28 = hands("7S AH TH KH QH 8H 7H AC",
             "9S AS JD 9D AD TD KD QD",
             "JS 8S 8D 7D JC 9C TC KC",
             "JH 9H TS KS QS QC 8C 7C")


def nu28(name: str) -> State:
    st = new_state(name, NU28)
    do(st, "0 bid 14", "1 pass", "2 pass", "3 pass", "0 trump-card 7S")
    assert st.phase == "play" and st.to_act == 0
    return st


def test_house_28_no_undertrump_on_a_trump_winning_trick():
    """Trick 1: seat 0 leads AH; seat 1, void in hearts, exposes (trump S is public, 7S
    goes to seat 0's hand) and must play a trump (§28.7): 9S or AS; he plays 9S, which
    counts as a trump (played after the exposure) and wins the trick so far. Seat 2, void
    in hearts, holds JS 8S: JS beats 9S, 8S does not, so 8S is refused and every other
    card allowed (JS, and the diamonds and clubs). In shipped 28 (§28.9) he may play
    any card, 8S included. Seat 3 holds JH 9H and follows suit."""
    for name, seat2 in (("house/28-no-undertrump", "JS 8D 7D JC 9C TC KC"),
                        ("28", "JS 8S 8D 7D JC 9C TC KC")):
        st = nu28(name)
        do(st, "0 play AH")
        assert "expose" in st.legal_actions()
        do(st, "1 expose")
        assert st.trump_exposed and card_plays(st) == set(plays("9S AS"))
        do(st, "1 play 9S")
        assert st.trick_winner() == 1
        assert card_plays(st) == set(plays(seat2)), name
        if name != "28":
            illegal(st, "play 8S")
        do(st, "2 play 8D")
        assert card_plays(st) == set(plays("JH 9H"))
        do(st, "3 play 9H")
        assert st.tricks[-1][2] == 1


def test_house_28_no_undertrump_only_when_a_trump_wins():
    """Trick 2 (after trick 1 above, won by seat 1): seat 1 leads JD, seat 2 follows with
    7D; seat 3, void in diamonds, faces JD, not a trump: every trump beats it, so any
    card: JH TS KS QS QC 8C 7C. He plays QS, now winning; seat 0, void in diamonds,
    holds 7S (below QS) and hearts and AC: all but 7S."""
    st = nu28("house/28-no-undertrump")
    do(st, "0 play AH", "1 expose", "1 play 9S", "2 play 8D", "3 play 9H")
    do(st, "1 play JD")
    assert card_plays(st) == set(plays("7D"))
    do(st, "2 play 7D")
    assert card_plays(st) == set(plays("JH TS KS QS QC 8C 7C"))
    do(st, "3 play QS")
    assert card_plays(st) == set(plays("TH KH QH 8H 7H AC"))
    illegal(st, "play 7S")


def test_house_28_no_undertrump_is_small():
    """Issue 11's bar for a house-rule file: under 60 lines, no rule over 1,000 characters,
    a cited source; its rulebook is in docs/rules."""
    from tests.helpers import ROOT
    text = (ROOT / "variants" / "house" / "28-no-undertrump.yaml").read_text()
    assert len(text.splitlines()) < 60
    v = load_variant("house/28-no-undertrump")
    rules = [v.data["play"]["may_play"], *v.data["define"].values()]
    assert all(len(r) < 1000 for r in rules)
    assert "Wikipedia" in v.data["source"]
    assert (ROOT / "docs" / "rules" / "house" / "28-no-undertrump.md").is_file()
