"""Verdicts (`Verdicts`, a part of `hosting.Arena`): the fault policy's one way to tell a
seat's bot, record and publish a fault (docs/protocol.md, "Verdicts"), repeated faults
counted past faults.DETAIL_LIMIT, and a decision settled by the default action."""

from __future__ import annotations

from taash.interpreter.playout import NoAnswer

from ..pb import messages_pb2 as pb
from .connection import Connection
from .faults import clip
from .game import Game, Pending

V = pb.Verdict

# Kinds of verdicts that are faults of the seat (made public as FaultNoted).
PUBLIC_FAULTS = {V.TIMEOUT, V.LATE_ANSWER, V.ILLEGAL_ACTION, V.STRIKE_OUT, V.MALFORMED_MESSAGE,
                 V.STALE_REQUEST, V.UNKNOWN_REQUEST, V.DISCONNECTED, V.CRASHED, V.ABSENT,
                 V.BOT_ERROR, V.RESUMED, V.CLOSED_BY_ARENA}


def _kind_name(kind: int) -> str:
    return V.Kind.Name(kind)


class Verdicts:
    """Verdicts and the settling of a decision without an answer; publishes through
    `publishing.Publishing`."""

    def send_verdict(self, conn: Connection | None, v: pb.Verdict) -> None:
        if conn is not None:
            conn.send(pb.ServerMessage(verdict=v).SerializeToString())

    def verdict(self, game: Game, seat: int, kind: int, conn: Connection | None = None, rid: str = "",
                 action: str | None = None, applied: str | None = None, legal=None, strikes: int = 0,
                 message: str = "") -> None:
        """Send a verdict to the seat's bot; record it in the game and publish the fault,
        unless it is a repeated fault past faults.DETAIL_LIMIT (then only counted, and
        published once, aggregated, at the end of the deal: `publish_counted`). Text from
        the bot is clipped (faults.clip)."""
        action = clip(action)
        shown = game.faults.note(seat, kind)
        if shown:
            game.verdicts.append({"deal": game.deal, "index": game.actions_in_deal, "seat": seat,
                                  "request_id": rid or None, "kind": _kind_name(kind), "action": action,
                                  "applied": applied, "strikes": strikes, "message": message,
                                  "t_ms": game.t_ms()})
        if conn is None and 0 <= seat < len(game.seats):
            c = game.seats[seat].conn
            conn = c if c is not None and c.alive else None
        self.send_verdict(conn, pb.Verdict(kind=kind, request_id=rid, game_id=game.id, seat=seat,
                                            action=action or "", applied_action=applied or "",
                                            legal_actions=legal or [], strikes=strikes, message=message))
        if shown and kind in PUBLIC_FAULTS and seat >= 0:
            self.publish(game, pb.GameEvent(fault=pb.FaultNoted(deal=game.deal, seat=seat, kind=kind, count=1)))

    def publish_counted(self, game: Game) -> None:
        """One FaultNoted per seat and kind for the repeated faults only counted since the
        last call (``count`` of them): at the end of each deal, and of the game."""
        for seat, kind, n in game.faults.flush():
            if kind in PUBLIC_FAULTS:
                self.publish(game, pb.GameEvent(fault=pb.FaultNoted(deal=game.deal, seat=seat, kind=kind,
                                                                     count=n)))

    def settle(self, p: Pending, kind: int, action: str | None = None, message: str = "") -> None:
        """End a pending decision without an answer: the verdict (now, as the protocol
        orders it) names the action the game loop applies for the seat,
        ``state.default_action()``; the decision's result is a NoAnswer of ``kind``."""
        if p.result is not None:
            return
        p.how = _kind_name(kind)
        p.result = NoAnswer(p.how, detail=message)
        self.verdict(p.game, p.seat, kind, rid=p.rid, action=action, applied=p.st.default_action(),
                      strikes=p.strikes, message=message)
        p.wake()
