"""The shipped bots read a deck that is not every card of its suits and ranks, and points
per suit or card, from the variant's data (docs/protocol.md, `variant_json`): the guide's
worked example, docs/examples/queen-hunt.yaml (32 cards less 7C and 7D; every heart 1,
the queen of spades 13)."""

from __future__ import annotations

from pathlib import Path

from taash.arena.bots.heuristic import HeuristicBot
from taash.interpreter import load_variant
from taash.interpreter.rulebook import rulebook

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "queen-hunt.yaml"


def test_heuristic_bot_counts_the_deck_and_its_points():
    bot = HeuristicBot(load_variant(EXAMPLE).data)
    assert len(bot.deck_cards) == 30 and "7C" not in bot.deck_cards and "7S" in bot.deck_cards
    assert (bot.pts("QS"), bot.pts("QH"), bot.pts("7H"), bot.pts("AS")) == (13, 1, 1, 0)
    assert bot.total == 21


def test_a_deck_written_card_by_card_names_its_cards(tmp_path):
    p = tmp_path / "small.yaml"
    p.write_text(f"extends: {EXAMPLE}\nname: small\ndeck:\n  exclude: null\n  total: null\n"
                 "  cards: [AS, KS, QS, AH, KH, QH]\nflow:\n  - deal: [2]\n  - play\n")
    v = load_variant(p)
    words = dict(rulebook(v))["Deck and points"]
    assert words.startswith("6 cards: A K Q J T 9 8 7 (strongest first) in spades, hearts, diamonds, "
                            "clubs; only these: AS KS QS AH KH QH.")
    bot = HeuristicBot(v.data)
    assert sorted(bot.deck_cards) == sorted(["AS", "KS", "QS", "AH", "KH", "QH"])
