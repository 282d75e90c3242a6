"""`taash rules`: every shipped variant reads as a rulebook; --diff shows only differences."""

import re
from pathlib import Path

import pytest

from taash.interpreter import State, load_variant, shipped_variants
from taash.interpreter.rulebook import diff, render, rulebook, rule_words

from tests.helpers.rules import do

ROOT = Path(__file__).resolve().parents[2]
SECTIONS = ["Players", "Deck and points", "Deal", "Auction", "Trump", "Play", "Scoring", "Match"]


@pytest.mark.parametrize("name", shipped_variants())
def test_every_variant_renders_every_section(name):
    v = load_variant(name)
    titles = [t for t, _ in rulebook(v)]
    for s in SECTIONS:
        # a flow without an auction has a Contract section instead
        assert s in titles or (s == "Auction" and not v.has_auction and "Contract" in titles)
    text = render(v)
    assert text.startswith(f"# {v.title}")
    assert f"{v.total} points in all" in text or (v.total == 0 and "No card has points." in text)


def test_29_deck_and_declarations_in_words():
    text = render(load_variant("29"))
    assert "32 cards: J 9 A T K Q 8 7 (strongest first)" in text
    assert "The last trick is worth 1. 29 points in all." in text
    assert "the player holds the king of trump and the player holds the queen of trump" in text
    assert "the target goes down by 4" in text


def test_diff_shows_only_the_scoring_of_21_scores_2():
    out = diff(load_variant("house/29-21-scores-2"), load_variant("29"))
    assert "## Scoring" in out
    assert "goes up by 2 if the bid is at least 21, else 1" in out
    for s in ["## Auction", "## Play", "## Deck and points", "## Match"]:
        assert s not in out


def test_diff_of_no_last_trick_names_deck_and_auction():
    out = diff(load_variant("house/29-no-last-trick"), load_variant("29"))
    assert "## Deck and points" in out and "## Auction" in out
    assert "28 points in all" in out and "from 15 to 28" in out
    assert "## Scoring" not in out


def test_diff_quotes_a_section_only_the_base_has():
    """29 has no options, 56 has two: the diff says 29 has none and quotes 56's, as it
    quotes every other section of the base (it printed `None (the base has: Change one
    ...)`, the base's Markdown list inside parentheses)."""
    out = diff(load_variant("29"), load_variant("56"))
    options = out.split("## Options\n")[1]
    quoted = "\n".join(f"> {line}" for line in dict(rulebook(load_variant("56")))["Options"].splitlines())
    assert options == f"\nNone.\n\nInstead of (Fifty-six):\n\n{quoted}\n"
    assert quoted.startswith("> Change one with `--set NAME=VALUE`; this rulebook is for the values "
                             "shown.\n> - `players`: 6 (one of 4, 6, 8)")


def test_diff_with_itself_is_empty():
    assert "No difference." in diff(load_variant("28"), load_variant("28"))


def test_rule_words_reads_like_a_sentence():
    assert rule_words("number >= 20 or high_bidder == none") == \
        "the bid is at least 20 or the high bidder is nobody"
    assert rule_words('in_suit(hand, led) otherwise hand') == \
        "any card in hand of the suit led; if none, any card in hand"



def test_none_assigned_reads_by_the_type_set():
    """`trump = none` leaves no trump (a suit); `declarer = none` leaves no contract (a
    seat); trump set to a suit reads as it is."""
    assert rule_words("trump = none", effect=True) == "- there is no trump from then on"
    assert rule_words("trump = suit(played(winner))", effect=True) == \
        "- trump becomes the suit of the card played by the winner of the trick"
    assert rule_words("declarer = none", effect=True) == "- the deal goes on without a contract"


def test_counts_read_as_numbers_and_for_reads_each_seat():
    """A count is "the number of ..." (it is compared as one); `for s in seats` is "for
    each seat s"."""
    assert rule_words("seat_tricks(declarer) >= target") == \
        "the number of tricks won by the declarer is at least the target"
    assert rule_words('declared("alone") > 0') == "the number of times alone was declared is more than 0"
    assert rule_words("for s in seats: score[s] -= seat_points(s)", effect=True) == \
        "- for each seat s: the score of s goes down by the points won by s"


# an item left empty: "Points: ; other cards 0", "when: .", "a, , b", "()", a bare "- "
EMPTY_ITEM = re.compile(r":\s*[;.,]|[;,]\s*[;,.]|\(\s*\)|:\s*$|^\s*-\s*$|\s[;,.]")


def empty_items(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if not ln.startswith("#") and EMPTY_ITEM.search(ln)]


def test_empty_item_pattern_finds_the_known_case():
    assert empty_items("Points: ; other cards 0.") and empty_items("- ") and empty_items("when: .")
    assert not empty_items("Points: jack 3, nine 2; other cards 0. 29 points in all.")


@pytest.mark.parametrize("name", shipped_variants())
def test_no_line_of_a_rulebook_has_an_empty_item(name):
    # lines that end with ':' introduce a list below them; every other line is checked
    text = render(load_variant(name))
    lines = [ln for ln in text.splitlines() if not ln.rstrip().endswith(":")]
    assert empty_items("\n".join(lines)) == []


def test_a_deck_without_points_says_so(tmp_path):
    p = tmp_path / "nopoints.yaml"
    p.write_text('extends: "29"\nname: nopoints\ndeck:\n  points: {J: 0, "9": 0, A: 0, T: 0}\n'
                 '  total: 0\n  last_trick: 0\n')
    sec = dict(rulebook(load_variant(p)))["Deck and points"]
    assert sec.splitlines()[1] == "No card has points."
    assert empty_items(sec) == []


def test_issue_11_constructs_in_words():
    """Seats, quantifiers, beats, sets, rank comparison and let read as plain words."""
    assert rule_words("any(s in opponents(me): played(s) != none)") == \
        "for some s among the opponents of the player, the card played by s exists"
    assert rule_words("all(s in partners(me): played(s) == none)") == \
        "for every s among the partners of the player, the card played by s is no card"
    assert rule_words("those(c in hand: beats(c, winning_card))") == \
        "those c among any card in hand for which c beats the card winning the trick so far"
    assert rule_words('rank(winning_card) > "A"') == \
        "the rank of the card winning the trick so far ranks above ace"
    assert rule_words("next(dealer) == partner_of(declarer)") == \
        "the player after the dealer is the partner of the declarer"
    assert rule_words("difference(hand, above(hand, \"T\"))") == \
        "any card in hand except any card in hand ranking above ten"
    assert rule_words("let t = in_suit(hand, trump);\nt otherwise hand") == \
        "let *t* be any card in hand of trump; then\nt; if none, any card in hand"


def test_named_expressions_section_of_no_undertrump():
    """house/28-no-undertrump: its define: map is a section of the rulebook; the rest
    differs from 28 only in play."""
    v = load_variant("house/28-no-undertrump")
    secs = dict(rulebook(v))
    assert secs["Named expressions"].splitlines()[1:] == [
        "- *void*: the number of cards in hand of the suit led is 0",
        "- *lower trumps*: those c among any card in hand of trump for which not (c beats "
        "the card winning the trick so far)"]
    assert "when trump is exposed and void: any card in hand except lower trumps; if none, "\
           "any card in hand" in secs["Play"]
    out = diff(v, load_variant("28"))
    assert "## Play" in out and "## Named expressions" in out and "## Auction" not in out


def test_one_allowed_bid_a_multi_line_define_and_an_empty_suit(tmp_path):
    p = tmp_path / "r.yaml"
    p.write_text('extends: "29"\nname: r\nauction:\n  min_bid: 16\n  max_bid: 16\n'
                 'define:\n  strong: |\n    when count(hand) > 4: true\n    else: false\n'
                 'scoring:\n  made: strong and trump == none\n')
    text = render(load_variant(p))
    # one number: not "from 16 to 16"
    assert "The only bid is 16: once it is made, no higher bid is possible." in text
    assert "from 16 to 16" not in text
    # the cases of a named expression stay under its own item
    assert ("- *strong*:\n  - when the number of cards in hand is more than 4: true\n"
            "  - otherwise: false") in text
    # a suit that is none is no suit, not "nobody"; a seat that is none is nobody
    assert "The contract is made when: strong and trump is none (no suit)." in text
    assert "the high bidder is nobody" in render(load_variant("28"))


def test_further_copies_of_a_card_are_counted(tmp_path):
    """29's deck without three sevens, plus `extra: [AS, AS, KH]` (32 cards still): the
    ace of spades three times (two more copies), the king of hearts twice (another copy)."""
    p = tmp_path / "copies.yaml"
    p.write_text('extends: "29"\nname: copies\ndeck:\n  exclude: [7S, 7H, 7D]\n  extra: [AS, AS, KH]\n'
                 '  total: null\n')
    sec = dict(rulebook(load_variant(p)))["Deck and points"]
    assert ("with two more copies of the ace of spades, another copy of the king of hearts "
            "(of identical cards the first played wins)") in sec
    assert "the ace of spades, the ace of spades" not in sec


def test_a_plural_count_agrees_with_its_verb():
    """29's card points "are at least"; a count of tricks reads "the number of tricks ...
    is at least" (court piece is made when the declarer's side wins 7 tricks); a singular
    value stays "is"."""
    text = render(load_variant("court-piece"))
    assert "the number of tricks won by the declarer's side is at least the target" in text
    assert "are at least the target" not in text
    assert "the points won by the declarer's side are at least the target" in render(load_variant("29"))
    assert "the bid is at least 21" in render(load_variant("house/29-21-scores-2"))


def test_nested_conditionals_keep_their_grouping():
    """Issue 42: `(1 if made else -1) if target > 16 else 0` read as "1 if the contract is
    made, else minus 1 if the target is more than 16, else 0", the other grouping."""
    assert rule_words("(1 if made else -1) if target > 16 else 0") == \
        "(1 if the contract is made, else minus 1) if the target is more than 16, else 0"
    assert rule_words("1 if made else (-1 if target > 16 else 0)") == \
        "1 if the contract is made, else minus 1 if the target is more than 16, else 0"
    assert rule_words("1 if (target > 16 if made else bid > 20) else 0") == \
        "1 if (the target is more than 16 if the contract is made, else the bid is more than 20), else 0"
    assert rule_words("(bid + 1) * 2 - -(tricks - 1)") == \
        "(the bid plus 1) times 2 minus minus (the number of tricks minus 1)"
    assert rule_words("made or bid > 20 and not doubled") == \
        "the contract is made or (the bid is more than 20 and not (the contract is doubled))"


def test_nested_when_in_an_effect_is_indented():
    assert rule_words("when made: when bid > 20: target += 2 else: target += 1", effect=True) == (
        "- when the contract is made:\n"
        "  - when the bid is more than 20: the target goes up by 2\n"
        "  - otherwise: the target goes up by 1")
    assert rule_words("when made: target += 2 else: when bid > 20: target += 1", effect=True) == (
        "- when the contract is made: the target goes up by 2\n"
        "- otherwise:\n"
        "  - when the bid is more than 20: the target goes up by 1")


def test_true_and_false_as_values_are_not_always_and_never():
    assert rule_words("true") == "always" and rule_words("false") == "never"
    assert rule_words("true", value=True) == "true"
    assert rule_words("made == false") == "the contract is made is false"
    assert rule_words("when leading: false\nelse: true") == "- when the player leads: false\n- otherwise: true"


def test_seats_around_the_dealer_as_players_say_them():
    """4 players clockwise: the next seat is the dealer's left, the one across his
    partner, the last his right; counter-clockwise left and right swap; 6 players: the
    seat across is an opponent."""
    v29, v56 = load_variant("29"), load_variant("56")
    assert rule_words("eldest", v=v29) == "the eldest (the dealer's left)"
    assert [rule_words(t, v=v29) for t in ("next(dealer)", "next(next(dealer))", "previous(dealer)",
                                           "next(eldest)", "previous(eldest)")] == [
        "the dealer's left", "the dealer's partner", "the dealer's right", "the dealer's partner",
        "the dealer"]
    assert rule_words("eldest", v=load_variant("court-piece")) == "the eldest (the dealer's right)"
    assert [rule_words(t, v=v56) for t in ("next(dealer)", "next(next(dealer))",
                                           "next(next(next(dealer)))", "previous(dealer)")] == [
        "the dealer's right", "the second player after the dealer", "the player opposite the dealer",
        "the dealer's left"]
    assert rule_words("next(declarer)", v=v29) == "the player after the declarer"
    # without a next_dealer rule the deal passes to next(dealer): his left in 29, right in 56
    assert dict(rulebook(v29))["Deal"].startswith("After each deal the deal passes to the dealer's left.")
    assert dict(rulebook(v56))["Deal"].startswith("After each deal the deal passes to the dealer's right.")


def test_the_made_rule_is_the_files_or_said_to_be_the_default():
    """56 states no `made`: its rulebook gives the engine's rule as the default; 29
    states its own."""
    assert "The contract is made when the points won by the declarer's side are at least the " \
           "target (the rule when a file states none)." in dict(rulebook(load_variant("56")))["Scoring"]
    assert dict(rulebook(load_variant("29")))["Scoring"].startswith(
        "The contract is made when: the points won by the declarer's side are at least the target.")


def test_options_presets_standing_bid_and_partnerships_are_stated():
    """Issue 42: an option's description and choices, the presets, what happens when all
    pass (with and without a standing bid), the secret called partner, each for himself."""
    secs = dict(rulebook(load_variant("56")))
    assert secs["Options"].splitlines()[1:] == [
        "- `players`: 6 (one of 4, 6, 8): number of players (§56.1)",
        "- `short_deck`: false (true or false): 4 players without K and Q (32 cards); 8 players "
        "with the 48-card deck (§56.2)",
        "Presets: the parts of the file that apply when a condition on the options holds (each "
        "over the file and the presets before it):",
        "- when the number of players is 4 and not (short deck): "
        "`{players: 4, flow: [{deal: [4, 4, 4]}, auction, play]}`",
        "- when the number of players is 4 and short deck: `{players: 4, deck: {ranks: [J, '9', A, T]}}`",
        "- when the number of players is 8 and not (short deck): "
        "`{players: 8, deck: {ranks: [J, '9', A, T, K, Q, '8', '7']}}`",
        "- when the number of players is 8 and short deck: `{players: 8, flow: [{deal: [3, 3]}, auction, play]}`"]
    four = dict(rulebook(load_variant("56", {"players": 4})))["Options"]
    assert "- `players`: 4 (one of 4, 6, 8; by default 6): number of players (§56.1)" in four
    assert secs["Auction"].endswith("If the auction ends with no bid, the deal is thrown in: nothing "
                                    "is scored, and the next deal is dealt as after any other.")
    s304 = dict(rulebook(load_variant("304")))
    assert s304["Auction"].endswith("If nobody bids over the standing bid, the dealer is the declarer "
                                    "and 150 his target.")
    assert ("Only the partner knows it until he plays the called card (or makes a declaration). "
            "A trick counts for the side its winner is on when it is won: the partner's for the "
            "declarer's side, those won before he is known too.") in s304["Players"]
    alone = dict(rulebook(load_variant(ROOT / "docs/examples/three-hand-alone.yaml")))["Players"]
    assert "each player plays for himself, a side of his own (so the declarer's side is the " \
           "declarer alone, and the player's side the player)" in alone


def test_all_pass_against_the_standing_bid_as_the_rulebook_says():
    """304: seats 1, 2 and 3 pass and so does the dealer (seat 0): he is the declarer at
    the standing bid 150, as the Auction section says."""
    v = load_variant("304")
    st = State(v, dealer=0, seed=3)
    do(st, "1 pass", "2 pass", "3 pass", "0 pass")
    assert (st.declarer, st.target) == (0, 150)
