"""Game hosting: the arena's connections, the games' drive and the fault policy of
docs/protocol.md, with no gRPC: a Connection is a queue of serialized ServerMessages that
the wire (wire.py) drains, and bot messages arrive as raw bytes. Everything runs on one
asyncio event loop, so the engine is only ever touched from one thread.

`Arena` is made of one part per job, each a module of its own: `seating` (bot streams and
which holds each seat), `reading` (what bots send, decoded and judged), `budgets` (the
message budgets), `verdicts` (the fault policy's verdicts), `decisions` (one open decision
per game, its timer and deadline), `publishing` (public events and seat views),
`driving` (a game from start to record) and `storethread` (the store's thread). A game's
data is game.py; one stream's queue, connection.py."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from ..limits import Limits
from ..pb import messages_pb2 as pb
from ..store import Store
from . import events
from .budgets import Budgets
from .connection import BURST_FACTOR, SEND_LIMIT, WRITE_STALL_S, Connection, Outbox, unread
from .decisions import Decisions
from .driving import FINISHED_KEPT, Driving, result_json
from .faults import MAX_STREAMS
from .game import Game, Pending, TimeControl
from .publishing import Publishing
from .reading import Reading
from .seating import PROTOCOL, RESUME_WAIT_S, VERSION, Seating
from .storethread import StoreThread
from .verdicts import PUBLIC_FAULTS, Verdicts

__all__ = ["Arena", "BURST_FACTOR", "Connection", "FINISHED_KEPT", "Outbox", "PROTOCOL", "PUBLIC_FAULTS",
           "RESUME_WAIT_S", "SEND_LIMIT", "TimeControl", "V", "VERSION", "WRITE_STALL_S", "result_json",
           "unread"]

V = pb.Verdict


class Arena(Seating, Reading, Verdicts, Decisions, Publishing, Driving, StoreThread):
    """Connections, games and the fault policy. All methods run on the event loop."""

    def __init__(self, store: Store, defaults: TimeControl = TimeControl(), wait_ms: int = 30000,
                 salt: str = "", spectators: events.Spectators | None = None, limits: Limits = Limits()):
        self.store = store
        self.salt = salt  # mixed into every shuffle: seeds alone do not reveal the cards
        self.defaults = defaults
        self.wait_ms = wait_ms
        self.conns: dict[str, list[Connection]] = {}
        self.games: dict[str, Game] = {}
        self.pending: dict[str, Pending] = {}
        self.finished: dict[str, str] = {}      # recently finished game id -> its bots joined
        self.spectators = spectators or events.Spectators()
        self.writer = ThreadPoolExecutor(1, thread_name_prefix="taash-store")
        self.reader = ThreadPoolExecutor(1, thread_name_prefix="taash-store-read")
        self.stopping = False       # set by the wire's stop: answers are ignored from then on
        self.send_limit = SEND_LIMIT    # messages not read before a bot stream is dropped
        self.tasks: set[asyncio.Task] = set()
        self.max_streams = MAX_STREAMS  # streams of one token at once
        self.budgets = Budgets(limits)  # the tokens' and addresses' budgets
        self.latencies: list[float] = []        # seconds per answered decision, if enabled
        self.measure = False
        self.conn_changed = asyncio.Event()     # set (and made anew) when a stream arrives
        # between deals: an ``async (game_id, deal) -> None`` awaited after a deal's end is
        # published and before the next deal's first event (`Driving._committed`); no
        # decision is open meanwhile, so no seat's clock runs and no seat learns anything of
        # the next deal. None: the next deal follows at once. (`taash play`: the person's review.)
        self.deal_break = None
        # a game cut short by the arena's stop: its record's arena error
        self.stop_words = "the arena stopped before the game ended"
