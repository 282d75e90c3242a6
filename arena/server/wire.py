"""The wire: the Arena service (proto/taash/arena/v1) on a grpc.aio server, bot and
admin authentication, and `serve`. Game logic is in hosting.py and the modules of its parts.

    server = ArenaServer(SQLiteStore("arena-data"))
    port = await server.start("127.0.0.1", 50051)
    ...
    await server.stop()
"""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import logging
import os
import resource
import traceback
from pathlib import Path
from time import monotonic

import grpc
from grpc._cython.cygrpc import ExecuteBatchError   # the write of a call that is ending
from grpc_health.v1.health_pb2 import HealthCheckResponse


from ..gcpolicy import release_memory, tune_gc
from ..pb import arena_pb2 as apb
from ..store import SQLiteStore, Store, StoreError, open_ladder_store
from . import persist
from .loading import LOAD_TIMEOUT_S, Busy, Refused, VariantLoader
from .openfiles import connection_cap, raise_open_files
from .standing import standing, wanted
from .events import MAX_SPECTATORS, SPECTATOR_BACKLOG, SPECTATOR_RATE, Behind, Spectators, cost
from .framing import batch_messages
from .front import Front, private_socket, remove_private_socket
from .refusals import Refusals
from .faults import MAX_STREAMS, Bucket, Closed
from ..limits import Limits
from .hosting import SEND_LIMIT, Arena, Connection, TimeControl, V

log = logging.getLogger("taash.arena")

SERVICE = "taash.arena.v1.Arena"
MAX_VARIANT_TEXT = 1 << 20     # bytes (UTF-8) of a MatchRequest.variant_yaml
# the largest message a client may send (gRPC refuses a larger one before reading it, with
# its own RESOURCE_EXHAUSTED): the largest honest one is a MatchRequest with a text of
# MAX_VARIANT_TEXT, its other fields far below the margin; a bot's messages (an answer,
# a hello, an error) are a few hundred bytes
MAX_MESSAGE = MAX_VARIANT_TEXT + (64 << 10)
SERVING = HealthCheckResponse.SERVING

# gRPC core rejects new calls once this many are waiting to be matched to the application
# (defaults 1000 soft, 3000 hard): a burst of 1,000 four-seat games opens 4,000 streams at
# once, and with the defaults about a third of them fail. Raised well past that.
SERVER_OPTIONS = [
    ("grpc.server.max_pending_requests", 100_000),
    ("grpc.server.max_pending_requests_hard_limit", 200_000),
    ("grpc.max_concurrent_streams", 100_000),
    ("grpc.max_receive_message_length", MAX_MESSAGE),
    # the window a client may fill before the arena reads stays gRPC's initial one: with
    # BDP probing, a fast sender's grew to megabytes, which each refused call of a flooder
    # carried in (docs/protocol.md, Limits)
    ("grpc.http2.bdp_probe", 0),
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.so_reuseport", 0),   # a second arena on the same port is an error, not a silent twin
    # gRPC core cancels a call the application has not picked up within this many seconds
    # (default 30): 1,000 RunMatches at once on a busy server lost some that way.
    ("grpc.server_max_unrequested_time_in_server", 600),
]


def _dropper(context, code):
    """A function that ends the call of ``context`` with ``code`` and a message, from
    outside its handler (even one blocked on a write to a client that does not read):
    the status goes after what the client has not read yet."""
    handler = asyncio.current_task()

    def drop(message: str) -> None:
        async def end():
            try:
                await context.abort(code, message)
            except BaseException:   # abort raises AbortError in its caller, here
                pass
            handler.cancel()
        asyncio.ensure_future(end())
    return drop


# Limits of a MatchRequest (docs/protocol.md, "Limits"): what `taash arena match` allows too
MAX_SEED = 2**63 - 1            # seeds are stored as 64-bit integers
MAX_PARALLEL = 10_000           # games of one call at once
MAX_TIME_FIELD = 2**31 - 1      # each time_control field (ms; strikes)

STOPPING = "the arena is stopping"    # the status details of calls it ends or refuses then
BATCH_WAIT_S = 0.05     # WatchBatches: at most one message per spectator every 50 ms
TOKEN_CHECK_S = 0.25    # how often the arena looks for re-issued or revoked tokens
CLOSE_QUIET_S = 0.1     # a stream the arena closes gets its status once its client paused this long ...
CLOSE_WAIT_S = 2.0      # ... or this long after the arena closed it, whichever comes first ...
CLOSE_BYTES = 64 << 10  # ... or once it has sent this many bytes since (a byte flood is not read on)
CLOSE_POLL_S = 0.01     # how often the bytes sent since are looked at
REFUSE_HOLD_S = 1.0     # a Play call of a token in debt is held this long (at most) before its refusal
RELEASE_S = 1.0         # the heap handed back this long after a cut stream ended (at most once in it)


async def _quiet(heard: list, quiet_s: float = CLOSE_QUIET_S, most_s: float = CLOSE_WAIT_S,
                 most_bytes: int = CLOSE_BYTES) -> None:
    """Wait until the client has sent nothing for ``quiet_s`` seconds (``heard[0]``: the
    monotonic time of its last message), at most ``most_s``, and no longer once it has
    sent ``most_bytes`` bytes since the arena closed the stream (``heard[1]``). A stream
    the arena closes is ended once its client is between writes: gRPC's Python client
    that is writing when the status comes loses it behind its own INTERNAL ("Internal
    error from Core"), so the status is sent when no write of the client is in flight,
    if it pauses. What it sends meanwhile is read and dropped (the connection is no
    longer the arena's), its bytes spent from its budgets (reading.Reading.on_message);
    a client that floods bytes is not read on: reading it cost the arena a core's time
    (bench/hostile.py, bytes: a client sending 1 MiB messages without pause was read at
    about 700 MB/s for the 2 s)."""
    end = monotonic() + most_s
    while True:
        now = monotonic()
        left = min(heard[0] + quiet_s, end) - now
        if left <= 0 or heard[1] >= most_bytes:
            return
        await asyncio.sleep(min(left, CLOSE_POLL_S))


async def _written(write, data, context) -> bool:
    """``await write(data)``; False when the client went away during the write (gRPC then
    raises its own error, which would be logged with a traceback), or when gRPC core
    refused the write because the call is ending (ExecuteBatchError: the server stopping
    at SIGTERM ends its calls under a write in flight); True once written."""
    try:
        await write(data)
    except ExecuteBatchError:
        return False
    except Exception:
        if context.done():
            return False
        raise
    return True


def _one_each(events):
    """Watch's framing: one message per event."""
    return ((e, 1) for e in events)


def _credentials(context) -> tuple[str, str | None, str | None]:
    """(token, taash-bot name or None, error or None) from the call's metadata, parsed
    strictly: one ``authorization`` entry, ``Bearer <token>`` (the scheme in any case,
    RFC 6750); at most one ``taash-bot``. An error is the text for UNAUTHENTICATED."""
    auth, names = [], []
    for k, v in context.invocation_metadata() or ():
        k = k.lower()
        if isinstance(v, bytes):
            v = v.decode(errors="replace")
        if k == "authorization":
            auth.append(v)
        elif k == "taash-bot":
            names.append(v)
    if len(auth) > 1:
        return "", None, "more than one 'authorization' metadata entry: send exactly one"
    if len(names) > 1:
        return "", None, "more than one 'taash-bot' metadata entry: send at most one"
    name = names[0] if names else None
    if not auth or not auth[0].strip():
        return "", name, None
    scheme, _, tok = auth[0].strip().partition(" ")
    if scheme.lower() != "bearer" or not tok.strip():
        return "", name, "the 'authorization' metadata must be 'Bearer <token>'"
    return tok.strip(), name, None


async def _bearer(context, missing: str) -> tuple[str, str | None]:
    """(token, taash-bot name or None) of a call, or the call ended with UNAUTHENTICATED:
    the strict parse's error (`_credentials`), or ``missing`` when there is no token."""
    tok, name, bad = _credentials(context)
    if bad:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, bad)
    if not tok:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, missing)
    return tok, name


class ArenaServer:
    """The arena behind a grpc.aio server. ``start`` binds and serves; ``stop`` cancels
    running games (their records are saved as cut short) and stops the server.
    ``max_spectators``: Watch calls at once (more are refused RESOURCE_EXHAUSTED);
    ``spectator_backlog``: events a spectator of every game may fall behind before it is
    dropped; ``spectator_rate``: units (a message, or a KiB of a longer one) a second to
    all spectators together (0: no bound; events.Budget); ``watch_token``: if set, Watch
    needs it (or the admin token); ``batch_wait_s``:
    how long WatchBatches gathers events before a message (seconds; 0: one message per
    event-loop turn that has events); ``max_streams``: Play streams one token may have
    open at once (the next is refused RESOURCE_EXHAUSTED); ``tls``: (certificate chain,
    private key), PEM bytes: serve TLS only (None: plaintext); ``variant_load_s``: the
    time a variant text sent with RunMatches may take to check (loading.VariantLoader);
    ``open_ladder()``: the LadderStore of the ratings MyStanding reports (raises NoLadder
    when there is none; None: no ratings); ``limits``: the clients' other limits
    (taash.arena.limits.Limits)."""

    def __init__(self, store: Store, defaults: TimeControl = TimeControl(), wait_ms: int = 30000,
                 salt: str = "", max_spectators: int = MAX_SPECTATORS,
                 spectator_backlog: int = SPECTATOR_BACKLOG,
                 watch_token: str | None = None, send_limit: int = SEND_LIMIT,
                 batch_wait_s: float = BATCH_WAIT_S, spectator_rate: float = SPECTATOR_RATE,
                 max_streams: int = MAX_STREAMS, tls: tuple[bytes, bytes] | None = None,
                 variant_load_s: float = LOAD_TIMEOUT_S, open_ladder=None, limits: Limits = Limits()):
        self.store = store
        self.max_streams = max_streams
        self.tls = tls
        self.open_ladder = open_ladder     # () -> the LadderStore of the bots' ratings; raises NoLadder
        self.limits = limits
        # bot -> its MyStanding budget (faults.Bucket): one per bot whose token was shown
        self._queries: dict[str, Bucket] = {}
        self.variant_load_s = variant_load_s
        self.salt = salt  # mixed into every shuffle: seeds alone do not reveal the cards
        self.defaults = defaults
        self.wait_ms = wait_ms
        self.max_spectators, self.spectator_backlog = max_spectators, spectator_backlog
        self.spectator_rate = spectator_rate
        self.watch_token = watch_token
        self.send_limit = send_limit
        self.batch_wait_s = batch_wait_s
        self.arena: Arena | None = None
        self.max_connections = 0    # connections at once, once started (connection_options)
        self.server = None
        self.front: Front | None = None     # the front door (front.Front), if the limits have one
        self._socket: str | None = None     # gRPC's Unix socket behind the front door (front.private_socket)
        self.refusals = Refusals("refused calls")   # calls refused past a bound: counted by why, and logged
        self.admin_token = None
        self.health = None
        self._watch_tasks: set = set()     # the tasks of the Watch calls being served
        self._release = None    # the call_later handle of the next release_memory
        self._held: dict[str, int] = {}     # token -> its Play calls held before their refusal

    async def start(self, host: str = "127.0.0.1", port: int = 50051) -> int:
        """Bind ``host:port`` (0: any free port) and start serving; returns the port.
        Raises OSError if the address cannot be bound. With the limits' front door
        (front.Front) gRPC listens on a Unix socket in a directory of its own, mode 0700
        (front.private_socket; removed by `stop`), and the front on ``host:port``."""
        self._port = port
        self.arena = Arena(self.store, self.defaults, self.wait_ms, salt=self.salt,
                           spectators=Spectators(self.max_spectators, self.spectator_backlog,
                                                  self.spectator_rate), limits=self.limits)
        self.arena.send_limit = self.send_limit
        self.arena.max_streams = self.max_streams
        self.variants = VariantLoader(self.store.variants_dir(), self.variant_load_s,
                                      cache_bytes=self.limits.variant_cache_bytes)
        self._sweeper = asyncio.ensure_future(self.arena.spectators.sweep())
        self.admin_token = self.store.admin_token()
        self.server = grpc.aio.server(options=SERVER_OPTIONS + self.connection_options())
        handlers = {
            "Play": grpc.stream_stream_rpc_method_handler(self._play),
            "Watch": grpc.unary_stream_rpc_method_handler(
                self._watch, request_deserializer=apb.WatchRequest.FromString),
            "WatchBatches": grpc.unary_stream_rpc_method_handler(
                self._watch_batches, request_deserializer=apb.WatchRequest.FromString),
            "RunMatches": grpc.unary_stream_rpc_method_handler(
                self._run_matches, request_deserializer=apb.MatchRequest.FromString,
                response_serializer=apb.MatchUpdate.SerializeToString),
            "ListBots": grpc.unary_unary_rpc_method_handler(
                self._list_bots, request_deserializer=apb.ListBotsRequest.FromString,
                response_serializer=apb.ListBotsReply.SerializeToString),
            "MyStanding": grpc.unary_unary_rpc_method_handler(
                self._my_standing, request_deserializer=apb.StandingRequest.FromString,
                response_serializer=apb.StandingReply.SerializeToString),
        }
        self.server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
        # the standard services a gRPC tool expects: health (SERVING; NOT_SERVING once `stop`
        # begins draining) and reflection (grpcurl without the .proto files)
        from grpc_health.v1 import health, health_pb2_grpc
        from grpc_reflection.v1alpha import reflection
        self.health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        reflection.enable_server_reflection((SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME), self.server)
        public = host
        if self.limits.front:     # gRPC on a Unix socket only the front reaches, the front door on the address
            self._socket = private_socket()
            addr = f"unix:{self._socket}"
        else:
            addr = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        try:
            if self.tls is not None:
                creds = grpc.ssl_server_credentials([(self.tls[1], self.tls[0])])
                bound = self.server.add_secure_port(addr, creds)
            else:
                bound = self.server.add_insecure_port(addr)
        except RuntimeError as e:
            self._remove_socket()
            raise OSError(f"cannot listen on {addr}: {e}") from None
        if not bound:
            self._remove_socket()
            raise OSError(f"cannot listen on {addr} (address in use?)")
        if self.limits.front:
            lim = self.limits
            self.front = Front(lim.peer_pending, lim.peer_connect_burst, lim.peer_connect_rate, self.max_connections,
                               lim.connect_burst, lim.connect_rate, lim.known_peers)
            try:
                bound = await self.front.start(public, self._port, self._socket)
            except OSError as e:
                await self.server.stop(None)
                self._remove_socket()
                raise OSError(f"cannot listen on {public}:{self._port}: {e.strerror or e}") from None
        recovered = persist.recover(self.store)   # bound: this is the data directory's arena
        if recovered:
            log.warning("saved %d game%s the arena was playing when it last stopped, cut short: %s",
                        len(recovered), "s" if len(recovered) != 1 else "", ", ".join(r["game_id"] for r in recovered))
        await self.server.start()
        self._tokens_task = asyncio.ensure_future(self._watch_tokens())
        for name in ("", SERVICE):
            await self.health.set(name, SERVING)
        return bound

    def connection_options(self) -> list[tuple[str, int]]:
        """gRPC's options for the limits before a token (taash.arena.limits.Limits): the
        handshake's deadline, the idle connection's, and the connections at once within
        the open files (openfiles.connection_cap)."""
        lim = self.limits
        cap = connection_cap(resource.getrlimit(resource.RLIMIT_NOFILE)[0], lim.max_connections,
                             3 if lim.front else 1)
        self.max_connections = cap
        return [("grpc.server_handshake_timeout_ms", lim.handshake_ms),
                ("grpc.max_connection_idle_ms", lim.idle_ms),
                ("grpc.max_allowed_incoming_connections", cap)]

    async def _watch_tokens(self) -> None:
        """Every TOKEN_CHECK_S, if the store's tokens changed (`taash arena token NAME`
        again, `taash arena revoke NAME`), close the streams whose token no longer holds."""
        while True:
            await asyncio.sleep(TOKEN_CHECK_S)
            try:
                if self.store.tokens_changed():
                    self.arena.check_tokens()
            except Exception:
                log.error("token check failed:\n%s", traceback.format_exc())

    async def stop(self, grace: float = 1.0) -> None:
        """Cancel running games (records saved as cut short) and stop serving. Health
        says NOT_SERVING from the start of the drain."""
        task = getattr(self, "_tokens_task", None)
        if task is not None:
            task.cancel()
        if self.health is not None:
            await self.health.enter_graceful_shutdown()
        if self.arena is not None:
            self.arena.stopping = True   # their results still reach the RunMatches callers
            tasks = list(self.arena.tasks)
            for t in tasks:
                t.cancel()
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)
            # end every bot stream with OK (the bot sees the end of its stream, not an error)
            for conns in self.arena.conns.values():
                for c in conns:
                    c.queue.put_nowait(None)
            self.arena.spectators.feed.close()
            self.arena.spectators.budget.close()
            self._sweeper.cancel()
            await asyncio.sleep(0.2)
            # a spectator that does not read is stuck in a write its window does not take:
            # end it here (gRPC logs a cancelled handler only at debug level; left to the
            # server's stop, each would print a traceback)
            for t in list(self._watch_tasks):
                t.cancel()
            self.arena.writer.shutdown(wait=True)
            self.arena.reader.shutdown(wait=True)
        if self.front is not None:
            self.front.stop_listening()    # no new connection; those open end with gRPC's
        try:
            if self.server is not None:
                # on a SIGTERM (`taash arena serve`) grpc's shutdown may end in the task's CancelledError
                await self.server.stop(grace)
        finally:
            if self.front is not None:
                self.front.close()
            self._remove_socket()
            self.refusals.flush()

    def _remove_socket(self) -> None:
        """Remove gRPC's Unix socket and its directory (front.private_socket), if made."""
        if self._socket is not None:
            remove_private_socket(self._socket)
            self._socket = None

    def _peer(self, context) -> str:
        """The client's address of a call (gRPC's form: "ipv4:203.0.113.5:40000"), through
        the front door's relay if there is one."""
        peer = context.peer() or ""
        return self.front.peer(peer) if self.front is not None else peer

    async def _past(self, context, why: str, message: str) -> None:
        """Refuse the call RESOURCE_EXHAUSTED with ``message``, for the bound ``why``
        (counted and logged: refusals.Refusals)."""
        self.refusals.count(why)
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, message)

    def _shown(self, context) -> None:
        """The call showed a valid token: its connection is no longer one without
        (front.Front.shown)."""
        if self.front is not None:
            self.front.shown(context.peer() or "")

    # -- Play ---------------------------------------------------------------------------
    async def _refuse_if_stopping(self, context) -> None:
        """A call that comes while the arena drains (`stop`) ends UNAVAILABLE at once."""
        if self.arena is None or self.arena.stopping:
            await context.abort(grpc.StatusCode.UNAVAILABLE, STOPPING)

    async def _play(self, request_iterator, context):
        await self._refuse_if_stopping(context)
        tok, name = await _bearer(context, "missing token: send the metadata 'authorization: Bearer "
                                           "<token>' (issue a token with `taash arena token NAME`)")
        arena = self.arena
        peer = self._peer(context)
        await self._refuse_if_owed(tok, peer, context)     # before the store is asked
        bot = self.store.bot_for_token(tok)
        if bot is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "unknown token (issue one with `taash arena token NAME`)")
        if name and name != bot:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED,
                                f"this token belongs to bot {bot!r}, not to {name!r}")
        self._shown(context)
        if arena.streams_of(bot, tok) >= arena.max_streams:
            await self._past(context, "Play streams per token (--max-streams)",
                             f"bot {bot!r} has {arena.max_streams} streams open with this token, the most "
                             "this arena allows (taash arena serve --max-streams; docs/protocol.md, Limits): "
                             "close one first")
        conn = Connection(bot, peer, token=tok)
        how = [None]
        heard = [monotonic(), 0]    # when the client's last message was read; bytes read since a close

        async def reader():
            read = context.read     # not `async for` over request_iterator: one layer less a message
            try:
                while True:
                    raw = await read()
                    if raw is grpc.aio.EOF:
                        break
                    heard[0] = monotonic()
                    if not conn.alive:
                        heard[1] += len(raw)
                    try:
                        arena.on_message(conn, raw)
                    except Exception:
                        log.error("bot %s: message handling failed:\n%s", bot, traceback.format_exc())
                    # let the writers go first: an answer has just queued the next request
                    # (driving.Driving.drive), and starting its write before this stream's next
                    # read takes about half the hand-off off each decision (bench/arena.py)
                    await asyncio.sleep(0)
                # A cancelled call ends this iteration too, and the cancellation of the
                # handler follows: give it a moment before calling this a clean close.
                await asyncio.sleep(0.1)
                if how[0] is None:
                    how[0] = V.DISCONNECTED
            except asyncio.CancelledError:
                raise
            except Exception:
                pass
            finally:
                conn.queue.put_nowait(None)

        drop = _dropper(context, grpc.StatusCode.RESOURCE_EXHAUSTED)
        conn.kill = lambda why: drop(f"the stream was not read ({why}): dropped as a fault")
        arena.connect(conn)
        task = asyncio.ensure_future(reader())
        write = context.write       # the handler writes (no async generator between)
        try:
            while True:
                queue = conn.queue
                item = queue.get_nowait() if queue.qsize() else await queue.get()
                if item is None:
                    break
                if type(item) is tuple:         # a decision request: its clock starts now
                    item[1].written(item[2])
                    item = item[0]
                elif isinstance(item, Closed):  # the arena closed it (seating.Seating.close)
                    how[0] = V.CLOSED_BY_ARENA
                    await _quiet(heard)
                    await context.abort(grpc.StatusCode[item.status], item.message)
                conn.write_since = monotonic()      # the send limit counts a write that waits
                if not await _written(write, item, context):
                    break
                conn.write_since = 0.0
        except asyncio.CancelledError:
            how[0] = V.CRASHED
            raise
        finally:
            task.cancel()
            arena.disconnect(conn, how[0] or V.CRASHED)
            if how[0] == V.CLOSED_BY_ARENA:
                self._release_soon()

    async def _refuse_if_owed(self, tok: str, peer: str, context) -> None:
        """A Play call of a token or an address whose budget is in debt (budgets.Budgets.owed)
        is held unread for the time it owes, at most REFUSE_HOLD_S (gRPC's flow control
        stops its client's writes meanwhile), then refused RESOURCE_EXHAUSTED, saying for
        how long, if it still owes (else it goes on): a client that calls again as soon
        as it is refused makes the arena refuse it about once a second, not hundreds of
        times (each refusal reads what the client sent, up to its window). At most the
        token's --max-streams such calls are held at once; more are refused at once."""
        owed = self.arena.budgets.owed(tok, peer)
        if owed is None:
            return
        held = self._held.get(tok, 0)
        if held < self.arena.max_streams:
            self._held[tok] = held + 1
            try:
                await asyncio.sleep(min(REFUSE_HOLD_S, self.arena.budgets.owed_s(tok, peer) + 0.01))
            finally:
                if self._held[tok] <= 1:
                    del self._held[tok]
                else:
                    self._held[tok] -= 1
            owed = self.arena.budgets.owed(tok, peer)
            if owed is None:        # repaid meanwhile: the stream opens
                return
        await self._past(context, "Play streams of a token or address past its budget (--token-bytes, "
                         "--peer-bytes, --peer-messages and their rates)", owed)

    def _release_soon(self) -> None:
        """The heap back to the system RELEASE_S after a stream the arena cut ended, or a
        RunMatches call that sent a variant's text was answered (what they held is
        freed by then), at most once in that time: a flood's buffers do not stay in the
        arena's memory. A full collection first: the exceptions that ended such calls
        keep their frames, and so the texts and messages those held, in reference cycles
        that the arena's rare full collections (gcpolicy.THRESHOLD) would leave for
        long; then gcpolicy.release_memory."""
        if self._release is None:
            def release():
                self._release = None
                gc.collect()
                release_memory()
            self._release = asyncio.get_running_loop().call_later(RELEASE_S, release)

    # -- Watch --------------------------------------------------------------------------
    async def _watch(self, request, context):
        await self._spectate(request, context, _one_each)

    async def _watch_batches(self, request, context):
        await self._spectate(request, context, batch_messages, self.batch_wait_s)

    async def _spectate(self, request, context, messages, gather_s: float = 0.0):
        """A spectator's call (Watch, WatchBatches): checks its token and the cap, then
        writes the events in order (those of running games first) until the feed ends,
        as ``messages(events)`` frames them: (message, events in it) pairs. Each message
        takes its cost from the spectators' budget first (events.Budget: the least behind
        first). A call that falls behind ends RESOURCE_EXHAUSTED; one whose client went
        away during a write ends quietly. ``gather_s``: once an event is there, wait this
        long (seconds) for more before writing them."""
        await self._refuse_if_stopping(context)
        if self.watch_token is not None:
            tok, _, _ = _credentials(context)
            if tok not in (self.watch_token, self.admin_token):
                await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                    ("the token given is neither this arena's watch token nor its admin token"
                                     if tok else "this arena needs a watch token to watch") +
                                    " (metadata 'authorization: Bearer <token>', from DATA_DIR/watch-token)")
            self._shown(context)
        arena = self.arena
        spectators = arena.spectators
        if len(spectators.readers) >= spectators.limit:
            await self._past(context, "Watch calls in all (--max-spectators)",
                             f"the arena has its {spectators.limit} spectators already "
                             "(taash arena serve --max-spectators)")
        if request.game_id:
            game = arena.games.get(request.game_id)
            if game is None:
                over = request.game_id in arena.finished
                await context.abort(grpc.StatusCode.NOT_FOUND,
                                    f"no game {request.game_id[:64]!r}{'...' if len(request.game_id) > 64 else ''}"
                                    " is running" + ("; it is over: `taash replay` its record, DATA_DIR/records/"
                                                     f"{request.game_id}.json" if over else ""))
            feed, pos, batch = game.feed, 0, []
        else:
            # the running games from their start, then every event from now on
            feed = spectators.feed
            pos = feed.end
            batch = [d for g in list(arena.games.values()) for d in g.feed.since(0)]
        reader = spectators.admit(feed, pos)
        counted = False       # the batch's events count in reader.pos (not those of the running games)
        task = asyncio.current_task()
        self._watch_tasks.add(task)
        write, take = context.write, spectators.budget.take
        try:
            await context.send_initial_metadata(())     # accepted: the client may know it now
            while True:
                for data, n in messages(batch):
                    if reader.dropped:
                        break
                    await take(cost(data), feed.end - reader.pos)
                    if reader.dropped:      # swept while it waited its turn
                        break
                    if not await _written(write, data, context):
                        return
                    if counted:
                        reader.pos += n
                del batch
                if reader.dropped:
                    await self._behind(context, reader.dropped, feed)
                await feed.wait(reader.pos)
                if gather_s and not feed.closed:
                    await asyncio.sleep(gather_s)
                try:
                    batch = feed.since(reader.pos)
                except Behind:
                    await self._behind(context, feed.end - reader.pos, feed)
                if not batch:   # the feed is closed: the game is over, or the arena stopping
                    if arena.stopping:
                        await context.abort(grpc.StatusCode.UNAVAILABLE, STOPPING)
                    return
                counted = True
        finally:
            self._watch_tasks.discard(task)
            spectators.leave(reader)

    @staticmethod
    async def _behind(context, behind: int, feed) -> None:
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                            f"the spectator fell {behind} events behind (the arena keeps "
                            f"the last {feed.keep}): dropped")

    # -- admin --------------------------------------------------------------------------
    async def _admin(self, context) -> None:
        tok, _ = await _bearer(context, "missing admin token (metadata 'authorization: Bearer <token>', "
                                        "from DATA_DIR/admin-token)")
        if tok != self.admin_token:
            if self.store.bot_for_token(tok) is not None:
                await context.abort(grpc.StatusCode.PERMISSION_DENIED, "a bot token cannot run matches")
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "wrong admin token: is this the arena's --data directory?")
        self._shown(context)

    async def _my_standing(self, request, context):
        """The calling bot's own standing (standing.py): its token names the bot."""
        tok, name = await _bearer(context, "missing token: send the metadata 'authorization: Bearer "
                                           "<token>' with the bot's own token")
        bot = self.store.bot_for_token(tok)
        if bot is None:
            if tok == self.admin_token:
                await context.abort(grpc.StatusCode.PERMISSION_DENIED,
                                    "the admin token is no bot's: ask with the bot's own token")
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "unknown token (issue one with `taash arena token NAME`)")
        if name and name != bot:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED,
                                f"this token belongs to bot {bot!r}, not to {name[:64]!r}")
        self._shown(context)
        meter = self._queries.get(bot)
        if meter is None:
            meter = self._queries[bot] = Bucket(self.limits.query_burst, self.limits.query_rate)
        wait = meter.take()     # a refused call is not charged: asking again costs no debt
        if wait:
            await self._past(context, "MyStanding calls per token (--query-burst, --query-rate)",
                             f"too many MyStanding calls with this token (more than {self.limits.query_burst} "
                             f"at once or {self.limits.query_rate:g} a second: taash arena serve --query-burst, "
                             f"--query-rate; docs/protocol.md, Limits): ask again in {wait:.1f} s")
        try:
            # on the store's reading connection and thread: never in front of a journal entry
            return await self.arena.store_read(self._standing_of, bot, wanted(request.recent))
        except StoreError as e:
            await context.abort(grpc.StatusCode.INTERNAL, str(e))

    def _standing_of(self, bot: str, recent: int):
        """``bot``'s StandingReply (standing.standing), read on the store's reader thread."""
        games, total = self.store.games_of(bot, recent)
        return standing(bot, games, total, self.open_ladder)

    async def _list_bots(self, request, context):
        await self._admin(context)
        arena = self.arena
        out = apb.ListBotsReply()
        for name in self.store.bots():
            conns = [c for c in arena.conns.get(name, ()) if c.alive]
            out.bots.add(name=name, connections=len(conns), seats=sum(c.seats for c in conns))
        return out

    async def _run_matches(self, request, context):
        await self._admin(context)
        arena = self.arena
        try:
            # parsed on a thread: a text of megabytes does not hold the games' loop
            options = await asyncio.to_thread(json.loads, request.options_json) if request.options_json else {}
            if not isinstance(options, dict):
                raise ValueError("options must be a JSON object")
        except ValueError as e:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"bad options_json: {e}")
        except RecursionError:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "bad options_json: nested too deeply")
        n = max(1, request.matches)
        if request.seed + n - 1 > MAX_SEED:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"match i plays seed + i: seed {request.seed} with {n} matches passes "
                                f"{MAX_SEED}, the largest seed (64 bits)")
        if request.parallel > MAX_PARALLEL:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"parallel is {request.parallel}; at most {MAX_PARALLEL} matches at once")
        tcm = request.time_control
        for f in ("move_ms", "bank_ms", "grace_ms", "max_strikes"):
            if getattr(tcm, f) > MAX_TIME_FIELD:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                    f"time_control.{f} is {getattr(tcm, f)}; at most {MAX_TIME_FIELD}")
        # loaded off the event loop, a sent text checked in a child process (loading.py)
        try:
            text = request.variant_yaml     # (each read of the field makes a new str)
            if text:    # the caller's file, sent as text: kept in DATA/variants/
                size = len(text.encode())
                if size > MAX_VARIANT_TEXT:
                    raise Refused(f"variant_yaml is {size} bytes (UTF-8); at most {MAX_VARIANT_TEXT}")
                v = await self.variants.by_text(text, (request.variant or "variant_yaml")[:200],
                                                options or None, self.store.save_variant)
            else:
                v = await self.variants.by_name(request.variant, options or None)
        except Busy as e:
            await self._past(context, "sent variants waiting for their check (loading.MAX_WAITING)", str(e))
        except Refused as e:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        except StoreError as e:
            await context.abort(grpc.StatusCode.INTERNAL, str(e))
        finally:
            if request.variant_yaml:
                # what reading a text of up to a MiB left freed (its copies, the request's
                # buffers of the calls refused beside it) goes back to the system
                self._release_soon()
        # a sent text is kept in DATA/variants/ under its digest; its record names it as the
        # caller did (their file's path), the kept copy beside it (docs/records.md)
        named = request.variant[:200] if request.variant_yaml and request.variant else None
        bots = list(request.bots)
        if len(bots) != v.players:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"{request.variant} is played by {v.players}: give {v.players} bot names "
                                f"(a name may fill several seats), not {len(bots)}")
        known = set(self.store.bots())
        unknown = sorted({b for b in bots if b not in known})
        if unknown:
            await context.abort(grpc.StatusCode.NOT_FOUND,
                                f"no bot named {', '.join(unknown)} (issue a token with `taash arena token NAME`)")
        wait_s = (request.wait_ms or self.wait_ms) / 1000
        missing = sorted({b for b in bots if arena.live_conn(b) is None})
        if missing:
            yield apb.MatchUpdate(note=f"waiting up to {wait_s:g} s for {', '.join(missing)} to connect")
            missing = await arena.wait_for_bots(bots, wait_s)
            if missing:
                await context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                                    f"not connected after {wait_s:g} s: {', '.join(missing)} "
                                    "(start it with `taash bot ... --name NAME --token TOKEN`)")
        tc = self.defaults.merged(request.time_control)
        parallel = min(n, max(1, request.parallel))
        # at most `parallel` games exist at a time, each started as one ends: a call for
        # many matches holds no more than that (not a task per match waiting its turn)
        running: set = set()
        started = 0
        try:
            while True:
                while len(running) < parallel and started < n and not arena.stopping:
                    running.add(arena.spawn(arena.run_game(v, request.seed + started, bots, tc,
                                                           request.max_deals, ref=None, named=named)))
                    started += 1
                if not running:
                    break
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for fut in done:
                    running.discard(fut)
                    try:
                        r = fut.result()
                    except asyncio.CancelledError:
                        if not arena.stopping:
                            raise
                        continue    # a game stopped with the arena before it began
                    except Exception as e:
                        yield apb.MatchUpdate(game=apb.GameResult(error=f"{type(e).__name__}: {e}"))
                        continue
                    yield apb.MatchUpdate(game=apb.GameResult(
                        game_id=r["game_id"], seed=r["seed"], bots=r["bots"], deals=r["deals"], score=r["score"],
                        winners=r["winners"], complete=r["complete"], faults=r["faults"], record=r["record"],
                        error=r["error"]))
        finally:
            # the caller went away (Ctrl-C, a timeout): its games stop too, saved as cut short
            for t in running:
                if not t.done():
                    t.cancel()


def _lock(data_dir: Path):
    """Take DATA/arena.lock (an exclusive flock, held while the returned file is open):
    one arena per data directory, so that a second one cannot take the first's running
    games for games of a dead arena (`persist.recover`). Raises OSError if it is held."""
    import fcntl
    f = open(data_dir / "arena.lock", "a")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise OSError(f"another arena is serving from {data_dir} (it holds {data_dir / 'arena.lock'}): "
                      "stop it or give another --data") from None
    return f


def deal_secret(data_dir) -> str:
    """The arena's secret shuffle salt, kept in DATA/deal-secret (made on first use):
    without it a bot that knows a game's seed could compute every hand."""
    import secrets
    path = Path(data_dir) / "deal-secret"
    if not path.is_file():
        path.write_text(secrets.token_hex(16))
        os.chmod(path, 0o600)
    return path.read_text().strip()


async def serve(data_dir, host: str = "127.0.0.1", port: int = 50051,
                defaults: TimeControl = TimeControl(), ready=None, public_seeds: bool = False,
                max_spectators: int = MAX_SPECTATORS, private_watch: bool = False,
                spectator_backlog: int = SPECTATOR_BACKLOG, send_limit: int = SEND_LIMIT,
                spectator_rate: float = SPECTATOR_RATE, max_streams: int = MAX_STREAMS,
                tls: tuple[bytes, bytes] | None = None,
                variant_load_ms: int = int(LOAD_TIMEOUT_S * 1000), limits: Limits = Limits()) -> None:
    """Run the arena until cancelled (Ctrl-C, SIGTERM). ``ready(port)`` is called once
    listening. Shuffles are salted with the arena's secret unless ``public_seeds`` (then
    a seed gives the same cards as `taash simulate` and in-process ladders).
    ``max_spectators`` caps the Watch calls at once; a spectator of every game more than
    ``spectator_backlog`` events behind is dropped; all spectators together are sent at
    most ``spectator_rate`` units a second (events.Budget; 0: no bound); a bot stream with ``send_limit``
    messages not read is dropped as a fault (CRASHED); ``private_watch``: watching needs
    the token of DATA/watch-token (made on first use) or the admin token; a token may
    have ``max_streams`` Play streams open at once; ``tls``: (certificate chain, private
    key) as PEM bytes, to serve TLS only; a variant text a RunMatches call sends is
    refused when its check takes more than ``variant_load_ms`` (loading.VariantLoader);
    ``limits``: the clients' other limits (taash.arena.limits.Limits). Raises
    StoreError or OSError for a bad data directory or address."""
    before, files, hard = raise_open_files()
    store = SQLiteStore(data_dir)
    try:
        lock = _lock(Path(data_dir))
    except OSError:
        store.close()
        raise
    try:
        server = ArenaServer(store, defaults, salt="" if public_seeds else deal_secret(data_dir),
                             max_spectators=max_spectators, spectator_backlog=spectator_backlog,
                             send_limit=send_limit, spectator_rate=spectator_rate, max_streams=max_streams, tls=tls,
                             variant_load_s=variant_load_ms / 1000, limits=limits,
                             open_ladder=functools.partial(open_ladder_store, None, data_dir, False),
                             watch_token=store.watch_token() if private_watch else None)
        port = await server.start(host, port)
        (log.info if server.max_connections >= 1000 else log.warning)(
            "open files: %d (%s; the system's hard limit %d): at most %d connections at once",
            files, f"raised from {before}" if files > before else "not raised", hard, server.max_connections)
        tune_gc()
        if ready:
            ready(port)
        try:
            await server.server.wait_for_termination()
        finally:
            await server.stop()
    finally:
        store.close()
        lock.close()
