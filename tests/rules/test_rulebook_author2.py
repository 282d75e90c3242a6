"""The rulebook of the second round of games a fresh author wrote from the docs alone
(issue 42; tests/variants/author-*.yaml, copied as written) states what the engine
plays: the misstatements that author found, each with the words worked out by hand from
the file's rules."""

from __future__ import annotations

from taash.interpreter import load_variant
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
