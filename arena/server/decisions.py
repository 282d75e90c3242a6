"""One decision of a game at a time (`Decisions`, a part of `hosting.Arena`): opened
(`ask`), looked at under the time controls and the fault policy (sent again to a new
connection, settled ABSENT or TIMEOUT), one timer per game, and closed into the game loop
(`close_decision`: its time counted against the seat's bank)."""

from __future__ import annotations

import asyncio
import time

from ..pb import messages_pb2 as pb
from .driving import fail_game
from .faults import NETWORK_GRACE_MS
from .game import Game, Pending

V = pb.Verdict


class Decisions:
    """Open decisions and their timers. Uses the arena's ``pending``, ``measure`` and
    ``latencies``; a settled decision's game goes on through `driving.Driving.drive`."""

    def ask(self, game: Game, st, s: int) -> Pending:
        """Open the decision of remote seat ``s`` at ``st`` and look at it once
        (`_progress`: the request goes to the seat's bot, or the seat's absence is
        counted). Returns the Pending; it may already be settled (an absent seat whose
        grace is spent)."""
        legal = st.legal_actions()
        rid = f"{game.id}.{game.nreq}"
        game.nreq += 1
        p = Pending(rid, game, s, st, legal, st.observation_json(s), self._wake)
        self.pending[rid] = p
        game.asking = p
        self._progress(p)
        return p

    def _progress(self, p: Pending) -> None:
        """One look at the open decision ``p`` under the time controls and the fault
        policy (docs/protocol.md): (re)send the request when the seat's connection is new
        to it, settle it ABSENT once the seat is away past its grace budget or TIMEOUT
        past its deadline (each verdict is given here), else set its timer for the next
        look. Called when it opens and at each wake; a wake during the look is not
        needed (the look reads everything afresh)."""
        if p.busy or p.closed:
            return
        p.busy = True
        try:
            game, s = p.game, p.seat
            seat = game.seats[s]
            now = time.monotonic()
            if p.away_since is not None:        # the seat was away since then
                seat.grace_ms -= (now - p.away_since) * 1000
                p.away_since = None
            if p.result is not None:
                return
            conn = self.seat_conn(game, s)
            if conn is None:
                if seat.grace_ms <= 0:
                    self.settle(p, V.ABSENT,
                                 message="the seat is away and its grace budget is spent: "
                                         "default action applied")
                else:
                    p.away_since = now
                    self._timer(p, now + seat.grace_ms / 1000)
                return
            if p.conn is not conn:
                tc = game.tc
                allowed = max(0.0, tc.move_ms + seat.bank_ms - p.spent * 1000)
                p.conn, p.sent_at = conn, now
                # the bot is told `allowed`; its answer counts if read within the grace
                p.deadline = now + (allowed + NETWORK_GRACE_MS) / 1000
                # the wire calls p.written(conn) as it hands the request to gRPC, and
                # the clock starts again from there
                conn.send_decision(pb.DecisionRequest(
                    request_id=p.rid, game_id=game.id, seat=s, observation_json=p.obs_json,
                    legal_actions=p.legal, deadline_ms=int(allowed), time_bank_ms=int(seat.bank_ms),
                    attempt=p.strikes, resumed=p.sends > 0).SerializeToString(), p)
                p.sends += 1
            if p.deadline <= now:
                self.settle(p, V.TIMEOUT, message="no legal answer before the deadline: default action applied")
            else:
                self._timer(p, p.deadline)
        finally:
            p.busy = False

    def _timer(self, p: Pending, at: float) -> None:
        """Look at ``p`` again at monotonic time ``at``, or before: one timer per game,
        kept while it is due no later than that (a look before the deadline only sets the
        timer again), so that a decision answered in time costs no timer of its own."""
        game = p.game
        if game.timer is not None:
            if game.timer_at <= at:
                return
            game.timer.cancel()
        game.timer_at = at
        game.timer = asyncio.get_running_loop().call_at(at, _timer_due, game)   # loop.time() is time.monotonic()

    def _wake(self, p: Pending) -> None:
        """``p.wake()``: look at ``p``; once it is settled, its game goes on from here
        (`drive`). An exception ends the game with it (`Arena.run_game` records it)."""
        try:
            if p.result is None or p.away_since is not None:    # else (an answer) nothing to look at
                self._progress(p)
            if p.result is not None and not p.closed:
                self.drive(p.game, self.close_decision(p))
        except Exception as e:
            fail_game(p.game, e)

    def close_decision(self, p: Pending):
        """``p`` is settled: forget it, count its time against the seat's bank; returns
        its result for the game loop (a legal Action, or a NoAnswer)."""
        self.forget(p, p.how)
        game = p.game
        seat = game.seats[p.seat]
        now = time.monotonic()
        used = p.spent + (now - p.sent_at if p.conn is not None else 0.0)
        if p.how == "TIMEOUT":
            seat.bank_ms = 0
        else:
            over = used * 1000 - game.tc.move_ms
            if over > 0:
                seat.bank_ms = max(0.0, seat.bank_ms - over)
        if self.measure and p.how == "answer":
            self.latencies.append(now - p.sent_at)
        return p.result

    def forget(self, p: Pending, how: str) -> None:
        """``p`` is no longer open: out of the arena's pending decisions and its game's
        asking, into the game's closed ones as ``how`` settled it."""
        p.closed = True
        self.pending.pop(p.rid, None)
        p.game.asking = None
        p.game.closed[p.rid] = (p.game.seats[p.seat].bot, how, p.seat)


def _timer_due(game: Game) -> None:
    game.timer = None
    p = game.asking
    if p is not None:
        p.wake()
