"""The auction (docs/rules.md §0.5, §29b.4: a round or a duel of calls) and the round of
doubling after it (§H).
"""

from __future__ import annotations

from bisect import bisect_right

from .phase import Phase, order_from


class Auction(Phase):
    """The auction of calls (docs/rules.md §0.5 and each game's auction): pass, bids above the
    high bid (§0.10: by number, then denomination), double and redouble when the variant
    allows them. ``auction.order``:

    - ``round``: every seat calls in turn. A full round of consecutive passes, every seat
      passed for good (``final_pass``), or the variant's ``auction.ends`` ends it.
    - ``duel`` (docs/rules.md §29b.4): a *holder* and a *challenger* face each other. Seats call
      in turn from eldest until one bids (a seat that passes is out): he is the holder,
      and the next seat in turn that is not out challenges. After the challenger's call
      the holder answers; after the holder's, the challenger calls again. A holder who
      passes leaves the challenger holding the bid; a challenger who passes is followed
      by the next seat in turn that is not out. Every pass is final. It ends when no
      seat is left to challenge (or by ``auction.ends``).

    A bid may equal the high bid only when ``auction.may_equal`` holds for the caller, the
    high bid is another seat's, and the last bid was not itself an equal bid: every two
    bids raise the high bid, so every auction ends. The high bidder at the end is the
    declarer; if nobody bid the deal is thrown in."""

    name = "auction"

    def enter(self, s):
        v = s.v
        n = v.players
        if v.standing_bid:
            s.bid, s.high_bidder = v.standing_bid, s.dealer
        s.to_act = (s.dealer + 1) % n
        if v.auction_order == "duel" and s.high_bidder >= 0:  # the standing bid's holder
            s.holder = s.high_bidder
            s.challenger = s.to_act = self.next_challenger(s, s.holder)

    def legal(self, s):
        v = s.v
        me = s.to_act
        out = [v.pass_action.id] if v.may_pass(s, me, None, None) else []
        may_bid = v.may_bid
        high = s.bid
        may_equal = v.may_equal  # None: the file has no such rule
        if (may_equal is not None and s.high_bidder >= 0 and s.high_bidder != me
                and not s.equal_bid and may_equal(s, me, None, None)):
            high -= 1  # an equal bid is allowed (every two bids still raise the high bid)
        # the rule reads the bid's number only (the DSL has no name for its denomination
        # there), so it is asked once per number, for every form of that number
        for b, ids in v.bid_number_ids[bisect_right(v.bid_numbers, high):]:
            if may_bid(s, me, b, None):
                out += ids
        if s.doubled == 0 and v.may_double is not None and s.high_bidder >= 0 and v.may_double(s, me, None, None):
            out.append(v.double_action.id)
        if s.doubled == 1 and v.may_redouble is not None and v.may_redouble(s, me, None, None):
            out.append(v.redouble_action.id)
        return out or [v.pass_action.id]

    def apply(self, s, seat, a):
        v = s.v
        n = v.players
        kind = a.kind
        duel = v.auction_order == "duel"
        s.calls += 1
        if kind == "pass":
            s.passes += 1
            if (v.final_pass or duel) and seat not in s.passed:
                s.passed.append(seat)
        elif kind == "bid":
            number, den = a.code
            s.equal_bid = s.high_bidder >= 0 and number == s.bid
            s.bid = number
            s.denomination = -1 if den is None else den
            s.high_bidder = seat
            s.bids += 1
            s.passes = 0
            s.doubled = 0  # a new bid cancels any double and redouble (§56.4)
        else:
            s.doubled = 1 if kind == "double" else 2
            s.passes = 0
        if duel:
            nxt = self.duel_next(s, seat, kind)
        else:
            nxt = (seat + 1) % n
            if v.final_pass:
                while nxt in s.passed and nxt != seat:
                    nxt = (nxt + 1) % n
        if nxt < 0 or s.passes >= n or len(s.passed) >= n or v.auction_ends(s, seat, None, None):
            if s.high_bidder < 0:  # everybody passed: the deal is thrown in
                s._end_deal()
                return
            s._set_contract(s.high_bidder, s.bid)
            s._next_step()
            return
        s.to_act = nxt

    @staticmethod
    def next_challenger(s, after: int) -> int:
        """The next seat in turn after ``after`` that is neither out nor the holder, or -1."""
        n = s.v.players
        for k in range(1, n):
            t = (after + k) % n
            if t not in s.passed and t != s.holder:
                return t
        return -1

    def duel_next(self, s, seat: int, kind: str) -> int:
        """Move the duel on after ``seat``'s call (docs/rules.md §29b.4): the seat to call next,
        or -1 when no seat is left to challenge (or none to open)."""
        if s.holder < 0:  # nobody has bid yet: the caller opens or is out
            if kind == "bid":
                s.holder = seat
                s.challenger = self.next_challenger(s, seat)
                return s.challenger
            return self.next_challenger(s, seat)
        if seat == s.challenger:
            if kind == "pass":
                s.challenger = self.next_challenger(s, seat)
                return s.challenger
            return s.holder
        # the holder's call
        if kind == "pass":  # the challenger holds his bid
            s.holder, old = s.challenger, s.challenger
            s.challenger = self.next_challenger(s, old)
        return s.challenger


class Doubling(Phase):
    """A round of doubling after the contract (docs/rules.md §H): each defender in turn from
    next(declarer) may double; after a double each contractor in turn may redouble. A
    seat that sits out the deal (a flow `declare` step before this one) takes no part;
    with no defender left to double, the step passes."""

    name = "doubling"

    def enter(self, s):
        n = s.v.players
        s.doubling_queue = [t for t in order_from(s.declarer + 1, n)
                            if s.side[t] != s.side[s.declarer] and not s.out[t]]
        if s.doubling_queue:
            s.to_act = s.doubling_queue.pop(0)
        else:
            s._next_step()

    def legal(self, s):
        v = s.v
        return [v.pass_action.id, (v.double_action if s.doubled == 0 else v.redouble_action).id]

    def apply(self, s, seat, a):
        n = s.v.players
        if a.kind == "double":
            s.doubled = 1
            s.doubling_queue = [t for t in order_from(seat + 1, n)
                                if s.side[t] == s.side[s.declarer] and not s.out[t]]
        elif a.kind == "redouble":
            s.doubled = 2
            s.doubling_queue = []
        if s.doubling_queue:
            s.to_act = s.doubling_queue.pop(0)
        else:
            s._next_step()

