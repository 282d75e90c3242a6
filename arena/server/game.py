"""A game the arena hosts, as data: its time control (`TimeControl`), its seats (`Seat`),
the decision it waits for (`Pending`) and the game itself (`Game`: the engine's Match
and what its record needs beyond it). `hosting.Arena` drives games (driving.py);
`persist` writes and recovers them."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, replace

from taash.interpreter import Match
from taash.interpreter.playout import Playout

from ..pb import messages_pb2 as pb
from . import events
from .faults import FaultCounts


@dataclass(frozen=True)
class TimeControl:
    """Time controls and fault limits of a game, in milliseconds (docs/protocol.md)."""
    move_ms: int = 2000       # free time per decision
    bank_ms: int = 20000      # time bank per seat per game
    grace_ms: int = 15000     # reconnect budget per seat per game
    max_strikes: int = 3      # illegal answers to one request before the default action

    def to_pb(self) -> pb.TimeControl:
        """As the wire message."""
        return pb.TimeControl(move_ms=self.move_ms, bank_ms=self.bank_ms, grace_ms=self.grace_ms,
                              max_strikes=self.max_strikes)

    def merged(self, msg: pb.TimeControl | None) -> "TimeControl":
        """This, with the fields of ``msg`` taking precedence: ``move_ms`` and
        ``max_strikes`` when not 0, ``bank_ms`` and ``grace_ms`` when set (an explicit 0
        means 0: they are proto3 ``optional``)."""
        if msg is None:
            return self
        kw = {f: getattr(msg, f) for f in ("move_ms", "max_strikes") if getattr(msg, f)}
        kw.update({f: getattr(msg, f) for f in ("bank_ms", "grace_ms") if msg.HasField(f)})
        return replace(self, **kw)


@dataclass
class Seat:
    """A seat of a running game: its bot, connection and clocks (ms)."""
    bot: str
    bank_ms: float
    grace_ms: float
    conn: object = None         # its connection.Connection, None while it has none
    away: bool = False          # lost its connection and not yet back


class Pending:
    """A decision the arena is waiting for. ``on_wake(pending)`` is called by `wake`
    (the arena's `decisions.Decisions`); ``obs_json`` is the request's observation (sent
    again after a reconnect)."""

    __slots__ = ("rid", "game", "seat", "st", "legal", "legal_set", "conn", "sent_at",
                 "spent", "deadline", "strikes", "result", "how", "sends", "obs_json", "on_wake",
                 "away_since", "busy", "closed")

    def __init__(self, rid, game, seat, st, legal, obs_json: str = "", on_wake=None):
        self.rid, self.game, self.seat, self.st = rid, game, seat, st
        self.obs_json, self.on_wake = obs_json, on_wake
        # text -> the engine's Action: a legal answer goes back to the engine as its own
        # Action (the game loop's fast path, no parse of the text)
        self.legal, self.legal_set = legal, dict(zip(legal, legal))
        self.conn = None
        self.sent_at = 0.0
        self.spent = 0.0            # seconds used on earlier connections
        self.deadline = 0.0
        self.strikes = 0
        self.result = None          # the answer, or a NoAnswer once settled by default
        self.how = None             # "answer" or the Verdict kind that settled it
        self.sends = 0
        self.away_since = None      # monotonic time the seat's absence began to be counted
        self.busy = False           # being looked at (decisions.Decisions): a wake is not needed
        self.closed = False         # settled and handed to the game loop

    def written(self, conn) -> None:
        """The request is being written to ``conn``'s stream: its clock starts now (the
        time it waited in the arena's send queue is not the bot's)."""
        if self.conn is conn and self.result is None:
            now = time.monotonic()
            self.deadline += now - self.sent_at
            self.sent_at = now

    def wake(self):
        """Look at this decision again (an answer, a connection change, its timer)."""
        if self.on_wake is not None and not self.busy and not self.closed:
            self.on_wake(self)


class Game:
    """A running game (one match) and what its record needs beyond the engine's."""

    def __init__(self, game_id, variant, ref, options, seed, bots, tc: TimeControl):
        self.id, self.v, self.ref, self.options, self.seed = game_id, variant, ref, options, seed
        self.bots = list(bots)
        self.named = None     # the caller's name of a variant sent as text (its record's `variant`)
        self.st = None        # the State of the deal being played (a returning seat is sent its view)
        self.tc = tc
        self.seats = [Seat(b, tc.bank_ms, tc.grace_ms) for b in bots]
        self.match: Match | None = None
        self.deal = 0
        self.actions_in_deal = 0
        self.t0 = time.monotonic()
        self.started = time.time()
        self.nreq = 0
        self.closed: dict[str, tuple[str, str, int]] = {}  # request id -> (bot, how, seat)
        self.late: set[str] = set()     # closed requests settled without an answer whose late answer came
        self.verdicts: list[dict] = []
        self.deal_log: list[dict] = []
        self.feed = events.Feed()       # its serialized GameEvents, for its spectators
        self.missed_from: dict[str, int] = {}   # bot away -> the first event it has not been sent
        self.nevents = 0
        self.faults = FaultCounts(len(self.bots))
        self.playout: Playout | None = None     # the game loop, driven by driving.Driving.drive
        self.asking: Pending | None = None      # the open decision
        self.pause: asyncio.Task | None = None  # the break between two deals (Arena.deal_break)
        self.done: asyncio.Future | None = None  # set when the playout ends (run_game awaits it)
        self.timer = None       # asyncio.TimerHandle of the next look at the open decision, due at timer_at
        self.timer_at = 0.0
        # while a deal's journal entry is being written: the game's public events since
        # that deal ended, (event, to_bots) in order (or (serialized SeatView, seat)),
        # and the decision the game goes on
        # with once the entry is committed (driving.Driving); None otherwise
        self.held: list | None = None
        self.next_at = None
        # (deal, flow step, trump exposed, partner revealed) when the seats were last
        # sent their SeatViews (publishing.Publishing.send_views)
        self.view_at: tuple | None = None
        # GameStart's texts, the same for every seat
        self.options_json = json.dumps(options)
        self.variant_json = json.dumps(getattr(variant, "data", {}) or {}, default=str)

    def t_ms(self) -> int:
        """Milliseconds since the game began."""
        return int((time.monotonic() - self.t0) * 1000)

    def seats_of(self, bot: str) -> list[int]:
        """The seats ``bot`` holds in this game."""
        return [s for s, b in enumerate(self.bots) if b == bot]
