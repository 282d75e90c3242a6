"""A game's public events and seat views (`Publishing`, a part of `hosting.Arena`):
published at once (events.publish), or held while a deal's journal entry is written and
released in order once it is."""

from __future__ import annotations

from ..pb import messages_pb2 as pb
from . import events
from .game import Game


class Publishing:
    """Public events and seat views. Uses the arena's ``spectators``."""

    def publish(self, game: Game, ev: pb.GameEvent, to_bots: bool = True) -> None:
        """Publish a public event of ``game`` (events.publish); while the journal entry
        of a deal that ended is being written, the event waits for it (`_committed`)."""
        if game.held is not None:
            game.held.append((ev, to_bots))
            return
        events.publish(game, ev, self.spectators, to_bots)

    def release(self, game: Game) -> bool:
        """Publish the events ``game`` held for a journal entry, and send the seat views
        held with them, in order; False if none were held."""
        held, game.held = game.held, None
        if held is None:
            return False
        for ev, to_bots in held:
            if type(ev) is bytes:       # a serialized SeatView, to_bots its seat
                self._send_view(game, to_bots, ev)
            else:
                events.publish(game, ev, self.spectators, to_bots)
        return True

    def send_views(self, game: Game, st) -> None:
        """Send each seat of ``game`` its observation at ``st`` as a SeatView when what
        the rules show it changed other than by a public action: a new deal or flow step
        (cards dealt to it, the auction over, trump chosen, the play begun), the trump
        exposed, the partner revealed, a seat set to sit out. One observation per seat per change, after the
        public events published so far (held with them while a deal's journal entry is
        written). The seat to act gets none: its DecisionRequest, sent next, carries the
        same observation."""
        at = (st.deal_number, st.step, st.trump_exposed, st.partner_revealed, tuple(st.out))
        if game.view_at == at:
            return
        game.view_at = at
        to_act = st.to_act
        for s in range(len(game.seats)):
            if s == to_act:
                continue
            data = pb.SeatView(game_id=game.id, seat=s, deal=st.deal_number,
                               observation_json=st.observation_json(s)).SerializeToString()
            if game.held is not None:
                game.held.append((data, s))
            else:
                self._send_view(game, s, data)

    def _send_view(self, game: Game, s: int, data: bytes) -> None:
        """Queue a serialized SeatView (without events) on the stream holding seat ``s``,
        if one does (an away seat is not sent it: its next decision tells it)."""
        seat = game.seats[s]
        conn = seat.conn
        if conn is not None and conn.alive and not seat.away:
            conn.send_view(data)
