"""The rewards a learner may choose, their bounds, and whether they are zero-sum.

Three rewards, the same in the PettingZoo environment and the OpenSpiel game:

- ``"score"``: each seat's change of the match score, by the variant's own
  ``scoring.effect`` (``State.score_change()``; a seat gets its side's change). General-sum
  as the scoring is: in 29 a defeated contract costs the declarer's side a point and gives
  the defenders nothing (docs/rules.md §29.8).
- ``"margin"``: the seat's change minus the mean change of the seats it plays against
  (`margin`): in a fixed partnership the other side's seats, else every other seat (304's
  declarer and partner are a side for one deal only). Zero-sum whenever the two sides of a
  fixed partnership are of equal size, and always without fixed partnerships (`zero_sum`).
- ``"match"``: given once, when the match ends: the same margin of the match's outcome, a
  seat scoring 1 if it is among the winners, else 0 (`match_outcome`). In a game of two
  sides the winners get +1 and the losers -1; a match stopped at the deal limit
  (``match.max_deals``) has no winners and gives 0. Needs whole-match episodes.

Bounds. OpenSpiel asks for the utility range before any deal is played. The ``match``
reward lies in [-1, 1] by its definition. A variant's scoring is a rule of its file that
nothing bounds in general, so the bound of ``score`` and ``margin`` over one deal is
*found* (`found_bounds`): the largest |reward| over a fixed set of seeded deals, played
by a random player and by one that raises the stakes (the highest bid, every double,
redouble and declaration it may make). tests/learn/test_rewards.py checks the found
bound against the largest change worked out by hand from the rules of every shipped
variant. A return beyond the bound in use raises ValueError (the game's ``max_utility``
parameter sets another). Over a whole match the bound is ``match.max_deals`` times the
deal's, which is true and loose: prefer ``"match"`` there.
"""

from __future__ import annotations

import random

from taash.interpreter import State

REWARDS = ("score", "margin", "match")
EPISODES = ("deal", "match")

_FOUND: dict = {}       # (variant ref, options, deals) -> (score bound, margin bound)


def check(reward: str, episode: str) -> None:
    """Raise ValueError for an unknown reward or episode, or the ``match`` reward over
    one deal."""
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {', '.join(EPISODES)}, not {episode!r}")
    if reward == "match" and episode != "match":
        raise ValueError("reward 'match' (the match's outcome) needs episode 'match'")


def opponents(v, seat: int) -> list[int]:
    """The seats ``seat`` plays against: the other side's in a fixed partnership, else
    every other seat."""
    if v.partnership == "fixed":
        return [t for t in range(v.players) if v.side_of[t] != v.side_of[seat]]
    return [t for t in range(v.players) if t != seat]


def margin(v, values) -> list[float]:
    """Per seat: its value minus the mean value of its `opponents` (``values``: one
    number per seat)."""
    out = []
    for s in range(v.players):
        opp = opponents(v, s)
        out.append(float(values[s]) - sum(values[t] for t in opp) / len(opp))
    return out


def match_outcome(v, winners) -> list[float]:
    """The ``match`` reward per seat: the `margin` of 1 for a winning seat, 0 for the
    others (``winners``: the match's winning seats, none at a deal limit)."""
    return margin(v, [1 if s in winners else 0 for s in range(v.players)])


def deal_reward(v, reward: str, change) -> list[float]:
    """A finished deal's reward per seat: ``change`` (``State.score_change()``) as it is
    for ``score``, its `margin` for ``margin``, zeros for ``match`` (which comes at the
    match's end only)."""
    if reward == "score":
        return [float(x) for x in change]
    if reward == "margin":
        return margin(v, change)
    return [0.0] * v.players


def zero_sum(v, reward: str) -> bool:
    """Whether the rewards of every seat sum to 0 by construction: ``margin`` and
    ``match`` when each seat's opponents are as many as its own side's seats (a fixed
    partnership of equal sides) or every other seat; ``score`` is never declared so
    (a variant's scoring may be general-sum)."""
    if reward == "score":
        return False
    if v.partnership != "fixed":
        return True
    return all(len(opponents(v, s)) * 2 == v.players for s in range(v.players))


def _stakes_choice(rng, legal):
    """The stake-raising player: a double, redouble or declaration when it may (7 in 10),
    else the highest bid (1 in 2), else a uniform draw."""
    raise_ = [a for a in legal if a.kind in ("double", "redouble", "declare")]
    if raise_ and rng.random() < 0.7:
        return rng.choice(raise_)
    bids = [a for a in legal if a.kind == "bid"]
    if bids and rng.random() < 0.5:
        return max(bids, key=lambda a: a.id)
    return legal[rng.randrange(len(legal))]


def _sweep_deal(v, rng, seat: int, suit: str):
    """Hands (card ids per seat) and widow where ``seat`` holds the strongest cards of
    ``suit`` (as many as it is dealt), the rest shuffled."""
    deck = v.deck
    cards = list(deck.all_cards)
    strong = [c for c in cards if deck.text[c].endswith(suit)][:v.cards_per_seat]
    rest = list(cards)
    for c in strong:
        rest.remove(c)
    rng.shuffle(rest)
    k = v.cards_per_seat
    hands = []
    for s in range(v.players):
        if s == seat:
            hands.append(strong + [rest.pop() for _ in range(k - len(strong))])
        else:
            hands.append([rest.pop() for _ in range(k)])
    return hands, rest


def _sweep_choice(rng, st, legal, seat: int, suit: str):
    """The sweeping player: ``seat`` takes the highest bid and raises every stake, names
    ``suit`` (or a card of it) as trump and calls a card of its own hand as its partner's
    when it may; the other seats pass when they may."""
    v = st.v
    if st.to_act == seat:
        for a in legal:
            if (a.kind == "trump" and a.arg == suit) or (a.kind == "trump-card" and str(a.arg).endswith(suit)):
                return a
        own = {v.deck.text[c] for c in st.hands[seat]}
        for a in legal:                 # a partner's card it holds itself: alone, if it may
            if a.kind == "call-partner" and str(a.arg) in own:
                return a
        return _stakes_choice(rng, legal)
    passes = [a for a in legal if a.kind == "pass"]
    return passes[0] if passes else legal[rng.randrange(len(legal))]


def found_bounds(v, deals: int = 240) -> tuple[float, float]:
    """(score bound, margin bound): the largest |``score``| and |``margin``| reward of one
    seat over ``deals`` seeded deals of ``v``, every dealer in turn, a third each played
    by a uniformly random player, by a stake-raising one (the highest bid, every double,
    redouble and declaration it may make), and as a sweep (one seat dealt the strongest
    cards of a suit bids the highest and names that suit trump, the others pass); at
    least 1 each. Cached per variant."""
    key = (v.ref, v.digest, tuple(sorted(v.options.items())), deals)
    got = _FOUND.get(key)
    if got is not None:
        return got
    rng = random.Random(0)
    suits = v.deck.suits
    top_score = top_margin = 0.0
    for d in range(deals):
        dealer, style = d % v.players, d % 3
        seat, suit = (d // v.players) % v.players, suits[(d // v.players ** 2) % len(suits)]
        if style == 2:
            hands, widow = _sweep_deal(v, rng, seat, suit)
            st = State(v, dealer=dealer, hands=hands, widow=widow)
        else:
            st = State(v, dealer=dealer, seed=f"taash-bound:{d}")
        while not st.is_terminal:
            legal = st.legal_actions()
            if style == 0:
                st.apply(legal[rng.randrange(len(legal))])
            elif style == 1:
                st.apply(_stakes_choice(rng, legal))
            else:
                st.apply(_sweep_choice(rng, st, legal, seat, suit))
        change = st.score_change()
        top_score = max([top_score] + [abs(float(x)) for x in change])
        top_margin = max([top_margin] + [abs(x) for x in margin(v, change)])
    got = _FOUND[key] = (max(1.0, top_score), max(1.0, top_margin))
    return got


def bound(v, reward: str, episode: str) -> float:
    """The bound on |return| of one seat for ``reward`` over an ``episode`` (module
    docstring)."""
    if reward == "match":
        return 1.0
    score_bound, margin_bound = found_bounds(v)
    one = score_bound if reward == "score" else margin_bound
    return one if episode == "deal" else one * v.max_deals
