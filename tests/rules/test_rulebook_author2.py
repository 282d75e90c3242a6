"""The rulebook of the second round of games a fresh author wrote from the docs alone
(issue 42; tests/variants/author-*.yaml, copied as written) states what the engine
plays: the misstatements that author found, each with the words worked out by hand from
the file's rules."""

from __future__ import annotations

from taash.interpreter import State, load_variant
from taash.interpreter.rulebook import render
from taash.interpreter.wording import rule_words

from tests.helpers import ROOT

VARIANTS = ROOT / "tests" / "variants"
PITCH = VARIANTS / "author-auction-pitch.yaml"


def test_an_empty_card_is_no_card_and_an_empty_seat_nobody():
    """Auction Pitch keeps `high` (a card) and `high_by` (a seat), each `none` at the
    start of a deal: the card is "no card" where it is tested, set and started, the seat
    "nobody"."""
    v = load_variant(PITCH)
    book = render(v)
    assert ("- when the suit of c is trump and (`high` is no card or the rank of c ranks above the rank "
            "of `high`): `high` becomes c") in book
    assert ("- `high` (a card, shown to every player): the highest trump played so far; set at the "
            "start of every deal, to no card.") in book
    assert ("- `high_by` (a seat, shown to every player): who played the highest trump; set at the "
            "start of every deal, to nobody.") in book
    assert "`high` is nobody" not in book
    assert rule_words("high = none", effect=True, v=v) == "- `high` becomes no card"
    assert rule_words("high_by = none", effect=True, v=v) == "- `high_by` becomes nobody"
    assert rule_words("high_by == none", v=v) == "`high_by` is nobody"


def test_a_game_that_never_has_trump_states_no_trump_rule(tmp_path):
    """Bhabhi: no `trump:` section, no effect sets trump, the default `counts_as_trump`:
    no card ever counts as a trump, so the Play section says the trick goes to the
    highest card of the suit led, and nothing of trump. Bridge sets trump in play (an
    `after_card` effect) and keeps both sentences; so does a file whose own
    `counts_as_trump` makes the jacks trump though no suit is."""
    bhabhi = load_variant(VARIANTS / "author-bhabhi.yaml")
    play = render(bhabhi).split("## Play\n\n", 1)[1].split("\n## ", 1)[0]
    assert "counts as a trump" not in play
    assert "The trick goes to the highest card of the suit led." in play.split("\n")
    # the engine agrees: at the start (trump none) no card of the deck counts as a trump
    st = State(bhabhi, dealer=0, seed=1)
    assert st.trump == -1
    assert not any(bhabhi.counts_as_trump(st, 0, c, False) for c in bhabhi.deck.ids)
    kept = ("A card counts as a trump when: the suit of the card is trump.\n"
            "The trick goes to the highest card counting as a trump, else to the highest card of the suit led.")
    assert kept in render(load_variant(VARIANTS / "author-bridge.yaml"))
    jacks = tmp_path / "jacks.yaml"
    jacks.write_text((VARIANTS / "author-bhabhi.yaml").read_text().replace(
        "  may_play: in_suit(hand, led) otherwise hand\n",
        "  may_play: in_suit(hand, led) otherwise hand\n  counts_as_trump: rank(card) == \"J\"\n"))
    assert ("A card counts as a trump when: the rank of the card is jack.\nThe trick goes to the highest card "
            "counting as a trump") in render(load_variant(jacks))


def test_a_bid_read_through_a_named_expression_is_the_target():
    """Auction Pitch's `made: pts(declarer) >= bid` and Bridge's scoring (`level: (bid +
    4) // 5`, a named expression) read the bid the auction ended at, after the auction:
    the bid is the target. Thunee reads `high_bid` only in its auction rules (whether a
    bid may be made, when the auction ends): no rule reads the bid as a target."""
    for name in ("author-auction-pitch.yaml", "author-bridge.yaml"):
        book = render(load_variant(VARIANTS / name))
        assert "The high bidder is the declarer and his bid the target." in book, name
        assert "no rule reads his bid" not in book, name
    assert "The high bidder is the declarer; no rule reads his bid as a target." in render(
        load_variant(VARIANTS / "author-thunee.yaml"))
