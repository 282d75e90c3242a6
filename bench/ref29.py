"""The speed reference: deals of 29 played by random legal choices, written directly in
Python, with no rules-as-data layer.

bench/playouts.py and bench/callgrind.py run the engine's random playouts of the variant
29 beside this program on the same number of deals; the engine's time divided by this
program's time is the figure the engine is held to (bar: <= 1.5). The program therefore
does, per deal, the work a deal of 29 needs and no more:

- deal (docs/rules.md §29.3, §0.7): shuffle the 32-card deck (``random.shuffle``), give
  4 cards to each seat from eldest;
- auction (§29.4): from eldest, each call is a bid 15..29 above the high bid or a pass; a
  pass is not final; three consecutive passes after a bid end it, so does a bid of 29; if
  the first three calls are passes the dealer must bid;
- trump (§29.5): the declarer names one of the four suits;
- the second packet of 4 cards each (§29.3);
- play (§29.6, §0.4): eldest leads; follow suit if able, else play a trump if you hold
  one, else any card; the highest trump wins the trick, else the highest card of the
  suit led (strength J 9 A T K Q 8 7, §0.3); the winner leads the next trick;
- score (§29.2, §29.8): J 3, 9 2, A 1, T 1, plus 1 for the last trick; the declarer's
  side makes its contract with points >= its bid (+1 game point), else fails (-1).

Royals (§29.7) are left out: the engine offers the declaration among a seat's legal
actions, and its random playouts make it now and then; this program neither looks for
it nor makes it, so its work per deal is a little less than the engine's rules ask.

Every decision (a call, the trump, a card) is drawn uniformly from the legal choices with
``rng.randrange(len(choices))``, the generator that shuffled the deck. Cards are text,
rank then suit: ``"JS"``, ``"TH"``.

Usage: ``python bench/ref29.py DEALS [SEED]``; prints seconds, deals/s and decisions/s.
"""

from __future__ import annotations

import random
import sys
import time

SEATS = 4
SUITS = "SHDC"
RANKS = "789TJQKA"
DECK = tuple(rank + suit for suit in SUITS for rank in RANKS)
STRENGTH = {rank: i for i, rank in enumerate("78QKTA9J")}   # higher wins: J 9 A T K Q 8 7
POINTS = {"J": 3, "9": 2, "A": 1, "T": 1}                   # other ranks score 0
LAST_TRICK_BONUS = 1
PACKET = 4                                                  # cards per seat per packet
TRICKS = 8
LOWEST_BID, HIGHEST_BID = 15, 29
PASS = "pass"


def auction(rng: random.Random, dealer: int) -> tuple[int, int, int]:
    """Random legal calls from eldest until the auction ends (§29.4).

    Returns (declarer seat, winning bid, number of calls made)."""
    seat = (dealer + 1) % SEATS
    high, declarer = 0, -1
    passes = calls = 0
    while True:
        bids = list(range(max(LOWEST_BID, high + 1), HIGHEST_BID + 1))
        dealer_must_bid = declarer < 0 and calls == SEATS - 1
        choices = bids if dealer_must_bid else [PASS] + bids
        call = choices[rng.randrange(len(choices))]
        calls += 1
        if call == PASS:
            passes += 1
            if declarer >= 0 and passes == SEATS - 1:
                return declarer, high, calls
        else:
            high, declarer, passes = call, seat, 0
            if high == HIGHEST_BID:
                return declarer, high, calls
        seat = (seat + 1) % SEATS


def play_deal(rng: random.Random, dealer: int) -> tuple[tuple[int, int], int]:
    """One deal of 29 with random legal choices, ``dealer`` dealing (a seat 0..3).

    Returns ((declarer's side 0 or 1, its game points +1 or -1), decisions made), the
    decisions being the calls, the trump and the 32 cards played."""
    deck = list(DECK)
    rng.shuffle(deck)
    eldest = (dealer + 1) % SEATS
    # seat s takes packet k = (s - eldest) mod 4 from the top of the deck: eldest the first
    hands = [deck[(seat - eldest) % SEATS * PACKET:((seat - eldest) % SEATS + 1) * PACKET]
             for seat in range(SEATS)]

    declarer, bid, calls = auction(rng, dealer)
    trump = SUITS[rng.randrange(len(SUITS))]
    decisions = calls + 1
    for seat in range(SEATS):
        top = SEATS * PACKET + (seat - eldest) % SEATS * PACKET
        hands[seat] += deck[top:top + PACKET]

    leader = eldest
    points = [0, 0]                       # by side: seat % 2
    for trick_no in range(TRICKS):
        trick: list[tuple[int, str]] = []
        led = ""
        for k in range(SEATS):
            seat = (leader + k) % SEATS
            hand = hands[seat]
            if not led:
                legal = hand
            else:
                legal = [c for c in hand if c[1] == led]
                if not legal:
                    legal = [c for c in hand if c[1] == trump] or hand
            card = legal[rng.randrange(len(legal))]
            decisions += 1
            hand.remove(card)
            if not led:
                led = card[1]
            trick.append((seat, card))
        winner, best = trick[0]
        for seat, card in trick[1:]:
            if card[1] == best[1]:
                if STRENGTH[card[0]] > STRENGTH[best[0]]:
                    winner, best = seat, card
            elif card[1] == trump:
                winner, best = seat, card
        won = sum(POINTS.get(card[0], 0) for _, card in trick)
        if trick_no == TRICKS - 1:
            won += LAST_TRICK_BONUS
        points[winner % 2] += won
        leader = winner

    side = declarer % 2
    return (side, 1 if points[side] >= bid else -1), decisions


def play_deals(deals: int, seed: int) -> tuple[float, int]:
    """``deals`` deals from ``random.Random(seed)``, the deal passing to the next seat
    after each (the first dealer is seat 0). Returns (seconds, decisions)."""
    rng = random.Random(seed)
    decisions = 0
    dealer = 0
    t0 = time.perf_counter()
    for _ in range(deals):
        decisions += play_deal(rng, dealer)[1]
        dealer = (dealer + 1) % SEATS
    return time.perf_counter() - t0, decisions


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not 1 <= len(args) <= 2:
        print("usage: python bench/ref29.py DEALS [SEED]", file=sys.stderr)
        return 2
    deals = int(args[0])
    seconds, decisions = play_deals(deals, int(args[1]) if len(args) > 1 else 0)
    print(f"ref29 deals={deals} seconds={seconds:.3f} deals_per_s={deals / seconds:.0f} "
          f"decisions_per_s={decisions / seconds:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
