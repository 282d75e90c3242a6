"""What bots send (`Reading`, a part of `hosting.Arena`): a BotMessage decoded from raw
bytes (a bad one gets a verdict, the stream goes on), an answer applied or judged, a late
or unknown one told so, and every message not paid for by a request spent from the
stream's budgets (budgets.Budgets)."""

from __future__ import annotations

import logging

from google.protobuf.message import DecodeError

from ..limits import FREE_BYTES
from ..pb import messages_pb2 as pb
from .connection import Connection
from .faults import clip

log = logging.getLogger("taash.arena")

V = pb.Verdict


class Reading:
    """Messages from bots. Uses the arena's ``pending`` (request id -> Pending),
    ``games``, ``finished``, ``stopping`` and ``budgets``."""

    def on_message(self, conn: Connection, raw: bytes) -> None:
        """Handle one message from a bot (raw bytes: decoding is ours, so that a bad
        message gets a verdict instead of breaking the stream). Its bytes past the first
        FREE_BYTES are spent from the token's and the address's byte budgets before it is
        decoded (also once the arena has closed the stream: it is then dropped unread); then it spends one from the stream's, the token's and the address's
        message budgets (`_spend`), but the first answer to a request sent to the bot, on
        time or late: the request pays for that one."""
        if self.stopping:
            return      # what was in flight is dropped
        if not conn.alive:      # closed by the arena: dropped, its bytes still its cost
            self.budgets.spend(conn, len(raw), True)
            return
        if len(raw) > FREE_BYTES and self._spend(conn, len(raw), True):
            return
        msg = pb.BotMessage()
        paid = False
        try:
            msg.ParseFromString(raw)
        except (DecodeError, ValueError, RuntimeError) as e:
            self._malformed(conn, None, f"cannot decode a BotMessage: {e}")
            self._spend(conn, 0, False)
            return
        which = msg.WhichOneof("msg")
        if which == "answer":
            a = msg.answer
            if not a.request_id:
                self._malformed(conn, None, "an Answer needs a request_id")
            elif not a.action:
                self._malformed(conn, a.request_id, "an Answer needs an action")
            else:
                paid = self._answer(conn, a.request_id, a.action)
        elif which == "error":
            e = msg.error
            p = self.pending.get(e.request_id)
            if not e.request_id:
                self._malformed(conn, None, "a BotError needs a request_id")
            elif p is None or p.game.bots[p.seat] != conn.bot:
                paid = self._not_pending(conn, e.request_id, None)
            else:
                self.settle(p, V.BOT_ERROR, message=f"the bot reported an error: {clip(e.message)}")
                paid = True
        elif which == "hello":
            conn.client = clip(msg.hello.client, 100)
            conn.batch = msg.hello.batch_events
            if not conn.batch and conn.held:
                conn.flush()
        else:
            self._malformed(conn, None, "a BotMessage must set one of hello, answer, error")
        if not paid:
            self._spend(conn, 0, False)
        if conn.resume_due:
            self.resume(conn)

    def _answer(self, conn: Connection, rid: str, action: str) -> bool:
        """An answer to ``rid``: applied if it is legal for the pending request, else a
        verdict. True if it is the request's first answer (paid for by the request)."""
        p = self.pending.get(rid)
        if p is None or p.game.bots[p.seat] != conn.bot:
            return self._not_pending(conn, rid, action)
        act = p.legal_set.get(action)
        if act is not None:
            p.result, p.how = act, "answer"
            p.wake()
            return p.strikes == 0
        p.strikes += 1
        game, tc = p.game, p.game.tc
        if p.strikes >= tc.max_strikes:
            self.settle(p, V.STRIKE_OUT, action=action,
                         message=f"{p.strikes} illegal answers to this request: default action applied")
        else:
            left = tc.max_strikes - p.strikes
            self.verdict(game, p.seat, V.ILLEGAL_ACTION, conn=conn, rid=rid, action=action,
                          legal=p.legal, strikes=p.strikes,
                          message=f"not legal here; answer again with one of the legal actions before "
                                  f"the deadline ({left} {'try' if left == 1 else 'tries'} left)")
        return p.strikes == 1

    def _spend(self, conn: Connection, nbytes: int, paid: bool) -> bool:
        """A message of ``conn`` (budgets.Budgets.spend): True if that closed the stream
        (RESOURCE_EXHAUSTED), past a budget."""
        why = self.budgets.spend(conn, nbytes, paid)
        if why is None:
            return False
        self.close(conn, "RESOURCE_EXHAUSTED", why)
        return True

    def _not_pending(self, conn: Connection, rid: str, action: str | None) -> bool:
        """An answer or error for ``rid``, which is not pending for this bot: its verdict
        (LATE_ANSWER, STALE_REQUEST, UNKNOWN_REQUEST). True if it is the first message for
        a request settled without an answer (a late answer: paid for by the request)."""
        gid = rid.rsplit(".", 1)[0]
        game = self.games.get(gid)
        if game is not None and rid in game.closed and game.closed[rid][0] == conn.bot:
            how = game.closed[rid][1]
            first = how != "answer" and rid not in game.late
            if first:
                game.late.add(rid)
            if how == "cancelled":      # the arena is stopping this game: not the bot's fault
                return first
            kind = V.STALE_REQUEST if how == "answer" else V.LATE_ANSWER
            msg = ("this request was already answered" if how == "answer" else
                   f"this request was settled by {how} before the answer came: ignored")
            self.verdict(game, game.closed[rid][2], kind, conn=conn, rid=rid,
                          action=action, message=msg)
            return first
        if game is None and self.finished.get(gid) is not None and conn.bot in self.finished[gid].split(","):
            self.send_verdict(conn, pb.Verdict(kind=V.STALE_REQUEST, request_id=rid, game_id=gid, seat=-1,
                                                action=clip(action) or "", message="that game is over"))
        else:
            self.send_verdict(conn, pb.Verdict(kind=V.UNKNOWN_REQUEST, request_id=clip(rid), seat=-1,
                                                action=clip(action) or "",
                                                message="no request with this id was sent to this bot"))
        return False

    def _malformed(self, conn: Connection, rid: str | None, message: str) -> None:
        p = self.pending.get(rid) if rid else None
        if p is not None and p.game.bots[p.seat] == conn.bot:
            self.verdict(p.game, p.seat, V.MALFORMED_MESSAGE, conn=conn, rid=rid, message=message)
            return
        # not tied to one request: recorded in every game where this connection is awaited
        sent = False
        for p in list(self.pending.values()):
            if p.conn is conn:
                self.verdict(p.game, p.seat, V.MALFORMED_MESSAGE, conn=conn if not sent else None,
                              rid=p.rid, message=message)
                sent = True
        if not sent:
            self.send_verdict(conn, pb.Verdict(kind=V.MALFORMED_MESSAGE, request_id=clip(rid) or "", seat=-1,
                                                message=message))
            log.info("bot %s: malformed message: %s", conn.bot, message)
