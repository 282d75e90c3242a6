"""The arena server: bots dial in over gRPC (proto/taash/arena/v1), the arena plays their
games through the engine's public contract and records every game.

By concern: `wire` (the gRPC service, auth, serve/start/stop), `hosting` (the `Arena`,
no gRPC, made of one part per job: `seating` (bot streams and seats), `reading` (bot
messages decoded and judged), `budgets` (message budgets), `verdicts` (the fault policy's
verdicts), `decisions` (the open decision, its timer and deadline), `publishing` (events
and seat views), `driving` (a game from start to record), `storethread` (the store's
thread)), `connection` (one bot stream's queue and send limit), `game` (a game's data: seats, the pending
decision, time control), `faults` (verdict counting and limits), `events` (public events
and spectators), `framing` (messages serialized once), `persist` (what a game's end
writes, and the recovery of games cut by a crash), `loading` (the variant a RunMatches
call names or sends, loaded off the event loop: a sent text checked in a child process),
`standing` (a bot's own ratings, games and faults: MyStanding).

    server = ArenaServer(SQLiteStore("arena-data"))
    port = await server.start("127.0.0.1", 50051)
    ...
    await server.stop()
"""

from ..gcpolicy import tune_gc
from .events import Behind, Feed, Spectators
from .game import Game, Pending, Seat, TimeControl
from .hosting import PROTOCOL, PUBLIC_FAULTS, SEND_LIMIT, VERSION, Arena, Connection
from .wire import SERVER_OPTIONS, SERVICE, ArenaServer, deal_secret, serve

__all__ = ["Arena", "ArenaServer", "Behind", "Connection", "Feed", "Game", "Pending", "PROTOCOL",
           "PUBLIC_FAULTS", "SEND_LIMIT", "SERVER_OPTIONS", "SERVICE", "Seat", "Spectators", "TimeControl",
           "VERSION", "deal_secret", "serve", "tune_gc"]
