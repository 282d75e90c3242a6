"""`taash bot http URL`: an outside bot of the SmartBots 29 HTTP protocol
(docs/http-bots.md) seated in the arena as an ordinary arena bot (arena/sdk.py).

For each decision of one of its seats the bridge builds the protocol's request from the
seat's observation alone (`taash.arena.http.translate.request_of`), POSTs it to the bot (aiohttp:
one keep-alive connection pool, a timeout per request from the arena's deadline), and sends
the arena the action of its answer (`parse_answer`). What can go wrong becomes the arena's
fault path (docs/protocol.md, "The fault policy"; docs/http-bots.md):

| the HTTP bot | the bridge | verdict |
|---|---|---|
| refuses the connection, answers 4xx/5xx, a body that is not JSON or lacks its field | sends `error` | BOT_ERROR |
| does not answer by the arena's deadline | sends nothing | TIMEOUT |
| names an unknown card, an illegal card or bid, a reveal it may not make | sends that action | ILLEGAL_ACTION, then the bot is asked again while time is left; STRIKE_OUT |

A reveal with a card is sent as ``expose`` then the card; a reveal without one as
``expose``, after which the arena asks again and so does the bridge (``/play`` with the
trump now known), as the protocol does.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time

import aiohttp

from ..errors import ArenaError
from ..pb import messages_pb2 as pb
from ..sdk import BotClient
from .translate import AnswerError, Unsupported, default_ids, parse_answer, request_of

log = logging.getLogger("taash.http")

# the one variant the protocol plays: docs/rules.md §29b, shipped as house/29-bhoos
# (its file's `name:`, as GameStart.variant_json carries it)
PROTOCOL_VARIANT, PROTOCOL_VARIANT_NAME = "house/29-bhoos", "29-bhoos"

MARGIN_MS = 50.0        # kept back from the deadline for the bridge and the arena's network


class BridgeError(ArenaError):
    """The HTTP bot gave no usable answer (connection, status, body): becomes BOT_ERROR."""


MAX_ANSWER_BYTES = 64 << 10     # an HTTP bot's answer is a few bytes of JSON; past this, BOT_ERROR


class BridgeTimeout(ArenaError):
    """The HTTP bot did not answer by the arena's deadline: the arena's TIMEOUT follows."""


class HttpBot:
    """A client of one HTTP bot at ``url`` (``http://host:port``). ``ids``: the player ids
    sent in seat order (default ``P0..P3``). Make it inside the event loop it is used on."""

    def __init__(self, url: str, ids: list[str] | None = None, connections: int = 16):
        self.url = url.rstrip("/")
        self.ids = ids or default_ids(4)
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=connections, keepalive_timeout=60),
            headers={"Content-Type": "application/json"})
        self.pending: dict[tuple[str, int], str] = {}    # (game, seat) -> the card after a reveal
        self.calls = 0
        self.http_ms: dict[tuple[str, int], float] = {}   # (game, seat) -> the last POST's round trip
        self.faults: list[tuple[str, str]] = []          # (kind, message), newest last

    async def close(self) -> None:
        await self.session.close()

    async def hi(self, timeout_s: float = 2.0) -> str:
        """GET /hi; the body's text. Raises BridgeError if the bot is not there or does not
        answer 200."""
        try:
            async with self.session.get(self.url + "/hi", timeout=aiohttp.ClientTimeout(total=timeout_s)) as r:
                text = await r.text(errors="replace")
                if r.status != 200:
                    raise BridgeError(f"GET {self.url}/hi answered HTTP {r.status}: {text[:120]!r}")
                return text.strip()
        except aiohttp.ClientError as e:
            raise BridgeError(f"no HTTP bot at {self.url}: {e}") from None
        except asyncio.TimeoutError:
            raise BridgeError(f"GET {self.url}/hi did not answer within {timeout_s:g} s") from None

    async def post(self, path: str, body: dict, timeout_s: float) -> bytes:
        """POST ``body`` as JSON; the answer's bytes. BridgeError for a refused connection,
        a status other than 200 (a redirect is not followed) or an answer past
        `MAX_ANSWER_BYTES`; BridgeTimeout after ``timeout_s``, the answer's body included."""
        self.calls += 1
        try:
            async with self.session.post(self.url + path, data=json.dumps(body), allow_redirects=False,
                                         timeout=aiohttp.ClientTimeout(total=max(0.001, timeout_s))) as r:
                if r.status != 200:
                    head = await r.content.read(120)
                    raise BridgeError(f"POST {path} answered HTTP {r.status}: {head!r}")
                if (r.content_length or 0) > MAX_ANSWER_BYTES:
                    raise BridgeError(f"POST {path}: an answer of {r.content_length} bytes; "
                                      f"at most {MAX_ANSWER_BYTES}")
                chunks, size = [], 0
                async for chunk in r.content.iter_chunked(1 << 16):
                    size += len(chunk)
                    if size > MAX_ANSWER_BYTES:     # read no further: the connection is dropped
                        raise BridgeError(f"POST {path}: an answer past {MAX_ANSWER_BYTES} bytes")
                    chunks.append(chunk)
                return b"".join(chunks)
        except asyncio.TimeoutError:
            raise BridgeTimeout(f"POST {path} gave no answer within {timeout_s * 1000:.0f} ms") from None
        except aiohttp.ClientConnectorError as e:
            raise BridgeError(f"POST {path}: cannot connect to {self.url}: {e.os_error or e}") from None
        except aiohttp.ClientError as e:
            raise BridgeError(f"POST {path}: {type(e).__name__}: {e}") from None

    async def decide(self, game_id: str, observation: dict, remaining_ms: float) -> str:
        """The action text to send the arena for this decision (see the module doc).
        Raises BridgeError, BridgeTimeout."""
        seat = observation["seat"]
        key = (game_id, seat)
        then = self.pending.pop(key, None)
        hist = observation.get("history") or []
        if then is not None and hist and hist[-1] == [seat, "expose"]:
            return then          # the card that came with the reveal
        try:
            path, body = request_of(observation, self.ids, max(0.0, remaining_ms - MARGIN_MS))
        except Unsupported as e:
            raise BridgeError(str(e)) from None
        t = time.perf_counter()
        data = await self.post(path, body, (remaining_ms + MARGIN_MS) / 1000.0)
        self.http_ms[key] = (time.perf_counter() - t) * 1000.0
        try:
            ans = parse_answer(path, data, observation)
        except AnswerError as e:
            raise BridgeError(f"{path}: {e}") from None
        if ans.then is not None:
            self.pending[key] = ans.then
        return ans.action


def unplayable(variant: str, data: dict, options: dict) -> str | None:
    """Why a game of ``variant`` (GameStart.variant, its ``data`` and ``options``) is one
    the SmartBots protocol cannot play, in one sentence; None for house/29-bhoos without
    options (the protocol's bids, trump choice and reveal are §29b's: another variant's
    decisions have no request, or one the bot would misread)."""
    name = data.get("name") if isinstance(data, dict) else None
    if name == PROTOCOL_VARIANT_NAME and not options:
        return None
    what = f"{variant} ({name}, {data.get('players')} players)" if isinstance(data, dict) else variant
    if name == PROTOCOL_VARIANT_NAME:
        what = f"{variant} with options {json.dumps(options, sort_keys=True)}"
    return (f"the SmartBots 29 protocol plays only {PROTOCOL_VARIANT} (docs/rules.md §29b: its auction, "
            f"trump choice and reveal are the requests the protocol has), not {what}: the bridge leaves "
            "the arena rather than take seats it cannot play")


class BridgeClient(BotClient):
    """The arena connection of a bridge: a `BotClient` whose answers come from an `HttpBot`
    (made on the client's event loop from ``url``) with the arena's deadline; ``tls``,
    ``ca``: how it reaches the arena (`BotClient`)."""

    def __init__(self, url: str, token: str, name: str | None = None, server: str = "127.0.0.1:50051",
                 max_games: int | None = None, ids: list[str] | None = None, tls: bool = False,
                 ca: str | None = None):
        super().__init__(lambda o, l: l[0], token, name, server, max_games, threads=False, tls=tls, ca=ca)
        self.url, self.ids = url, ids
        self.http: HttpBot | None = None
        self._t0: dict[tuple[str, bool], float] = {}
        # per answered decision (bench/http.py): (ms from the request's arrival to the answer
        # written, ms of that decision's HTTP round trip, or 0 when no POST was needed)
        self.timings: list[tuple[float, float]] = []
        self.refused: str | None = None    # why the bridge left: a game it cannot play

    def _handle(self, call, msg: pb.ServerMessage):
        """As `BotClient._handle`; a GameStart of a variant the protocol cannot play stops
        the client (``refused`` says why) before any of its decisions is asked."""
        out = super()._handle(call, msg)
        if msg.WhichOneof("msg") == "game_start":
            g = self.games.get(msg.game_start.game_id)
            why = g and unplayable(g.variant, g.variant_data, g.options)
            if why:
                self.refused = why
                log.info("game %s: %s", g.game_id, why)
                self.stop()
        return out

    async def run(self) -> None:
        if self.http is None:
            self.http = HttpBot(self.url, self.ids)
        try:
            await super().run()
        finally:
            await self.http.close()

    async def _answer(self, d: pb.DecisionRequest, legal: list[str]) -> None:
        self._requests[d.request_id] = d
        # the deadline counts from the (re)sent request; a retry after ILLEGAL_ACTION runs on its clock
        t0 = self._t0.setdefault((d.request_id, d.resumed), time.monotonic())
        if len(self._t0) > 10000:
            for k in list(self._t0)[:5000]:
                del self._t0[k]
        remaining = d.deadline_ms - (time.monotonic() - t0) * 1000.0
        t_in = time.perf_counter()
        try:
            obs = json.loads(d.observation_json)
            self.http.http_ms.pop((d.game_id, d.seat), None)
            action = await self.http.decide(d.game_id, obs, remaining)
        except BridgeTimeout as e:
            log.warning("%s seat %d: %s (the arena's TIMEOUT follows)", d.game_id, d.seat, e)
            self.http.faults.append(("timeout", str(e)))
            return
        except BridgeError as e:
            log.warning("%s seat %d: %s", d.game_id, d.seat, e)
            self.http.faults.append(("error", str(e)))
            await self._write(pb.BotMessage(error=pb.BotError(request_id=d.request_id, message=str(e)[:500])))
            return
        except Exception as e:   # never lose a decision to a bug of the bridge
            log.exception("bridge failed for %s", d.request_id)
            await self._write(pb.BotMessage(error=pb.BotError(
                request_id=d.request_id, message=f"bridge: {type(e).__name__}: {e}"[:500])))
            return
        if action not in legal:
            log.warning("%s seat %d: the HTTP bot answered %r, not legal now", d.game_id, d.seat, action)
        self.answered[d.request_id] = action
        await self._write(pb.BotMessage(answer=pb.Answer(request_id=d.request_id, action=action)))
        if len(self.timings) < 1_000_000:
            self.timings.append(((time.perf_counter() - t_in) * 1000.0,
                                 self.http.http_ms.get((d.game_id, d.seat), 0.0)))


async def wait_hi(url: str, wait_s: float) -> str:
    """GET /hi until it answers 200 or ``wait_s`` has passed; its text. BridgeError (with
    the last reason) if the bot is not there."""
    bot = HttpBot(url)
    end = time.monotonic() + wait_s
    try:
        while True:
            try:
                return await bot.hi()
            except BridgeError:
                if time.monotonic() >= end:
                    raise
                await asyncio.sleep(0.2)
    finally:
        await bot.close()
