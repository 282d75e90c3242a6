"""The arena's bot streams (`Seating`, a part of `hosting.Arena`): a stream's arrival
(Welcome, its token's budget, its bot's seats given back), its end (the seats away), the
arena closing it, and which stream holds each seat of a running game."""

from __future__ import annotations

import asyncio
import logging
import time

from ..pb import messages_pb2 as pb
from .connection import Connection, Outbox, unread
from .faults import Closed
from .game import Game

log = logging.getLogger("taash.arena")

PROTOCOL = "taash.arena.v1"
VERSION = "0.1.0"
V = pb.Verdict
# a new stream takes back its bot's seats at its first message (a hello sets batching
# first), or this many seconds after it connected (a bot that sends nothing first)
RESUME_WAIT_S = 0.25


class Seating:
    """Bot streams and seats. Uses the arena's ``conns`` (bot -> its live Connections),
    ``games``, ``budgets`` (budgets.Budgets), ``send_limit``, ``store`` and
    ``conn_changed`` (an asyncio.Event set when a stream arrives); its verdicts go through
    `verdicts.Verdicts`."""

    def connect(self, conn: Connection) -> None:
        """Register a new authenticated stream; send Welcome; give it back the seats its
        bot holds in running games that have no live connection (resume)."""
        self.conns.setdefault(conn.bot, []).append(conn)
        self.budgets.attach(conn)
        conn.on_overflow = self.overflow
        conn.limit = self.send_limit
        conn.send(pb.ServerMessage(welcome=pb.Welcome(bot=conn.bot, protocol=PROTOCOL,
                                                      server=f"taash-arena/{VERSION}")).SerializeToString())
        log.info("bot %s connected (%s)", conn.bot, conn.peer)
        # The seats it takes back wait for its first message (a hello sets batch_events
        # first: what is sent on the resume is then batched as it asked), or RESUME_WAIT_S.
        conn.resume_due = True
        try:
            asyncio.get_running_loop().call_later(RESUME_WAIT_S, self.resume, conn)
        except RuntimeError:        # no loop running (a synchronous caller): at once
            self.resume(conn)
        self.conn_changed.set()
        self.conn_changed = asyncio.Event()

    def streams_of(self, bot: str, token: str) -> int:
        """The streams of ``bot`` open with ``token`` (at most `max_streams`: wire.py
        refuses more)."""
        return sum(1 for c in self.conns.get(bot, ()) if c.alive and c.token == token)

    def resume(self, conn: Connection) -> None:
        """Give ``conn`` the seats its bot holds in running games that have no live
        connection (once: at its first message, or RESUME_WAIT_S after it connected)."""
        if not conn.resume_due or not conn.alive:
            return
        conn.resume_due = False
        for game in list(self.games.values()):
            for s in game.seats_of(conn.bot):
                seat = game.seats[s]
                if seat.conn is None or not seat.conn.alive:
                    self.assign(game, s, conn)

    def overflow(self, conn: Connection) -> None:
        """``conn`` is past its send limit (`Connection.stalled`): the bot does not read
        its stream. Its seats go away (CRASHED) and the stream is ended."""
        why = unread(conn)
        log.warning("bot %s: %s: stream dropped (%s)", conn.bot, why, conn.peer)
        self.disconnect(conn, V.CRASHED, message=f"the seat's stream was not read ({why}): dropped")
        conn.queue = Outbox()    # free what it held
        conn.queue.put_nowait(None)
        if conn.kill is not None:
            conn.kill(why)

    def close(self, conn: Connection, status: str, message: str) -> None:
        """The arena ends a stream (a re-issued or revoked token, past its message budget):
        its seats go through the disconnect path at once (verdict CLOSED_BY_ARENA, then
        away), and the wire ends the call with ``status`` (a grpc.StatusCode name) and
        ``message``, after a CLOSED_BY_ARENA verdict of seat -1 with the same message on
        the stream itself (the reason in the stream, for a client that loses the status)."""
        if not conn.alive:
            return
        log.warning("bot %s: stream closed by the arena (%s): %s", conn.bot, conn.peer, message)
        self.send_verdict(conn, pb.Verdict(kind=V.CLOSED_BY_ARENA, seat=-1, message=message))
        self.disconnect(conn, V.CLOSED_BY_ARENA, message)
        conn.queue.put_nowait(Closed(status, message))

    def check_tokens(self) -> None:
        """Close every stream whose token no longer belongs to its bot (re-issued or
        revoked in the store): status UNAUTHENTICATED; its seats are away. The
        budgets of tokens that no longer hold are forgotten."""
        for conns in list(self.conns.values()):
            for conn in list(conns):
                if conn.alive and self.store.bot_for_token(conn.token) != conn.bot:
                    self.close(conn, "UNAUTHENTICATED",
                               f"the token of bot {conn.bot!r} was re-issued or revoked: this stream is "
                               "closed (connect again with the new token)")
        self.budgets.keep(lambda token: self.store.bot_for_token(token) is not None)

    def disconnect(self, conn: Connection, how: int, message: str | None = None) -> None:
        """The stream ended: ``how`` is V.DISCONNECTED (the bot closed it), V.CRASHED or
        V.CLOSED_BY_ARENA (`close`); ``message`` replaces the verdict's usual sentence."""
        if not conn.alive:
            return
        conn.alive = False
        lst = self.conns.get(conn.bot, [])
        if conn in lst:
            lst.remove(conn)
        log.info("bot %s %s (%s)", conn.bot, "disconnected" if how == V.DISCONNECTED else "lost", conn.peer)
        now = time.monotonic()
        for gid in list(conn.games):
            game = self.games.get(gid)
            if game is None:
                continue
            p = game.asking     # the game's one open decision, if any
            # the events it does not get from now on are sent when it is back (assign),
            # unless another stream of the bot gets them
            if not any(c is not conn and c.alive and gid in c.games for c in self.conns.get(conn.bot, ())):
                game.missed_from.setdefault(conn.bot, game.nevents)
            for s, seat in enumerate(game.seats):
                if seat.conn is conn:
                    seat.conn = None
                    seat.away = True
                    # the verdict names the seat's open request, if it has one
                    rid = p.rid if p is not None and p.seat == s and p.result is None else ""
                    self.verdict(game, s, how, rid=rid, message=message or "the seat's connection "
                                  + ("was closed by the bot" if how == V.DISCONNECTED else "broke"))
            if p is not None and p.conn is conn and not p.closed:
                p.spent += now - p.sent_at
                p.conn = None
                p.wake()

    def live_conn(self, bot: str) -> Connection | None:
        best = None
        for c in self.conns.get(bot, ()):
            if c.alive and (best is None or c.seats < best.seats):
                best = c
        return best

    def assign(self, game: Game, s: int, conn: Connection) -> None:
        seat = game.seats[s]
        seat.conn = conn
        conn.seats += 1
        missed = game.missed_from.pop(conn.bot, None)
        if game.id not in conn.games:
            conn.games.add(game.id)
            conn.send(self._game_start(game, conn.bot, resumed=seat.away or game.match is not None))
            if missed is not None:      # the public events published while it was away, in order
                for data in game.feed.since(missed):
                    conn.send_event(data)
        p = game.asking     # the game's one open decision, if any
        waiting = p if p is not None and p.seat == s else None
        if seat.away:
            seat.away = False
            if waiting is not None:
                self.verdict(game, s, V.RESUMED, rid=waiting.rid,
                              message="the seat is back; its pending request is sent again" if waiting.sends
                              else "the seat is back; its pending request is sent now (it had not been sent)")
            else:
                self.verdict(game, s, V.RESUMED, message="the seat is back; no request of it is pending")
                # its view at once (a pending request would carry it): the hand it holds now,
                # not only the public events it missed (docs/protocol.md, "Seat views")
                st = game.st
                if st is not None and game.held is None and not st.is_terminal:
                    conn.send_view(pb.SeatView(game_id=game.id, seat=s, deal=st.deal_number,
                                               observation_json=st.observation_json(s)).SerializeToString())
        if waiting is not None:
            waiting.wake()

    def seat_conn(self, game: Game, s: int) -> Connection | None:
        seat = game.seats[s]
        if seat.conn is not None and seat.conn.alive:
            return seat.conn
        conn = self.live_conn(seat.bot)
        if conn is not None:
            self.assign(game, s, conn)
        return conn

    def _game_start(self, game: Game, bot: str, resumed: bool) -> bytes:
        msg = pb.ServerMessage(game_start=pb.GameStart(
            game_id=game.id, variant=game.ref, options_json=game.options_json, variant_json=game.variant_json,
            bots=game.bots, your_seats=game.seats_of(bot), time_control=game.tc.to_pb(),
            resumed=resumed))
        return msg.SerializeToString()

    async def wait_for_bots(self, names, timeout_s: float) -> list[str]:
        """Wait until every bot in ``names`` has a live connection, at most ``timeout_s``
        seconds; return the names still missing (empty when all are here)."""
        end = time.monotonic() + timeout_s
        while True:
            missing = sorted({b for b in names if self.live_conn(b) is None})
            left = end - time.monotonic()
            if not missing or left <= 0:
                return missing
            ev = self.conn_changed
            try:
                await asyncio.wait_for(ev.wait(), left)
            except asyncio.TimeoutError:
                pass
