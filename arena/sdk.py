"""The Python SDK for arena bots: write one function, the SDK does the rest.

    from taash.arena.sdk import run

    def decide(observation: dict, legal_actions: list[str]) -> str:
        return legal_actions[0]

    run(decide, name="mybot", token="taash_...", server="127.0.0.1:50051")
    run(decide, name="mybot", token="taash_...", server="arena.example.org:50051", tls=True)

The SDK connects with the token (call metadata ``authorization: Bearer <token>``), answers
every DecisionRequest with ``decide(observation, legal_actions)``, retries once per
ILLEGAL_ACTION verdict with the legal set it names, reports an exception in ``decide`` as a
BotError (the arena then plays the default action at once), reconnects with backoff when
the connection breaks and answers the requests the arena sends again (resume). A bad
token ends ``run`` with AuthError. See docs/protocol.md.

For more control subclass `Bot`: ``decide`` then also gets a `GameInfo` (the variant's
data, the seats, the time controls), and ``on_event``/``on_verdict``/``on_game_end`` hooks
see the public events and the arena's verdicts; ``on_view`` gets a seat's observation as
soon as cards are dealt to it or a step of the deal begins, while others are to act.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import grpc
import orjson

from .errors import ArenaError
from .pb import arena_pb2 as apb
from .pb import arena_pb2_grpc
from .pb import messages_pb2 as pb
from .tls import Client, aio_channel, ca_pem, channel

log = logging.getLogger("taash.bot")

DEFAULT_SERVER = "127.0.0.1:50051"
CLIENT = "taash-python-sdk/0.1"
QUIET_FAILURES = 2   # failed connection attempts logged at INFO before WARNING
RESOLVE_ATTEMPTS = 5  # first-connection attempts whose host name does not resolve before run() gives up


class AuthError(ArenaError):
    """The arena refused the token (UNAUTHENTICATED) or the bot name (PERMISSION_DENIED)."""


class LimitError(ArenaError):
    """The arena refused the call for one of its limits (RESOURCE_EXHAUSTED): the message
    names the limit (docs/protocol.md, Limits); ``retry_s``, the seconds the arena said
    to wait before asking again, or None when it did not say."""

    def __init__(self, message: str):
        super().__init__(message)
        m = re.search(r"(?:ask again in|no new stream for) (\d+(?:\.\d+)?) s", message)
        self.retry_s = float(m.group(1)) if m else None


class HandshakeError(ArenaError):
    """The first connection to the arena failed in a way no retry mends: its TLS handshake
    failed (a certificate this client does not trust, or one that does not name the host
    dialled; a TLS client at a plaintext arena), or a plaintext client met an arena served
    with TLS. The message says which and what to pass (`--tls`, `--ca FILE`)."""


class UnresolvedError(HandshakeError):
    """The arena's host name did not resolve at any of the first ``RESOLVE_ATTEMPTS``
    connection attempts (a typo, or no such host: not a passing failure)."""


def handshake_failure(details: str, server: str, client: Client) -> str | None:
    """What a failed first connection's status ``details`` (gRPC's UNAVAILABLE text) says
    about TLS, as one line with its hint; None when it is not a TLS failure (a refused or
    unreachable address: an arena still starting, to retry)."""
    host = server.rsplit(":", 1)[0] if server.count(":") == 1 or server.startswith("[") else server
    if not client.secure:
        # a TLS arena reads the plaintext HTTP/2 preface as a bad TLS record and closes
        if "Socket closed" in details:
            return (f"cannot connect to {server}: it closed the connection at once "
                    "(an arena served with TLS needs --tls, and --ca FILE for a self-signed certificate)")
        return None
    if "handshake failed" not in details.lower():
        return None
    if "WRONG_VERSION_NUMBER" in details:
        return (f"cannot connect to {server}: the TLS handshake failed: it answers in plaintext "
                "(an arena served without --tls-cert: connect without --tls and --ca)")
    if "CERTIFICATE_VERIFY_FAILED" in details or "certificate" in details.lower():
        if client.ca:
            return (f"cannot connect to {server}: the TLS handshake failed: its certificate is not signed by "
                    f"--ca {client.ca}, or does not name {host}, the host dialled (dial a name or address "
                    "the certificate holds)")
        return (f"cannot connect to {server}: the TLS handshake failed: its certificate is not one this "
                "client trusts (a self-signed certificate needs --ca FILE, the arena's certificate)")
    return f"cannot connect to {server}: the TLS handshake failed: {details}"


@dataclass
class GameInfo:
    """A game this bot plays. ``variant_data`` is the variant's data as written in its
    file (players, deck: suits, ranks high to low, points, ...); ``seats`` are this
    bot's seats; ``time_control`` has move_ms, bank_ms, grace_ms, max_strikes (ms)."""
    game_id: str
    variant: str
    options: dict
    variant_data: dict
    bots: list[str]
    seats: list[int]
    time_control: dict
    extra: dict = field(default_factory=dict)  # free for the bot's own per-game state


class Observation(Mapping):
    """A DecisionRequest's observation, read-only, parsed from its JSON text on first use
    (``BotClient(lazy_observation=True)``): a bot that never looks at it does not pay for
    the parse. It is a `Mapping` (``obs["hand"]``, ``obs.get("trump")``, ``in``, iteration,
    ``dict(obs)``); ``text`` is the JSON text as received."""

    __slots__ = ("_text", "_d")

    def __init__(self, text):
        self._text = text       # the text, or the DecisionRequest it is read from on first use
        self._d = None

    @property
    def text(self) -> str:
        """The observation's JSON text as received."""
        t = self._text
        if type(t) is not str:
            t = self._text = t.observation_json
        return t

    def _dict(self) -> dict:
        d = self._d
        if d is None:
            d = self._d = _json(self.text)
        return d

    def __getitem__(self, key):
        return self._dict()[key]

    def __iter__(self):
        return iter(self._dict())

    def __len__(self) -> int:
        return len(self._dict())

    def __repr__(self) -> str:
        return f"Observation({self._dict()!r})"


class Bot:
    """Base class for bots that want more than one function. Override ``decide``."""

    def decide(self, observation: dict, legal_actions: list[str], game: GameInfo) -> str:
        """Return one of ``legal_actions`` (text forms) for the seat ``observation["seat"]``."""
        raise NotImplementedError

    def on_event(self, game: GameInfo | None, event: pb.GameEvent) -> None:
        """A public event of one of this bot's games."""

    def on_view(self, game: GameInfo | None, seat: int, observation) -> None:
        """What ``seat`` (one of this bot's) may know now, sent by the arena when cards
        are dealt to it or a step of the deal begins (the contract, trump known) while
        another seat is to act (a SeatView; docs/protocol.md, "Seat views"): the same
        form as ``decide``'s observation (an `Observation` with ``lazy_observation``)."""

    def on_verdict(self, verdict: pb.Verdict) -> None:
        """A verdict of the arena about this bot (a timeout, an illegal action, ...)."""

    def on_game_end(self, game: GameInfo | None, ended: pb.GameEnded) -> None:
        """One of this bot's games is over."""


class _FunctionBot(Bot):
    def __init__(self, fn):
        self.fn = fn
        try:
            self.wants_game = len(inspect.signature(fn).parameters) >= 3
        except (TypeError, ValueError):
            self.wants_game = False

    def decide(self, observation, legal_actions, game):
        if self.wants_game:
            return self.fn(observation, legal_actions, game)
        return self.fn(observation, legal_actions)


def as_bot(decide) -> Bot:
    """A Bot from a Bot instance or a function ``decide(observation, legal_actions)``."""
    if isinstance(decide, Bot):
        return decide
    if not callable(decide):
        raise TypeError("decide must be a function decide(observation, legal_actions) -> action or a Bot")
    return _FunctionBot(decide)


class BotClient:
    """One bot connection with reconnects. ``run()`` returns after ``max_games`` games
    (None: never) or ``stop()``; raises AuthError for a refused token.

    ``threads``: call ``decide`` in worker threads (several games at once, the stream
    stays responsive); False calls it on the event loop (fast bots). ``channel``: a
    grpc.aio channel to share with other clients (it is not closed here); by default
    the client opens its own connection to ``server``. ``batch_events``: ask the arena
    for the public events inside the next DecisionRequest rather than one message each
    (Hello.batch_events; fewer messages); ``on_event`` still sees every event, in order,
    before the decision that follows it. ``lazy_observation``: ``decide`` gets an
    `Observation` (a read-only mapping parsed on first use) rather than a dict, so that a
    bot that does not read it does not pay for the JSON parse. ``tls``: connect with TLS
    (the arena's certificate checked against the system's roots, or against ``ca``, a PEM
    file of the certificates to trust: the arena's own for a self-signed one; ``ca``
    implies ``tls``). Raises tls.TLSError for a ``ca`` that cannot be read; ``run()``
    raises HandshakeError when the first connection fails its TLS handshake or meets
    plaintext/TLS on the other side, and UnresolvedError (a HandshakeError) when the
    server's host name does not resolve at ``RESOLVE_ATTEMPTS`` attempts in a row (a
    refused address is retried: an arena starting up; after one good connection every
    failure is retried, an arena that went away included).

    With ``threads=False`` a decision is answered from the loop that reads the stream
    (no task per decision); an ILLEGAL_ACTION retry is still answered from a task.
    """

    def __init__(self, bot, token: str, name: str | None = None, server: str = DEFAULT_SERVER,
                 max_games: int | None = None, threads: bool = True, client: str = CLIENT,
                 retry_max_s: float = 5.0, channel=None, batch_events: bool = False,
                 lazy_observation: bool = False, tls: bool = False, ca: str | None = None):
        self.bot = as_bot(bot)
        self.tls = Client(tls, ca)
        if ca is not None:
            ca_pem(ca)     # a file that cannot be used stops here (TLSError), not at each retry
        hook = self.bot.on_event       # not called per event when it is Bot's own, which does nothing
        self._on_event = None if getattr(hook, "__func__", None) is Bot.on_event else hook
        hook = self.bot.on_view         # likewise: a bot that does not look pays no parse
        self._on_view = None if getattr(hook, "__func__", None) is Bot.on_view else hook
        self.token, self.name, self.server = token, name, server
        self.max_games, self.threads, self.client = max_games, threads, client
        self.retry_max_s = retry_max_s
        self.batch_events = batch_events
        self.lazy_observation = lazy_observation
        self.received: dict[str, int] = {}  # ServerMessages received, per kind
        self.events_in_decisions = 0        # events received inside DecisionRequests
        self.events_in_batches = 0          # events received inside ServerMessage.events
        self.events_in_views = 0            # events received inside SeatViews
        self.games: dict[str, GameInfo] = {}
        self.games_done = 0
        self.answered: dict[str, str] = {}   # request id -> action sent (to answer a resend)
        # the open request of each (game, seat), for a retry after ILLEGAL_ACTION: a newer
        # request of the seat replaces it (a long match keeps one per seat, not every one)
        self._requests: dict[str, pb.DecisionRequest] = {}
        self._latest: dict[tuple[str, int], str] = {}
        self._call = None
        self._channel = channel
        self._own_channel = channel is None
        self._write_lock = None
        self._stopping = False
        self._tasks: set = set()
        self.connections = 0
        self._welcomed = False   # the current connection got its Welcome
        self._connected_once = False   # a Welcome came on some connection: retry whatever fails
        self._handshake = None   # why the first connection cannot succeed (HandshakeError)
        self._unresolved = False  # ... because its host name does not resolve (UnresolvedError)

    def stop(self) -> None:
        """Finish: close the stream (the arena treats it as a disconnect)."""
        self._stopping = True
        if self._call is not None:
            self._call.cancel()

    def drop(self) -> None:
        """Break the current connection as a network failure would (tests use this to
        check reconnect and resume); ``run`` reconnects."""
        if self._call is not None:
            self._call.cancel()

    async def run(self) -> None:
        """Connect, play, reconnect. See the class doc. Each failed connection attempt is
        logged with its reason (logger ``taash.bot``: INFO for the first
        ``QUIET_FAILURES``, WARNING from then on, so a bot at a wrong address says so
        without -v too) and retried after an exponential backoff with jitter, from
        0.1 s up to ``retry_max_s``."""
        self._write_lock = asyncio.Lock()
        delay = 0.1
        failures = 0      # failed attempts since the last good connection
        unresolved = 0    # first-connection attempts in a row whose host name did not resolve
        while not self._stopping:
            self._welcomed = False
            try:
                await self._session()
            except AuthError:
                raise
            except grpc.aio.AioRpcError as e:
                code = e.code()
                if code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
                    raise AuthError(f"{code.name}: {e.details()}") from None
                if not self._stopping and not self._connected_once and code == grpc.StatusCode.UNAVAILABLE:
                    self._handshake = handshake_failure(e.details() or "", self.server, self.tls)
                    if self._handshake is not None:
                        break       # the first connection: no retry mends a TLS mismatch
                    details = e.details() or ""
                    unresolved = unresolved + 1 if "resolv" in details.lower() else 0
                    if unresolved >= RESOLVE_ATTEMPTS:
                        self._handshake = (f"the arena's address {self.server} does not resolve "
                                           f"({unresolved} attempts): check its host name; gRPC said: "
                                           f"{details[:300]}")
                        self._unresolved = True
                        break
                if not self._stopping:
                    if self._welcomed:
                        failures = 0
                    failures += 1
                    log.log(logging.INFO if failures <= QUIET_FAILURES else logging.WARNING,
                            "%s %s (attempt %d): %s: %s; retrying in %.1f s",
                            "lost the connection to" if self._welcomed else "cannot connect to",
                            self.server, failures, code.name, e.details(), delay)
            if self._welcomed:
                delay, failures = 0.1, 0
            if self._done() or self._stopping:
                break
            await asyncio.sleep(delay + random.random() * delay / 2)
            delay = min(self.retry_max_s, delay * 2)
        for t in list(self._tasks):
            t.cancel()
        if self._channel is not None and self._own_channel:
            await self._channel.close()
        if self._handshake is not None:
            raise (UnresolvedError if self._unresolved else HandshakeError)(self._handshake)

    def _done(self) -> bool:
        return self.max_games is not None and self.games_done >= self.max_games

    async def _session(self) -> None:
        if self._channel is None:
            self._channel = aio_channel(self.server, self.tls, options=[
                ("grpc.keepalive_time_ms", 30_000), ("grpc.keepalive_timeout_ms", 10_000),
                ("grpc.use_local_subchannel_pool", 1)])   # a connection of its own
        stub = arena_pb2_grpc.ArenaStub(self._channel)
        md = [("authorization", f"Bearer {self.token}")]
        if self.name:
            md.append(("taash-bot", self.name))
        # not wait_for_ready: a refused or unreachable address fails the call at once, with
        # its reason, and run() logs it and backs off (instead of waiting silently)
        call = self._call = stub.Play(metadata=md)
        await call.write(pb.BotMessage(hello=pb.Hello(client=self.client, batch_events=self.batch_events)))
        self.connections += 1
        while True:
            try:
                msg = await call.read()
            except asyncio.CancelledError:
                if call.cancelled() and asyncio.current_task().cancelling() == 0:
                    log.info("the connection was dropped")   # by drop() or stop(): reconnect or end
                    return
                raise
            if msg is grpc.aio.EOF:
                # the arena closed the stream: raise its status if it is an error
                code = await call.code()
                if code != grpc.StatusCode.OK:
                    raise grpc.aio.AioRpcError(code, await call.initial_metadata(),
                                               await call.trailing_metadata(), await call.details())
                log.info("the arena closed the stream")
                return
            inline = self._handle(call, msg)
            if inline is not None:      # threads=False: answer from here, no task
                try:
                    await inline
                except Exception:       # as a task's would be: logged, the stream goes on
                    log.exception("answering a decision failed")
            if self._done():
                await asyncio.sleep(0)
                call.cancel()
                return

    def _handle(self, call, msg: pb.ServerMessage):
        """Handle one ServerMessage; returns the answer's coroutine to await at once
        (threads=False) or None."""
        which = msg.WhichOneof("msg")
        received = self.received
        received[which] = received.get(which, 0) + 1
        if which == "decision":
            d = msg.decision
            events = d.events
            if events:
                self.events_in_decisions += len(events)
                for ev in events:
                    self._event(ev)
            rid = d.request_id
            sent = self.answered.get(rid)
            if sent is not None:    # resent after a reconnect: answer again
                aw = self._write(pb.BotMessage(answer=pb.Answer(request_id=rid, action=sent)))
            else:
                aw = self._answer(d, list(d.legal_actions))
            if not self.threads:
                return aw
            self._spawn(aw)
        elif which == "verdict":
            v = msg.verdict
            kind = pb.Verdict.Kind.Name(v.kind)
            if v.kind == pb.Verdict.ILLEGAL_ACTION:
                log.warning("illegal action %r for %s: %s", v.action, v.request_id, v.message)
                self.answered.pop(v.request_id, None)
                req = self._requests.get(v.request_id)
                if req is not None:
                    self._spawn(self._answer(req, list(v.legal_actions)))
            elif v.kind != pb.Verdict.RESUMED:
                log.warning("verdict %s %s: %s", kind, v.request_id, v.message)
            try:
                self.bot.on_verdict(v)
            except Exception:
                log.exception("on_verdict failed")
        elif which == "game_start":
            g = msg.game_start
            tc = g.time_control
            self.games[g.game_id] = GameInfo(
                game_id=g.game_id, variant=g.variant, options=_loads(g.options_json),
                variant_data=_loads(g.variant_json), bots=list(g.bots), seats=list(g.your_seats),
                time_control={"move_ms": tc.move_ms, "bank_ms": tc.bank_ms, "grace_ms": tc.grace_ms,
                              "max_strikes": tc.max_strikes})
        elif which == "event":
            self._event(msg.event)
        elif which == "events":     # batch_events: the held events no decision carries
            evs = msg.events.events
            self.events_in_batches += len(evs)
            for ev in evs:
                self._event(ev)
        elif which == "view":
            v = msg.view
            events = v.events
            if events:
                self.events_in_views += len(events)
                for ev in events:
                    self._event(ev)
            if self._on_view is not None:
                obs = Observation(v.observation_json) if self.lazy_observation else _loads(v.observation_json)
                try:
                    self._on_view(self.games.get(v.game_id), v.seat, obs)
                except Exception:
                    log.exception("on_view failed")
        elif which == "welcome":
            self._welcomed = self._connected_once = True
            log.info("connected to %s as %s", self.server, msg.welcome.bot)

    def _event(self, ev: pb.GameEvent) -> None:
        if self._on_event is not None:
            try:
                self._on_event(self.games.get(ev.game_id), ev)
            except Exception:
                log.exception("on_event failed")
        if ev.HasField("game_ended"):
            game = self.games.get(ev.game_id)
            self.games.pop(ev.game_id, None)
            prefix = ev.game_id + "."
            for rid in [r for r in self.answered if r.startswith(prefix)]:
                del self.answered[rid]
            for rid in [r for r in self._requests if r.startswith(prefix)]:
                del self._requests[rid]
            for k in [k for k in self._latest if k[0] == ev.game_id]:
                del self._latest[k]
            self.games_done += 1
            try:
                self.bot.on_game_end(game, ev.game_ended)
            except Exception:
                log.exception("on_game_end failed")

    def _spawn(self, coro) -> None:
        t = asyncio.ensure_future(coro)
        self._tasks.add(t)
        t.add_done_callback(self._tasks.discard)

    async def _answer(self, d: pb.DecisionRequest, legal: list[str]) -> None:
        rid = d.request_id
        gid = d.game_id
        seat_key = (gid, d.seat)
        old = self._latest.get(seat_key)
        if old is not None and old != rid:
            self._requests.pop(old, None)
        self._latest[seat_key] = rid
        self._requests[rid] = d
        game = self.games.get(gid) or GameInfo(gid, "", {}, {}, [], [d.seat], {})
        try:
            obs = Observation(d) if self.lazy_observation else _json(d.observation_json)
            game.extra["deadline_ms"] = d.deadline_ms   # this decision's time (a search bot keeps to half)
            if self.threads:
                action = await asyncio.to_thread(self.bot.decide, obs, legal, game)
            else:
                action = self.bot.decide(obs, legal, game)
        except Exception as e:
            log.exception("decide failed for %s", rid)
            await self._write(pb.BotMessage(error=pb.BotError(request_id=rid,
                                                              message=f"{type(e).__name__}: {e}"[:500])))
            return
        if not isinstance(action, str):
            log.error("decide returned %r, not an action text", action)
            action = str(action)
        if action not in legal:
            log.error("decide returned %r, which is not among the legal actions %s", action, legal)
        answered = self.answered
        answered[rid] = action
        if len(answered) > 10000:
            for k in list(answered)[:5000]:
                del answered[k]
        msg = pb.BotMessage()
        msg.answer.request_id, msg.answer.action = rid, action    # in place (Answer(...) would be copied)
        await self._write(msg)

    async def _write(self, msg: pb.BotMessage) -> None:
        async with self._write_lock:
            call = self._call
            if call is None or call.done():
                return   # the arena will send the request again after the reconnect
            try:
                await call.write(msg)
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError, grpc.aio.UsageError) as e:
                log.info("write failed (%s); waiting for the reconnect", type(e).__name__)


def _json(text: str):
    """JSON text from the arena, parsed by orjson (the fast parse) or, for what orjson
    refuses (NaN, an integer past 64 bits), by json, whose ValueError is raised."""
    try:
        return orjson.loads(text)
    except ValueError:
        return json.loads(text)


def _loads(text: str) -> dict:
    try:
        out = _json(text) if text else {}
    except ValueError:
        return {}
    return out if isinstance(out, dict) else {}


def standing(*, token: str | None = None, server: str | None = None, recent: int = 0, tls: bool = False,
             ca: str | None = None, timeout_s: float = 60.0):
    """The bot's own standing in the arena (the MyStanding call, as `taash arena standing`
    prints it): an arena_pb2.StandingReply with ``bot``, ``ratings`` (per variant: mu,
    sigma, rank of ranked, games, deals, wins, draws, losses), ``games`` (its ``recent``
    latest, newest first; 0: 20, at most 200), ``games_total``, ``faults`` (per verdict
    kind, over the games listed) and ``resumed`` (seats taken back, no fault). ``token``
    defaults to $TAASH_TOKEN, ``server`` to $TAASH_SERVER or 127.0.0.1:50051; ``tls`` and
    ``ca`` as `BotClient` takes them. Raises ValueError without a token, AuthError for a
    token the arena refuses (unknown, or the admin's), LimitError for a call past the
    token's budget (its ``retry_s``: when to ask again), grpc.RpcError for other failures
    (the arena unreachable within ``timeout_s`` seconds: UNAVAILABLE or DEADLINE_EXCEEDED)."""
    token = token or os.environ.get("TAASH_TOKEN")
    if not token:
        raise ValueError("no token: pass token= or set TAASH_TOKEN (the bot's own token)")
    client = Client(tls, ca)
    if ca is not None:
        ca_pem(ca)
    with channel(server or os.environ.get("TAASH_SERVER") or DEFAULT_SERVER, client) as ch:
        try:
            return arena_pb2_grpc.ArenaStub(ch).MyStanding(apb.StandingRequest(recent=recent),
                                                           metadata=[("authorization", f"Bearer {token}")],
                                                           timeout=timeout_s)
        except grpc.RpcError as e:
            code = e.code()
            if code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
                raise AuthError(f"{code.name}: {e.details()}") from None
            if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise LimitError(f"{code.name}: {e.details()}") from None
            raise


def run(decide, *, token: str | None = None, name: str | None = None, server: str | None = None,
        max_games: int | None = None, threads: bool = True, tls: bool = False, ca: str | None = None) -> None:
    """Run a bot until interrupted (or for ``max_games`` games). ``decide`` is a function
    ``decide(observation, legal_actions) -> action`` or a `Bot`. ``token`` defaults to
    $TAASH_TOKEN, ``name`` to $TAASH_BOT, ``server`` to $TAASH_SERVER or 127.0.0.1:50051;
    ``tls`` and ``ca`` as `BotClient` takes them (TLS; ``ca``: a PEM file to trust).
    Raises AuthError if the arena refuses the token, HandshakeError if the first connection
    fails on TLS (see `BotClient`), ValueError if there is no token."""
    token = token or os.environ.get("TAASH_TOKEN")
    if not token:
        raise ValueError("no token: pass token= or set TAASH_TOKEN (issue one with `taash arena token NAME`)")
    client = BotClient(decide, token, name or os.environ.get("TAASH_BOT") or None,
                       server or os.environ.get("TAASH_SERVER") or DEFAULT_SERVER, max_games, threads,
                       tls=tls, ca=ca)
    asyncio.run(client.run())
