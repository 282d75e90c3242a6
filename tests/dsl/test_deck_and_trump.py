"""Any deck (cards written one by one, less named cards, with extra cards), points by rank,
suit or card, no trump or trump set in play, and whom a set-aside widow's points count for
(docs/authoring.md, "The deck" and "No trump, or trump set in play"). The worked example
is docs/examples/queen-hunt.yaml (not a shipped game), also printed in the guide; every
figure below is worked out by hand from the rules and the deals written here."""

from __future__ import annotations

from pathlib import Path

import pytest

from taash.interpreter import State, VariantError, load_variant
from taash.interpreter.rulebook import render, rulebook

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "queen-hunt.yaml"

# dealer 0, eldest 1, third seat 2; hands per seat in the order dealt (10 each, 30 cards:
# the 32-card deck without 7C and 7D)
HANDS = [["9H", "8H", "7H", "9D", "8D", "QC", "JC", "TC", "9C", "8C"],
         ["AS", "KS", "JS", "TS", "9S", "AH", "KH", "AD", "KD", "AC"],
         ["QS", "8S", "7S", "QH", "JH", "TH", "QD", "JD", "TD", "KC"]]


def problems(tmp_path, text: str) -> list[tuple[int, int, str]]:
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(VariantError) as info:
        load_variant(p)
    return [(pr.line, pr.column, pr.message) for pr in info.value.problems]


# -- the worked example ------------------------------------------------------------------
def test_the_guide_prints_the_worked_example_as_the_file_holds_it():
    guide = (ROOT / "docs" / "authoring.md").read_text()
    body = EXAMPLE.read_text().split("\nname: queen-hunt\n", 1)[1]
    assert "name: queen-hunt\n" + body in guide


def test_worked_example_deck_and_points():
    v = load_variant(EXAMPLE)
    d = v.deck
    # 4 suits x 8 ranks = 32, less 7C and 7D
    assert len(d.all_cards) == 30 and v.tricks == 10
    assert "7C" not in d.card_index and "7D" not in d.card_index and "7S" in d.card_index
    # eight hearts at 1 and the queen of spades at 13; the queen of hearts is a heart (1)
    assert v.total == 21 and d.total_points() == 21
    assert d.point_of[d.parse("QS")] == 13 and d.point_of[d.parse("QH")] == 1
    assert d.point_of[d.parse("QD")] == 0 and v.trump_mode == "none"
    with pytest.raises(ValueError):
        d.parse("7C")


def test_worked_example_trump_is_set_by_the_first_card_off_suit():
    """Trick 1: eldest (1) leads AS, seat 2 follows with 8S, the dealer (0) has no spade
    and plays 9H: hearts become trump, after the trick, which AS wins (1 heart: 1 point to
    seat 1). Trick 2: KS, QS (seat 2 must follow), and the dealer ruffs with 8H: it wins
    as a trump, taking the queen of spades and a heart, 14 points."""
    v = load_variant(EXAMPLE)
    st = State(v, dealer=0, hands=HANDS)
    assert st.trump == -1 and all(st.observation(s)["trump"] is None for s in range(3))
    for a in ("play AS", "play 8S"):
        st.apply(a)
    st.apply("play 9H")
    assert st.tricks[-1][2] == 1 and st.seat_points == [0, 1, 0]
    # every seat sees the trump now, in the engine's own field and its observation
    assert st.trump == v.deck.suits.index("H")
    assert [st.observation(s)["trump"] for s in range(3)] == ["H", "H", "H"]
    for a in ("play KS", "play QS", "play 8H"):
        st.apply(a)
    assert st.tricks[-1][2] == 0 and st.seat_points == [14, 1, 0]
    while not st.is_terminal:
        st.apply(st.legal_actions()[0])
    # every point was taken by someone; each seat's score is minus what it took
    assert sum(st.seat_points) == 21
    assert st.scores == [-p for p in st.seat_points]
    assert st.result()["trump"] == "H"


@pytest.mark.parametrize("rule", [
    # the guide's: trump set as the card is played (play.after_card)
    "  after_card: |\n    when no_trump and suit(played(me)) != led: trump = suit(played(me))\n",
    # the same said of the cards in the trick, for three players
    "  counts_as_trump: |\n"
    "    suit(card) == trump or (no_trump and suit(card) != led and (me == next(leader)\n"
    "      or (me == next(next(leader)) and suit(played(next(leader))) == led)))\n"])
def test_the_first_card_off_suit_may_win_its_own_trick(tmp_path, rule):
    """The dealer's 9H, the first card off suit, is a trump in trick 1 already and wins
    it (AS 8S 9H: 1 point to seat 0); trump is hearts from then on."""
    p = tmp_path / "at-once.yaml"
    p.write_text(BASE + "play:\n" + rule)
    st = State(load_variant(p), dealer=0, hands=HANDS)
    for a in ("play AS", "play 8S", "play 9H"):
        st.apply(a)
    assert st.tricks[-1][2] == 0 and st.seat_points == [1, 0, 0] and st.trump == 1


def test_worked_example_match_replays_from_its_record():
    """A whole match of the example (to -50) replays from its record to the same result,
    trump set in play included; every deal deals the 30 cards, ten each."""
    import random

    from taash.interpreter import Match, replay, replay_json
    v = load_variant(EXAMPLE)
    m = Match(v, 7)
    rng = random.Random(7)
    trumps = set()
    while not m.over:
        s = m.new_deal()
        assert sorted(c for h in s.dealt for c in h) == v.deck.all_cards
        while not s.is_terminal:
            s.apply(rng.choice(s.legal_actions()))
        trumps.add(s.result()["trump"])
        m.finish_deal(s)
    assert min(m.scores) <= -50 and trumps - {None}
    assert replay_json(replay(m.record())) == replay_json(m)


def test_worked_example_rulebook_words():
    text = render(load_variant(EXAMPLE))
    assert "30 cards: A K Q J T 9 8 7 (strongest first) in spades, hearts, diamonds, clubs; " \
           "without the seven of diamonds, the seven of clubs." in text
    assert "Points: every heart 1, the queen of spades 13; other cards 0. 21 points in all." in text
    assert "A deal starts without trump" in text and "every player then knows it" in text
    assert "trump becomes the suit of the card played by second" in text


# -- decks ---------------------------------------------------------------------------------
BASE = f"extends: {EXAMPLE}\nname: child\n"


def test_cards_written_one_by_one_with_a_copy_and_extra(tmp_path):
    """A deck of 12 cards written out, AS twice, plus one more KH: 13 cards, AS twice."""
    p = tmp_path / "d.yaml"
    p.write_text(BASE + "players: 3\ndeck:\n  exclude: null\n  total: null\n"
                 "  cards: [AS, AS, KS, QS, AH, KH, QH, AD, KD, QD, AC, KC]\n  extra: [KH]\n"
                 "  points: {A: 4, H: 2, KH: 10, QS: null}\nflow:\n  - deal: [4]\n  - widow: 1\n"
                 "    set_aside: true\n    points_to: nobody\n  - play\n")
    v = load_variant(p)
    d = v.deck
    assert len(d.all_cards) == 13 and d.count[d.parse("AS")] == 2 and d.count[d.parse("KH")] == 2
    assert d.max_copies == 2 and "JS" not in d.card_index and "7S" not in d.card_index
    # (the parent's QS: 13 removed) aces 4: AS twice, AD, AC = 16 (the ace of hearts is a
    # heart: 2); hearts 2: AH, QH = 4; the king of hearts 10, twice: 20; 16 + 4 + 20 = 40
    assert d.total_points() == 40


@pytest.mark.parametrize("deck, where, message", [
    ("  exclude: [7C, XY]\n", (4, 17), '"XY" is not a card'),
    ("  exclude: [7C, 6D]\n", (4, 17), "6D is of rank 6, which is not in deck.ranks"),
    ("  exclude: [7C, 7C]\n", (4, 17), '"7C" is written twice'),
    ("  cards: [AS, KS]\n  exclude: [QS]\n", (5, 13), "QS is excluded but is not in the deck"),
    ("  extra: [AS, 2S]\n", (4, 15), "2S is of rank 2, which is not in deck.ranks"),
    ("  points: {H: 1, QS: 13, 7C: 2}\n", (4, 26), "points given for the card 7C, which is not in the deck"),
    ("  points: {H: 1, XS: 13}\n", (4, 18), 'points given for "XS", which is not a rank, a suit or a card'),
])
def test_deck_problems_are_located(tmp_path, deck, where, message):
    probs = problems(tmp_path, BASE + "deck:\n" + deck)
    assert any((line, col) == where and message in msg for line, col, msg in probs), probs


def test_a_rule_naming_a_card_left_out_is_refused(tmp_path):
    probs = problems(tmp_path, BASE + 'play:\n  may_play: hand if "7C" in hand else hand\n')
    assert any('"7C" is not a card of this deck' in m for _, _, m in probs), probs


def test_the_deal_checks_given_hands_against_the_deck():
    v = load_variant(EXAMPLE)
    bad = [h[:] for h in HANDS]
    bad[0][0] = "7C"          # a card the deck leaves out
    with pytest.raises(ValueError, match="7C"):
        State(v, dealer=0, hands=bad)


# -- trump ---------------------------------------------------------------------------------
@pytest.mark.parametrize("text, message", [
    ("flow:\n  - deal: [5, 5]\n  - trump\n  - play\n", "there is no trump to choose"),
    ("flow:\n  - deal: [5, 5]\n  - trump\n  - play\ntrump:\n  mode: hidden\n"
     "contract:\n  declarer: eldest\n  target: 0\n",
     "this rule sets trump, which needs trump.mode open, bid or none"),
    ("play:\n  after_trick: trump += 1\n", "'+=' changes a number; 'trump' is a suit"),
    ("play:\n  after_trick: trump = 3\n", "the value assigned to 'trump' should be a suit"),
])
def test_trump_problems(tmp_path, text, message):
    probs = problems(tmp_path, BASE + text)
    assert any(message in m for _, _, m in probs), probs


def test_trump_none_is_no_trump_to_the_end_without_a_rule(tmp_path):
    """With no rule setting it, every trick goes to the highest card of the suit led:
    trick 1 AS 8S 9H goes to AS, trick 2 KS QS 8H to KS (seat 1: 1 + 14 points)."""
    p = tmp_path / "nt.yaml"
    p.write_text(BASE + "play:\n  after_trick: null\nscoring:\n  effect: score[dealer] += 0\n")
    st = State(load_variant(p), dealer=0, hands=HANDS)
    for a in ("play AS", "play 8S", "play 9H", "play KS", "play QS", "play 8H"):
        st.apply(a)
    assert st.trump == -1 and [w for _, _, w in st.tricks] == [1, 1] and st.seat_points == [0, 15, 0]


# -- the widow's points --------------------------------------------------------------------
WIDOW = [["9H", "8H", "7H", "9D", "8D", "QC", "JC", "TC", "9C"],
         ["AS", "KS", "JS", "TS", "9S", "AH", "8C", "AD", "KD"],
         ["QS", "8S", "7S", "QH", "JH", "TH", "QD", "JD", "TD"]]
WIDOW_CARDS = ["KH", "KC", "AC"]    # 1 point (a heart)


@pytest.mark.parametrize("points_to, extra", [("declarer", {1: 1}), ("nobody", {}),
                                              ("last_trick", "last")])
def test_a_set_aside_widow_counts_for_whom_the_file_says(tmp_path, points_to, extra):
    p = tmp_path / "w.yaml"
    p.write_text(BASE + f"flow:\n  - deal: [5, 4]\n  - widow: 3\n    set_aside: true\n"
                 f"    points_to: {points_to}\n  - play\n"
                 # the declarer's widow needs a contract: the eldest's, seat 1
                 + ("contract:\n  declarer: eldest\n  target: 0\n" if points_to == "declarer" else ""))
    v = load_variant(p)
    st = State(v, dealer=0, hands=WIDOW, widow=WIDOW_CARDS)
    while not st.is_terminal:
        st.apply(st.legal_actions()[0])
    tricks = st.trick_points()
    if extra == "last":
        extra = {st.tricks[-1][2]: 1}
    assert [st.seat_points[s] - tricks[s] for s in range(3)] == [extra.get(s, 0) for s in range(3)]
    words = render(v)
    assert {"declarer": "its points count for the declarer", "nobody": "its points count for nobody",
            "last_trick": "its points count for the winner of the last trick"}[points_to] in words


def test_rulebook_of_a_deck_with_cards_held_in_different_numbers():
    """tests/variants/mixed-copies.yaml: the 32 cards less the sevens, plus a second copy
    of each ace: 32 cards; points 45 (its file works them out); the widow's go to the
    last trick's winner."""
    v = load_variant(ROOT / "tests" / "variants" / "mixed-copies.yaml")
    assert len(v.deck.all_cards) == 32 and v.deck.count[v.deck.parse("AS")] == 2 and v.total == 45
    secs = dict(rulebook(v))
    assert secs["Deck and points"].startswith(
        "32 cards: A K Q J T 9 8 7 (strongest first) in spades, hearts, diamonds, clubs; without the "
        "seven of spades, the seven of hearts, the seven of diamonds, the seven of clubs; with another "
        "copy of the ace of spades, another copy of the ace of hearts, another copy of the ace of "
        "diamonds, another copy of the ace of clubs (of identical cards the first played wins).\nPoints: every heart 1, the queen of spades 13, ace 4; "
        "other cards 0. 45 points in all.")
    assert "which is set aside unseen: its points count for the winner of the last trick" in secs["Deal"]


def test_a_wrong_points_to_is_located_at_the_word(tmp_path):
    probs = problems(tmp_path, BASE + "flow:\n  - deal: [9]\n  - widow: 3\n    set_aside: true\n"
                                      "    points_to: winner\n  - play\n")
    assert probs == [(7, 16, 'flow.1: points_to: "winner" is not one of "declarer", "last_trick", '
                             '"nobody" (whom the widow\'s points count for)')]


def test_shipped_rulebooks_keep_their_deck_words():
    """A whole rectangle is worded as before: 29's deck line, unchanged."""
    secs = dict(rulebook(load_variant("29")))
    assert secs["Deck and points"].startswith(
        "32 cards: J 9 A T K Q 8 7 (strongest first) in spades, hearts, diamonds, clubs.\n"
        "Points: jack 3, nine 2, ace 1, ten 1; other cards 0.")


# -- a game without a contract ------------------------------------------------------------
def test_worked_example_has_no_contract_and_scores_each_seat():
    """No auction and no `contract:`: nobody is declarer and nothing is made. Deal with
    the HANDS above, dealer 0: trick 1 (AS 8S 9H) to seat 1, 1 point; trick 2 (KS QS 8H,
    hearts trump) to seat 0, 14 points. Seat 0 leads the trick 3: 8D, AD (seat 1 must
    follow), QD: the ace wins, no heart in it, no points. Played on, the deal ends with
    the 21 points all taken, each seat's score minus its own points."""
    v = load_variant(EXAMPLE)
    assert not v.has_contract and not v.has_auction
    st = State(v, dealer=0, hands=HANDS)
    assert st.declarer == -1 and st.to_act == 1
    for a in ("play AS", "play 8S", "play 9H", "play KS", "play QS", "play 8H"):
        st.apply(a)
    assert st.to_act == 0     # the winner of trick 2 leads; seat 1 leads JS in our story
    st.apply("play 8D")       # seat 0 leads a diamond: seat 1 follows AD and wins
    st.apply("play AD")
    st.apply("play QD")
    assert st.tricks[-1][2] == 1 and st.seat_points == [14, 1, 0]
    while not st.is_terminal:
        st.apply(st.legal_actions()[0])
    r = st.result()
    assert r["declarer"] is None and r["target"] is None and st.made is None
    assert sum(st.seat_points) == 21 and st.scores == [-p for p in st.seat_points]


def test_no_contract_refuses_made_and_a_trump_nobody_chooses(tmp_path):
    """Without an auction and without `contract:`, `scoring.made` has nothing to decide,
    and a `trump` step with no chooser has no declarer to choose."""
    probs = problems(tmp_path, BASE + "scoring:\n  made: \"true\"\n")
    assert any("no contract to make or lose" in m for _, _, m in probs)
    probs = problems(tmp_path, BASE + "flow:\n  - deal: [5]\n  - trump\n  - deal: [5]\n  - play\n"
                                      "trump:\n  mode: open\n")
    assert any("no declarer chooses trump" in m for _, _, m in probs)
    probs = problems(tmp_path, BASE + "flow:\n  - deal: [9]\n  - widow: 3\n    set_aside: true\n  - play\n")
    assert any("cannot count for the declarer" in m for _, _, m in probs)
    p = tmp_path / "chooser.yaml"
    p.write_text(BASE + "flow:\n  - deal: [5]\n  - trump\n  - deal: [5]\n  - play\n"
                        "trump:\n  mode: open\n  chooser: eldest\n")
    assert load_variant(p).trump_mode == "open"
