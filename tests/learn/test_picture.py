"""A deal drawn as a picture (taash.learn.picture) through PettingZoo's and the
single-agent environment's render_mode="rgb_array": its shape and type, what it shows
(a card drawn for each card held and each card in the trick), that it changes when a card
is played, and that the same seed draws the same bytes."""

from __future__ import annotations

import pickle
import random
from pathlib import Path
import warnings

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")
pytest.importorskip("PIL")

from gymnasium.utils.passive_env_checker import env_render_passive_checker  # noqa: E402
from pettingzoo.test import render_test  # noqa: E402

from taash.interpreter import load_variant  # noqa: E402
from taash.learn import picture  # noqa: E402
from taash.learn.pettingzoo import env  # noqa: E402
from taash.learn.picture import Picture  # noqa: E402
from taash.learn.single import SeatEnv  # noqa: E402


def cards_in(image, y: int, x0: int, x1: int) -> int:
    """The cards drawn across row ``y`` of ``image`` between x0 and x1: runs of the card's
    white (cards stand apart by a gap of the felt)."""
    white = (image[y, x0:x1] == picture.CARD).all(axis=1)
    return int(white[0]) + int((white[1:] & ~white[:-1]).sum())


def hand_row(seat: int) -> int:
    """A row of pixels through the lower part of ``seat``'s cards (below their letters)."""
    return picture.HEADER + seat * picture.ROW + picture.LINE + picture.CARD_H - 3


TRICK_ROW = picture.HEADER + 2 * picture.LINE + 6 + picture.CARD_H - 3


def play(e, steps: int, rng):
    """``steps`` random legal steps of the environment (fewer if the episode ends)."""
    for _ in range(steps):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            return
        e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))


def test_the_size_is_fixed_by_the_variant():
    """29: four lines of words (4 x 18 + 20 px), four seats' rows of 18 + 44 + 10 px, a
    margin of 12: 392 px high; eight cards of 34 + 4 px (304 px, at least 300), three
    margins, and the trick's 220 px (4 seats x 46 px is less), a margin; at least 720 px
    wide: 720."""
    pic = Picture(load_variant("29"))
    assert (pic.height, pic.width) == (4 * 18 + 20 + 4 * (18 + 44 + 10) + 12, 720) == (392, 720)
    e = env("29", render_mode="rgb_array")
    e.reset(seed=1)
    rng = random.Random(1)
    for _ in range(40):
        image = e.render()
        assert isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.shape == (392, 720, 3)
        play(e, 1, rng)


def test_a_hand_that_changes_by_deal_has_room_for_its_largest_deal():
    """Judgement (docs/examples/judgement.yaml) deals 8 cards a seat first and sets the
    other 20 aside: a hand's room is 8 cards (the set-aside cards are in no hand), so the
    picture has 29's size: 392 x 720."""
    v = load_variant(str(Path(__file__).resolve().parents[2] / "docs" / "examples" / "judgement.yaml"))
    pic = Picture(v)
    assert pic.slots == 8 and (pic.height, pic.width) == (392, 720)


@pytest.mark.parametrize("name", ["29", "56", "304-solo", "call-break"])
def test_every_card_held_and_in_the_trick_is_drawn(name):
    """At every step of a deal, each seat's row holds one card drawn for each card of its
    hand, and the trick's place one for each card of the trick in progress (or of the
    last trick between tricks)."""
    e = env(name, render_mode="rgb_array")
    e.reset(seed=5)
    st = e.unwrapped.deal
    pic = e.unwrapped.picture
    rng = random.Random(5)
    seen_trick = 0
    while not st.is_terminal:
        image = e.render()
        for s in range(st.v.players):
            assert cards_in(image, hand_row(s), 0, pic.trick_x) == len(st.hands[s])
        in_trick = len(st.trick_cards) or (len(st.tricks[-1][1]) if st.tricks else 0)
        assert cards_in(image, TRICK_ROW, pic.trick_x, pic.width) == in_trick
        seen_trick = max(seen_trick, in_trick)
        play(e, 1, rng)
    assert seen_trick == st.v.players - sum(st.out)     # a whole trick was drawn


def test_a_card_played_changes_the_picture():
    """The play of one card: the player's row loses a card, the trick gains one, and the
    words of the header (the seat to act) change."""
    e = env("29", render_mode="rgb_array")
    e.reset(seed=2)
    st = e.unwrapped.deal
    rng = random.Random(2)
    while st.phase != "play":
        play(e, 1, rng)
    pic = e.unwrapped.picture
    seat = st.to_act
    before = e.render()
    held = len(st.hands[seat])
    play(e, 1, rng)
    after = e.render()
    assert not np.array_equal(before, after)
    assert cards_in(before, hand_row(seat), 0, pic.trick_x) == held
    assert cards_in(after, hand_row(seat), 0, pic.trick_x) == held - 1
    assert cards_in(after, TRICK_ROW, pic.trick_x, pic.width) == 1
    header = slice(0, picture.HEADER - 8)
    assert not np.array_equal(before[header], after[header])


def test_the_same_seed_draws_the_same_bytes():
    """Two environments from one seed, the same actions: the same pictures, byte for
    byte; a pickled environment draws the same picture; another seed, another deal."""
    pictures = []
    for _ in range(2):
        e = env("304", render_mode="rgb_array", episode="match")
        e.reset(seed=11)
        rng = random.Random(11)
        shots = []
        for _ in range(12):
            shots.append(e.render().tobytes())
            play(e, 5, rng)
        pictures.append(shots)
        twin = pickle.loads(pickle.dumps(e))
        assert twin.render().tobytes() == e.render().tobytes()
    assert pictures[0] == pictures[1]
    other = env("304", render_mode="rgb_array")
    other.reset(seed=12)
    assert other.render().tobytes() != pictures[0][0]


def test_pettingzoos_render_test_passes_in_every_mode():
    e = env("29", render_mode="rgb_array")
    assert e.metadata["render_modes"] == ["human", "ansi", "rgb_array"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        render_test(lambda render_mode=None: env("29", render_mode=render_mode))
        render_test(lambda render_mode=None: env("call-break", render_mode=render_mode))


def test_the_single_agent_environment_renders_the_picture():
    """SeatEnv's render, judged by Gymnasium's own render checker (its warnings as
    errors) in each mode."""
    e = SeatEnv("29", render_mode="rgb_array")
    e.reset(seed=3)
    image = e.render()
    assert image.shape == (392, 720, 3) and image.dtype == np.uint8
    for mode in e.metadata["render_modes"]:
        other = SeatEnv("29", render_mode=mode)
        other.reset(seed=3)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            env_render_passive_checker(other)
    assert SeatEnv("29").render() is None
    with pytest.raises(ValueError, match="render_mode must be"):
        SeatEnv("29", render_mode="rgb")


def test_the_picture_says_when_the_match_is_over_and_who_won():
    """Call-break's match is 5 deals, won by the highest total (variants/call-break.yaml):
    at the end of a match episode the header names the seats with the top score."""
    e = env("call-break", render_mode="rgb_array", episode="match")
    e.reset(seed=5)
    play(e, 10_000, random.Random(5))
    m = e.match
    assert m.over and m.played == 5
    scores = m.seat_scores()
    top = [s for s, x in enumerate(scores) if x == max(scores)]
    p = e.picture
    head = p.words(e.deal, e.deal.observation(0), match=m)[0]
    assert "  match over, won by " + ", ".join(f"seat {s}" for s in top) + "  dealer" in head, head
    assert "  deal over  dealer" in p.words(e.deal, e.deal.observation(0))[0]
    assert e.render().tobytes() != p.draw(e.deal).tobytes()     # the words are drawn
