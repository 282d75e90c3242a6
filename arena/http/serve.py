"""A bot of the registry (arena/bots/registry.py) served over the SmartBots 29 HTTP
protocol (docs/http-bots.md), so that it plays in arenas made for that protocol (`taash
serve http`).

Each request is answered from the request alone: `taash.arena.http.translate.state_of` builds a
`State` of ``house/29-bhoos`` (docs/rules.md §29b) consistent with it, the bot decides (an
observation agent from ``state.observation(seat)``, a state agent from the state), and
`answer_of` writes its answer. A request that cannot be read, or that no deal of §29b
fits, gets 400 with ``{"error": "..."}``; a failure of the bot 500 with the same shape;
the server never stops for either. A declarer that reveals is asked again with the
reveal made, and answers ``{"revealTrump": true, "card": ...}``; any other seat answers
``{"revealTrump": true}`` alone, as the protocol wants.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import threading

from aiohttp import web

from taash.interpreter import load_variant

from ..bots.registry import resolve
from .translate import RequestError, answer_of, state_of

log = logging.getLogger("taash.serve")
VARIANT = "house/29-bhoos"


class Served:
    """The bot ``spec`` (a registry name or NAME=module:factory) for ``variant`` with its
    decision function ``answer(path, body) -> dict`` (RequestError for a bad request)."""

    def __init__(self, spec: str, variant: str = VARIANT, seed: int = 0):
        self.entry = resolve(spec)
        self.variant = load_variant(variant)
        self.agent = self.entry.make(self.variant, seed)
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.requests = 0

    def _decide(self, st, seat):
        agent = self.agent
        if hasattr(agent, "decide_state") and not hasattr(agent, "decide"):
            action = agent.decide_state(st, seat)
        else:
            decide = getattr(agent, "decide", None) or agent
            legal = st.legal_actions()
            action = decide(st.observation(seat), [str(a) for a in legal])
        legal = st.legal_actions()
        if action not in legal:
            log.warning("bot %s answered %r, not legal; playing %s", self.entry.name, action, st.default_action())
            action = st.default_action()
        return str(action)

    def answer(self, path: str, body) -> dict:
        """The answer to the request ``body`` of ``path`` (see the module doc)."""
        with self.lock:
            self.requests += 1
            st, seat = state_of(self.variant, path, body, self.rng)
            action = self._decide(st, seat)
            if action == "expose":
                obs = st.observation(seat)
                if obs.get("declarer") == seat:      # it knows the trump: reveal and play at once
                    st.apply("expose")
                    card = self._decide(st, seat)
                    return {"revealTrump": True, "card": answer_of(card)["card"]}
            return answer_of(action)


MAX_BODY = 1 << 20      # bytes of a request's body; a longer one is answered 413


def make_app(served: Served) -> web.Application:
    """The aiohttp application: GET /hi, POST /bid /chooseTrump /play. A client's
    mistake is answered 400 (a body that is not JSON, nested too deeply, or not a
    request of the protocol) or 413 (a body over `MAX_BODY` bytes); 500 is the served
    bot's own failure only."""

    async def hi(request):
        return web.json_response({"value": "hello", "bot": served.entry.name, "variant": VARIANT})

    async def decision(request):
        path = "/" + request.match_info["endpoint"]
        try:
            try:
                raw = await request.read()
            except web.HTTPRequestEntityTooLarge:
                return web.json_response({"error": f"the body is over {MAX_BODY} bytes"}, status=413)
            try:
                body = json.loads(raw.decode("utf-8-sig"))
            except (ValueError, UnicodeDecodeError):
                raise RequestError("the body is not JSON") from None
            except RecursionError:
                raise RequestError("the body's JSON is nested too deeply") from None
            out = await asyncio.to_thread(served.answer, path, body)
        except (RequestError, RecursionError) as e:
            # a client's mistake (a nesting the translation cannot follow either): 400
            return web.json_response({"error": str(e) if isinstance(e, RequestError) else
                                      "the request is nested too deeply"}, status=400)
        except Exception as e:       # the bot failed: say so, keep serving
            log.exception("%s failed", path)
            return web.json_response({"error": f"{type(e).__name__}: {e}"}, status=500)
        return web.json_response(out)

    app = web.Application(client_max_size=MAX_BODY)
    app.router.add_get("/hi", hi)
    app.router.add_post("/{endpoint:bid|chooseTrump|play}", decision)
    return app


async def serve(served: Served, host: str, port: int, ready=None) -> None:
    """Serve until cancelled; ``ready(url)`` is called once listening."""
    runner = web.AppRunner(make_app(served), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    h, p = runner.addresses[0][:2]
    url = f"http://{h}:{p}"
    if ready:
        ready(url)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
