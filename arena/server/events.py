"""Public events of a game: numbered, kept for late spectators, sent to the game's
watchers and to its seats' bots (docs/protocol.md, "Events"). No gRPC here: events are
serialized protobuf bytes put on queues that the wire drains."""

from __future__ import annotations

import asyncio

from ..pb import messages_pb2 as pb


def publish(game, ev: pb.GameEvent, watch_all, to_bots: bool = True) -> None:
    """Number a public event of ``game`` (a hosting.Game), keep it for late spectators,
    send it to the game's watchers and ``watch_all`` (Watchers of every game) and (once
    per connection) to its seats' bots."""
    ev.game_id = game.id
    ev.index = game.nevents
    game.nevents += 1
    data = ev.SerializeToString()
    game.events.append(data)
    for w in list(game.watchers) + list(watch_all):
        w.put(data)
    if to_bots:
        msg = pb.ServerMessage(event=ev).SerializeToString()
        sent = set()
        for seat in game.seats:
            c = seat.conn
            if c is not None and c.alive and c.id not in sent:
                sent.add(c.id)
                c.send(msg)


def public_text(st, players: int, actor: int, action: str) -> str:
    """The action as every other seat sees it (from their observations); the bare kind
    of action ("trump-card") if they do not all see the same text."""
    views = set()
    for s in range(players):
        if s == actor:
            continue
        h = st.observation(s)["history"]
        views.add(h[-1][1] if h and h[-1][0] == actor else None)
    if len(views) == 1 and None not in views:
        return views.pop()
    return action.split(" ", 1)[0]


class Watcher:
    """A spectator's queue of serialized GameEvents; None ends it. A spectator that
    falls more than ``limit`` events behind is dropped."""

    def __init__(self, limit: int = 100_000):
        self.q: asyncio.Queue = asyncio.Queue()
        self.limit = limit
        self.dropped = False

    def put(self, data) -> None:
        """Queue serialized event bytes (None: the end); drop a spectator too far behind."""
        if self.dropped:
            return
        if self.q.qsize() >= self.limit:
            self.dropped = True
            self.q.put_nowait(None)
            return
        self.q.put_nowait(data)
