"""The arena server: bots dial in over gRPC (proto/taash/arena/v1), the arena plays their
games through the engine's public contract and records every game.

By concern: `wire` (the gRPC service, auth, serve/start/stop), `hosting` (connections,
seats, pending decisions, time control, fault policy; no gRPC), `events` (public events
and spectators), `persist` (what a game's end writes).

    server = ArenaServer(SQLiteStore("arena-data"))
    port = await server.start("127.0.0.1", 50051)
    ...
    await server.stop()
"""

from ..gcpolicy import tune_gc
from .events import Behind, Feed, Spectators
from .hosting import (PROTOCOL, PUBLIC_FAULTS, SEND_LIMIT, VERSION, Arena, Connection, Game, Pending,
                      Seat, TimeControl)
from .wire import SERVER_OPTIONS, SERVICE, ArenaServer, deal_secret, serve

__all__ = ["Arena", "ArenaServer", "Behind", "Connection", "Feed", "Game", "Pending", "PROTOCOL",
           "PUBLIC_FAULTS", "SEND_LIMIT", "SERVER_OPTIONS", "SERVICE", "Seat", "Spectators", "TimeControl",
           "VERSION", "deal_secret", "serve", "tune_gc"]
