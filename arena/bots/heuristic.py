"""A heuristic bot that plays any variant from the variant's data and its observation.

It reads only what a seat may know: the observation (its hand, the public history, the
trick, the trump if it knows it) and the variant's data (deck: suits, ranks high to low,
copies, points; players; partnership; the deal flow; declarations). No rule of any one
game is written here.

- Auction: estimates the points its side would take with each trump (or none) from the
  cards it holds (how likely each card is to win a trick) and the average of the cards it
  has not seen (one partner's hand counted as average, however many partners), and bids
  up to that estimate; otherwise passes (or makes the lowest bid
  when a pass is not allowed). Never doubles.
- Bids of one's own (a `bids` step): the legal bid nearest the tricks its hand may take
  (each card's chance to win a trick, and its long trumps).
- Trump: names the suit that gave the best estimate; a face-down trump card is its
  lowest card of that suit. A called partner is the highest trump it does not hold.
- Play: leads a card that no unseen card can beat if it has one, else a cheap card;
  following, lets a winning partner have points, wins with the cheapest card that wins
  when the trick is worth it or it plays last, otherwise throws its cheapest card.
- Declares every declaration that changes the target when it may (never a wager such as
  a slam), and asks for a hidden trump to be exposed when an opponent is taking points.
  A declaration that commits the player (its effect takes over the contract, makes a seat
  sit out, or sets the target to a number of tricks: `COMMITS`) is made only with a hand whose
  every card surely wins a trick: each a card no unseen card can beat, and no unseen
  trump to ruff the others; else it is declined (such a declaration loses on average).
  A declaration that voids the deal (its effect is `redeal`: `VOIDS`) is made only with a
  weak hand: under half an average hand's card points and fewer likely tricks than its
  share (`HeuristicBot._weak`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from itertools import product

from .registry import ArenaAgent, get


# an effect that commits the player: it takes over the contract (`declarer = ...`), makes a
# seat sit out (`sits_out[...] = ...`) or sets the target to a number of tricks
# (`target = tricks`)
COMMITS = re.compile(r"\b(declarer|sits_out)\s*(\[[^\]]*\])?\s*=(?!=)|\btarget\s*=(?!=)[^;\n]*\btricks\b")
# an effect that ends the deal void (the statement `redeal`): the cards are dealt again
VOIDS = re.compile(r"(?<![\w.])redeal(?![\w(])")


ESTIMATES_KEPT = 4096   # side estimates a bot keeps (then forgets them all)


class HeuristicBot:
    """``decide(observation, legal_actions) -> action`` for one variant, built from the
    variant's data (the ``variant_json`` of GameStart, or ``Variant.data``)."""

    name = "heuristic"

    def __init__(self, variant_data: dict, partners: int | None = 1):
        """``partners``: how many partners' hands the auction's estimate counts as
        average hands (None: all of them; `side_estimate`)."""
        self.partners = partners
        d = variant_data or {}
        deck = d.get("deck") or {}
        self.suits = list(deck.get("suits") or ["S", "H", "D", "C"])
        self.ranks = [str(r) for r in (deck.get("ranks") or ["J", "9", "A", "T", "K", "Q", "8", "7"])]
        self.copies = int(deck.get("copies") or 1)
        pts = deck.get("points") or {}
        self.points = {str(k): v for k, v in pts.items()}
        self.players = int(d.get("players") or 4)
        self.partnership = d.get("partnership") or "fixed"
        self.strength = {r: len(self.ranks) - i for i, r in enumerate(self.ranks)}  # higher wins
        # the deck's cards, copies included (docs/authoring.md, "The deck": suits x ranks
        # or `cards`, `copies` times, less `exclude`, plus `extra`)
        cards = deck.get("cards") or [r + s for s, r in product(self.suits, self.ranks)]
        left_out = set(deck.get("exclude") or ())
        self.deck_cards = [c for c in cards * self.copies if c not in left_out] + list(deck.get("extra") or ())
        self.held = Counter(self.deck_cards)  # card text -> copies in the deck
        # card text -> copies in the deck of the cards of its suit that rank above it
        self.above = {c: sum(n for d, n in self.held.items()
                             if d[-1] == c[-1] and self.strength.get(d[:-1], 0) > self.strength.get(c[:-1], 0))
                      for c in self.held}
        self.total = deck.get("total") or sum(self.pts(c) for c in self.deck_cards) or 1
        packets = [k for step in d.get("flow") or [] if isinstance(step, dict) and "deal" in step
                   for k in step["deal"]]
        # a size written as a rule reads the deal's number (docs/authoring.md, "A hand size
        # that changes by deal"): each deal's is read from the observation (`decide`)
        self.by_deal = any(not isinstance(k, int) for k in packets)
        self._sized(sum(k for k in packets if isinstance(k, int)) or len(self.deck_cards) // self.players)
        decl = d.get("declarations") or {}
        self.helpful = {name for name, spec in decl.items() if isinstance(spec, dict) and spec.get("effect")}
        self.commits = {name for name in self.helpful if COMMITS.search(str(decl[name]["effect"]))}
        # the declarations that void the deal, by their action (`declare NAME`, or the
        # word of the declaration's `action:`): made only with a weak hand (`_weak`)
        self.voids = {decl[name].get("action") or f"declare {name}": name for name in self.helpful
                      if VOIDS.search(str(decl[name]["effect"]))}
        self._estimates = {}   # (hand, trump, team size) -> side_estimate

    def _sized(self, hand_size: int) -> None:
        """The cards each seat is dealt, the tricks, and a trick's share of the points."""
        self.hand_size = hand_size
        self.tricks = max(1, hand_size)
        self.trick_value = self.total / self.tricks

    # -- cards ------------------------------------------------------------------------
    def pts(self, card: str) -> float:
        """Card points of a card text ("JS" -> 3 in 29): its own value, else its suit's,
        else its rank's (docs/authoring.md, "The deck")."""
        p = self.points
        return p.get(card, p.get(card[-1], p.get(card[:-1], 0)))

    def st(self, card: str) -> int:
        """Strength of a card within its suit: higher wins (from deck.ranks)."""
        return self.strength.get(card[:-1], 0)

    @staticmethod
    def suit(card: str) -> str:
        """The suit letter of a card text."""
        return card[-1]

    def _weak(self, hand: list[str]) -> bool:
        """Whether ``hand`` is weaker than an average hand of as many cards: under half
        the card points such a hand holds on average (a deck with points), and fewer tricks likely (each
        card's chance to win one, without trump: `p_win`) than its share of them
        (its cards over the players)."""
        if not hand:
            return False
        points = sum(self.pts(c) for c in hand)
        average = sum(self.pts(c) for c in self.deck_cards) * len(hand) / len(self.deck_cards)
        likely = sum(self.p_win(c, hand, None) for c in hand)
        return (not average or points < average / 2) and likely < len(hand) / self.players

    # -- sides ------------------------------------------------------------------------
    def team(self, obs: dict) -> set[int]:
        """Seats this seat knows to be on its side (itself included)."""
        me, n = obs["seat"], obs.get("players", self.players)
        decl, partner = obs.get("declarer"), obs.get("partner")
        if self.partnership == "fixed":
            return {s for s in range(n) if s % 2 == me % 2}
        if self.partnership == "individual":   # each player for himself
            return {me}
        if decl is None:
            return {me}
        if self.partnership == "solo":
            return {decl} if me == decl else set(range(n)) - {decl}
        called = obs.get("called_card")
        if partner is not None:
            side = {decl, partner}
            return side if me in side else set(range(n)) - side
        if called and called in obs.get("hand", []):
            return {me, decl}
        return {me}

    # -- estimates --------------------------------------------------------------------
    def p_win(self, card: str, hand: list[str], trump: str | None) -> float:
        """Rough chance that ``card`` takes a trick, from the higher cards of its suit
        that the hand does not hold."""
        s = self.suit(card)
        mine = self.st(card)
        st = self.strength
        higher = self.above[card] - sum(1 for c in hand if c[-1] == s and st.get(c[:-1], 0) > mine)
        if trump is not None and s == trump:
            p = [0.95, 0.75, 0.5, 0.35][higher] if higher < 4 else 0.2
            if sum(1 for c in hand if self.suit(c) == trump) >= 4:
                p = max(p, 0.45)
            return p
        p = [0.85, 0.45, 0.2][higher] if higher < 3 else 0.05
        return p * (0.75 if trump is not None else 1.0)

    def side_estimate(self, hand: list[str], trump: str | None, team_size: int) -> float:
        """Points this seat's side may expect with ``trump`` (None: no trump). Kept for
        the hands seen last (a search bot asks again for the hands of its worlds)."""
        key = (tuple(hand), trump, team_size)
        got = self._estimates.get(key)
        if got is None:
            if len(self._estimates) >= ESTIMATES_KEPT:
                self._estimates.clear()
            got = self._estimates[key] = self._side_estimate(hand, trump, team_size)
        return got

    def _side_estimate(self, hand, trump, team_size):
        mine = sum(self.p_win(c, hand, trump) for c in hand) * self.trick_value
        mine += sum(self.pts(c) for c in hand) * 0.3
        unseen = max(0, self.hand_size - len(hand))
        avg_card = self.tricks / len(self.deck_cards) * self.trick_value
        mine += unseen * avg_card
        if trump is not None:
            n = sum(1 for c in hand if self.suit(c) == trump)
            mine += max(0, n - 2) * self.trick_value * 0.35
        # a partner's hand counts as an average hand, and only one partner does: with two
        # partners (six players in sides of three) the seat that wins the auction is the
        # one that overestimated most, and counting both lost about 1.3 game points a
        # duplicate deal of 56 (bench/README.md, "The heuristic's auction")
        counted = team_size - 1 if self.partners is None else min(team_size - 1, self.partners)
        partners = counted * self.hand_size * avg_card
        return mine + partners * 0.9

    def best_trump(self, hand: list[str], team_size: int, allowed=None) -> tuple[str, float]:
        """(suit, side estimate) of the best trump among ``allowed`` (default: all suits)."""
        suits = allowed or self.suits
        return max(((s, self.side_estimate(hand, s, team_size)) for s in suits), key=lambda x: x[1])

    # -- decide -----------------------------------------------------------------------
    def decide(self, obs: dict, legal: list[str]) -> str:
        """One of ``legal`` for the seat of ``obs``."""
        if len(legal) == 1:
            return legal[0]
        kinds = {a.split(" ", 1)[0] for a in legal}
        hand = list(obs.get("hand") or [])
        if self.by_deal:    # this deal's hand: the cards held and those played
            me = obs.get("seat")
            self._sized(len(hand) + len(obs.get("tricks") or [])
                        + sum(1 for s, _ in obs.get("trick") or [] if s == me))
        if obs.get("phase") == "bids":    # each player bids his own tricks
            return self._own_bid(obs, legal, hand)
        if "bid" in kinds or "double" in kinds or "redouble" in kinds:
            return self._auction(obs, legal, hand)
        if "trump" in kinds or "trump-card" in kinds:
            return self._trump(obs, legal, hand)
        if "call" in kinds:
            return self._call(obs, legal, hand)
        if kinds & {"take", "discard", "done"}:
            return self._exchange(obs, legal, hand)
        if "cot no" in legal:
            return "cot no"
        for a in legal:
            if a in self.voids:
                if self._weak(hand):
                    return a
                continue
            if a.startswith("declare ") and a.split()[1] in self.helpful:
                if a.split()[1] not in self.commits or self._sure_hand(obs, hand):
                    return a
        plays = [a for a in legal if a.startswith("play ")]
        if "expose" in legal and self._should_expose(obs, hand):
            return "expose"
        if plays:
            return "play " + self._play(obs, [a[5:] for a in plays], hand)
        safe = [a for a in legal if not a.startswith("declare ") and a not in ("cot", "expose")]
        return (safe or legal)[0]

    def _auction(self, obs, legal, hand):
        team = self.team(obs)
        bids = []
        for a in legal:
            parts = a.split()
            if parts[0] != "bid":
                continue
            if parts[1].isdigit():
                bids.append((int(parts[1]), parts[2] if len(parts) > 2 else None, a))
            elif len(parts) > 2 and parts[2].isdigit():
                continue  # the suit-first form of the same contract: use the number-first one
        dens = {den for _, den, _ in bids if den is not None}
        if dens:
            options = [(s, self.side_estimate(hand, s, len(team))) for s in self.suits if s in dens]
            if "NT" in dens:
                options.append(("NT", self.side_estimate(hand, None, len(team))))
            den, est = max(options, key=lambda x: x[1]) if options else (None, 0.0)
        else:
            den, est = None, self.best_trump(hand, len(team))[1]
        limit = est * 0.92
        high_bidder = obs.get("high_bidder")
        partner_high = high_bidder is not None and high_bidder != obs["seat"] and high_bidder in team
        affordable = sorted(b for b in bids if b[0] <= limit and (den is None or b[1] == den))
        if partner_high:
            affordable = [b for b in affordable if b[0] <= limit - self.trick_value]
        if affordable:
            return affordable[0][2]
        if "pass" in legal:
            return "pass"
        if bids:
            low = min(b[0] for b in bids)
            pick = [b for b in bids if b[0] == low and (den is None or b[1] == den)] or \
                   [b for b in bids if b[0] == low]
            return pick[0][2]
        safe = [a for a in legal if a not in ("double", "redouble")]
        return (safe or legal)[0]

    def tricks_estimate(self, hand: list[str], trump: str | None) -> float:
        """Tricks ``hand`` may take for itself: each card's chance to win one (`p_win`),
        and half a trick for each trump past the third (long trumps win the late tricks)."""
        est = sum(self.p_win(c, hand, trump) for c in hand)
        if trump is not None:
            est += max(0, sum(1 for c in hand if self.suit(c) == trump) - 3) * 0.5
        return est

    def _own_bid(self, obs, legal, hand):
        """At a `bids` step (each player bids the tricks he will take): the legal bid
        nearest the hand's `tricks_estimate` (with the trump it knows), the lower of two
        as near (a bid missed costs more than a trick over)."""
        est = self.tricks_estimate(hand, obs.get("trump"))
        bids = [(int(a.split()[1]), a) for a in legal if a.startswith("bid ") and a.split()[1].isdigit()]
        if not bids:
            return legal[0]
        return min(bids, key=lambda b: (abs(b[0] - est), b[0]))[1]

    def _trump(self, obs, legal, hand):
        team = self.team(obs)
        if any(a.startswith("trump-card ") for a in legal):
            cards = [a.split()[1] for a in legal if a.startswith("trump-card ")]
            suits = sorted({self.suit(c) for c in cards})
            best, _ = self.best_trump(hand, len(team), suits)
            pick = min((c for c in cards if self.suit(c) == best), key=lambda c: (self.pts(c), self.st(c)))
            return "trump-card " + pick
        suits = [a.split()[1] for a in legal if a.startswith("trump ")]
        best, _ = self.best_trump(hand, len(team), [s for s in suits if s in self.suits] or None)
        return "trump " + best if "trump " + best in legal else legal[0]

    def _call(self, obs, legal, hand):
        cards = [a.split()[1] for a in legal if a.startswith("call ")]
        trump = obs.get("trump")
        in_trump = [c for c in cards if trump and self.suit(c) == trump and c not in hand]
        pool = in_trump or [c for c in cards if c not in hand] or cards
        return "call " + max(pool, key=lambda c: (self.st(c), self.pts(c)))

    def _exchange(self, obs, legal, hand):
        trump = obs.get("trump")
        value = lambda c: self.p_win(c, hand, trump) * self.trick_value + self.pts(c)
        takes = [a.split()[1] for a in legal if a.startswith("take ")]
        if takes:
            return "take " + max(takes, key=value)
        if "done" in legal:
            return "done"
        discards = [a.split()[1] for a in legal if a.startswith("discard ")]
        if discards:
            return "discard " + min(discards, key=value)
        return legal[0]

    # -- play -------------------------------------------------------------------------
    def _unseen(self, obs, hand) -> list[str]:
        """Cards this seat has not seen (in other hands, face down or not yet dealt)."""
        left = list(self.deck_cards)
        seen = list(hand)
        for t in obs.get("tricks") or []:
            seen.extend(t.get("cards") or [])
        seen.extend(c for _, c in obs.get("trick") or [])
        if obs.get("trump_card"):
            seen.append(obs["trump_card"])
        for c in seen:
            try:
                left.remove(c)
            except ValueError:
                pass
        return left

    def _sure_hand(self, obs, hand) -> bool:
        """Whether every card of ``hand`` surely wins a trick: no unseen card of its suit
        ranks above it, and (unless it is a trump) no unseen card is a trump; with a trump
        hidden from this seat, no hand is sure."""
        if not hand:
            return False
        trump = obs.get("trump")
        if trump is None and obs.get("face_down"):
            return False
        unseen = self._unseen(obs, hand)
        trumps_out = trump is not None and any(self.suit(u) == trump for u in unseen)
        return all(self._is_boss(c, unseen, trump, leading=True) and (self.suit(c) == trump or not trumps_out)
                   for c in hand)

    def _trump_power(self, obs):
        t = obs.get("trump")
        return t if t is not None and obs.get("trump_exposed") else None

    def _beats(self, c, w, led, trump) -> bool:
        """Would ``c`` played now beat ``w`` (played earlier) in a trick led in ``led``?"""
        ct = trump is not None and self.suit(c) == trump
        wt = trump is not None and self.suit(w) == trump
        if ct != wt:
            return ct
        if ct:
            return self.st(c) > self.st(w)
        return self.suit(c) == led and (self.suit(w) != led or self.st(c) > self.st(w))

    def _winner(self, trick, trump):
        led = self.suit(trick[0][1])
        ws, wc = trick[0]
        for s, c in trick[1:]:
            if self._beats(c, wc, led, trump):
                ws, wc = s, c
        return ws, wc, led

    def _is_boss(self, card, unseen, trump, leading) -> bool:
        """No unseen card could beat ``card`` (ignoring ruffs unless it is a trump)."""
        s = self.suit(card)
        for u in unseen:
            if self.suit(u) == s and (self.st(u) > self.st(card) or (not leading and self.st(u) == self.st(card))):
                return False
        return True

    def _should_expose(self, obs, hand) -> bool:
        trick = obs.get("trick") or []
        if not trick:
            return False
        team = self.team(obs)
        ws, _, _ = self._winner(trick, self._trump_power(obs))
        if ws in team:
            return False
        pts = sum(self.pts(c) for _, c in trick)
        trump = obs.get("trump")
        if trump is not None:   # it knows the trump: expose only to ruff
            return pts >= 1 and any(self.suit(c) == trump for c in hand)
        return pts >= 2

    def _play(self, obs, cards, hand) -> str:
        trick = obs.get("trick") or []
        trump = self._trump_power(obs)
        known_trump = obs.get("trump")
        unseen = self._unseen(obs, hand)
        team = self.team(obs)
        cheap = lambda c: (self.pts(c), self.suit(c) == known_trump, self.st(c))
        if not trick:
            bosses = [c for c in cards if self._is_boss(c, unseen, trump, leading=True)]
            side_bosses = [c for c in bosses if self.suit(c) != known_trump]
            if side_bosses:
                return max(side_bosses, key=lambda c: (self.pts(c), self.st(c)))
            if bosses and trump is not None and (team & {obs.get("declarer")}):
                return max(bosses, key=lambda c: (self.pts(c), self.st(c)))
            return min(cards, key=cheap)
        ws, wc, led = self._winner(trick, trump)
        # the last to play: the trick holds a card of every other seat that plays this deal
        last = len(trick) == obs.get("players", self.players) - len(obs.get("sitting_out") or ()) - 1
        pts_on = sum(self.pts(c) for _, c in trick)
        if ws in team:
            safe = last or self._is_boss(wc, unseen, trump, leading=False) and not (
                trump is not None and self.suit(wc) != trump and any(self.suit(u) == trump for u in unseen))
            if safe:
                givers = [c for c in cards if not self._is_boss(c, unseen, trump, leading=True)] or cards
                return max(givers, key=lambda c: (self.pts(c), -self.st(c)))
            return min(cards, key=cheap)
        winners = [c for c in cards if self._beats(c, wc, led, trump)]
        if winners:
            if last:
                return min(winners, key=lambda c: (self.suit(c) == trump, self.st(c), self.pts(c)))
            sure = [c for c in winners if self._is_boss(c, unseen, trump, leading=False)
                    and (self.suit(c) == trump or trump is None
                         or not any(self.suit(u) == trump for u in unseen))]
            if sure:
                return min(sure, key=lambda c: (self.suit(c) == trump, self.st(c)))
            if pts_on >= self.trick_value * 0.5:
                return max(winners, key=lambda c: (self.suit(c) == trump, self.st(c))) \
                    if all(self.suit(c) == trump for c in winners) else \
                    max((c for c in winners if self.suit(c) != trump), key=self.st)
        return min(cards, key=cheap)


def heuristic_bot(variant, seed=0, **settings):
    """Registry factory of ``heuristic``: `HeuristicBot` built from the
    variant's data as the arena sends it (GameStart.variant_json), so that it plays the
    same in process and over gRPC (``seed`` unused: it is deterministic; ``settings``:
    `HeuristicBot`'s keyword arguments)."""
    return HeuristicBot(json.loads(json.dumps(variant.data, default=str)), **settings)


def VariantHeuristicBot():
    """The registered ``heuristic`` bot over the arena: an SDK bot ``decide(observation,
    legal, game)`` with one HeuristicBot per game, for the game's variant
    (`taash.arena.bots.registry.ArenaAgent`)."""
    return ArenaAgent(get("heuristic"))
