"""`taash web`: the read-only web pages of the arena and the ladder (docs/web.md).

aiohttp (already a dependency of the HTTP bridge, arena/http) serves Jinja2 templates
and the static files beside this module; nothing is fetched from another site. Pages:

- ``/``: the ladders, the live tables (with --arena) and the arena's latest games;
- ``/ladder/{variant}``: standings, ratings chart (inline SVG), head-to-head, games;
- ``/game?src=S&key=K``: the viewer of a recorded game (S: "arena" or a ladder's
  variant; K: the arena's game id or the ladder's game key), ``/record?src=S&key=K`` its
  record (a download);
- ``/bot/{name}``: a bot's results by variant, games and faults by kind;
- ``/live``, ``/live/events`` (server-sent events): the running games;
- ``/table...`` (with a seat, `taash play` or --play-as): a person's seat (table.py).

Every route but the table's only reads; nothing here starts a match or changes the store.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import urllib.parse
from pathlib import Path

from aiohttp import web

from taash.interpreter import RecordError, VariantError

from ..ladder.margins import MIN_EVENTS
from . import table
from .data import BadRecord, Site, card_parts, chart_svg, game_view
from .live import LiveHub

HERE = Path(__file__).parent
PER_PAGE = 24   # live tables on one page (the rest are listed, page by page)


def environment():
    """The Jinja2 environment of the templates (autoescaped), with the `card` filter and
    ``min_events`` (the fewest events for a margin to be called ahead)."""
    import jinja2
    from markupsafe import Markup, escape
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                             autoescape=jinja2.select_autoescape(["html"]))

    def card(text):
        r, s, c = card_parts(str(text))
        return Markup(f'<span class="card {c}" data-card="{escape(text)}">{escape(r)}{s}</span>')

    env.filters["card"] = card
    env.filters["tojson_safe"] = lambda x: Markup(json.dumps(x).replace("<", "\\u003c"))
    env.filters["q"] = lambda s: urllib.parse.quote(str(s), safe="")
    env.globals["min_events"] = MIN_EVENTS
    return env


def make_app(site: Site, arena: str | None = None, batch_s: float = 0.1,
             watch_token: str | None = None, seat=None, table_key: str = "", tls=None) -> web.Application:
    """The application over ``site``; ``arena`` (host:port): follow its live games, a
    page getting the states changed in each ``batch_s`` seconds as one message;
    ``watch_token``: the token of an arena served with --private-watch; ``seat``: a
    `table.SeatClient` a person plays from ``/table?key=table_key`` (it is run while
    the application runs); ``tls``: how to reach the arena (a tls.Client; None: plaintext)."""
    env = environment()
    app = web.Application()
    hub = None
    if seat is not None:
        seat_task = []

        async def seat_start(app):
            seat_task.append(asyncio.ensure_future(seat.run()))

        async def seat_stop(app):
            seat.stop()
            for t in seat_task:
                t.cancel()
                try:
                    await t
                except (asyncio.CancelledError, Exception):
                    pass
        app.on_startup.append(seat_start)
        # on shutdown, before the server waits for its handlers: the seat's stream closes
        # and the pages' event streams end at once (they would wait out their 15 s beat)
        app.on_shutdown.append(seat_stop)
    if arena:
        hub = LiveHub(arena, token=watch_token, tls=tls)

        async def start(app):
            hub.start()

        async def stop(app):
            await hub.stop()
        app.on_startup.append(start)
        app.on_cleanup.append(stop)

    def page(name, **kw):
        html = env.get_template(name).render(live=hub is not None, **kw)
        return web.Response(text=html, content_type="text/html")

    async def index(request):
        ladders = [{"variant": v, "standings": site.standings(v)} for v in site.variants()]
        return page("index.html", ladders=ladders, games=site.arena_games()[:50])

    async def ladder(request):
        v = request.match_info["variant"]
        if v not in site.variants():
            raise web.HTTPNotFound(text=f"no ladder for {v}")
        return page("ladder.html", variant=v, standings=site.standings(v), h2h=site.head_to_head(v),
                    chart=chart_svg(site.ladder.history(v)), games=site.games(v)[:200])

    async def game(request):
        src, key = request.query.get("src", ""), request.query.get("key", "")
        if not src or not key:
            raise web.HTTPBadRequest(text="a game is named by ?src=arena|VARIANT&key=GAME")
        rec = shown_record(src, key)
        bots = None
        if src != "arena":
            g = site.ladder.games(src).get(key)
            bots = list(g.bots) if g else None
        try:
            view = game_view(rec, bots)
        except (RecordError, VariantError) as e:     # edited, cut short, or its variant changed
            raise web.HTTPUnprocessableEntity(text=f"the record of game {key} does not replay: {e}") from None
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as e:   # a shape replay did not expect
            raise web.HTTPUnprocessableEntity(
                text=f"the record of game {key} does not replay: {type(e).__name__}: {e}") from None
        return page("game.html", source=src, key=key, view=view)

    def shown_record(src, key) -> dict:
        """The record of ``key`` for a page; 404 if there is none, 422 if its file is no record."""
        try:
            rec = site.record(src, key)
        except BadRecord as e:
            raise web.HTTPUnprocessableEntity(text=str(e)) from None
        if rec is None:
            raise web.HTTPNotFound(text=f"no record of game {key}")
        return rec

    async def record(request):
        src, key = request.query.get("src", ""), request.query.get("key", "")
        rec = shown_record(src, key)
        name = key.replace("/", "_") + ".json"
        return web.Response(text=json.dumps(rec, indent=1), content_type="application/json",
                            headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def bot(request):
        b = site.bot(request.match_info["name"])
        if not b["variants"] and not b["arena_games"]:
            raise web.HTTPNotFound(text=f"no games of bot {request.match_info['name'][:64]!r}")
        return page("bot.html", bot=b)

    def page_number(request) -> int:
        """The ``page`` query parameter (0-based); 400 unless a whole number >= 0."""
        text = request.query.get("page", "0") or "0"
        if not text.isdigit() or len(text) > 9:
            raise web.HTTPBadRequest(text=f"page must be a whole number from 0, not {text[:20]!r}")
        return int(text)

    async def live(request):
        if hub is None:
            raise web.HTTPNotFound(text="no arena: start taash web with --arena ADDR")
        page_number(request)
        return page("live.html", connected=hub is not None and hub.connected)

    async def events(request):
        if hub is None:
            raise web.HTTPNotFound(text="no arena: start with --arena ADDR")
        page_no = page_number(request)
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await resp.prepare(request)
        q = hub.subscribe()
        shown: set[str] = set()

        def pick(g) -> bool:
            """Games on this page: the first PER_PAGE*(page+1) ids, this page's slice."""
            if g["id"] in shown:
                return True
            ids = sorted(hub.games)
            lo = page_no * PER_PAGE
            if g["id"] in ids[lo:lo + PER_PAGE] and len(shown) < PER_PAGE:
                shown.add(g["id"])
                return True
            return False

        try:
            snap = [g for g in sorted(hub.games.values(), key=lambda g: g["id"]) if pick(g)]
            await resp.write(b"event: snapshot\ndata: " + json.dumps(
                {"games": snap, "running": len(hub.games), "page": page_no, "per_page": PER_PAGE,
                 "connected": hub.connected}).encode() + b"\n\n")
            while True:
                try:
                    await asyncio.wait_for(q.wake.wait(), 15)
                except asyncio.TimeoutError:
                    await resp.write(b": keep-alive\n\n")
                    continue
                if batch_s:
                    await asyncio.sleep(batch_s)   # one message per batch, whatever the event rate
                dirty, reset = q.take()
                if reset:
                    shown.clear()
                    await resp.write(b'data: {"kind":"reset"}\n\n')
                games = [g for _, g in sorted(dirty.items()) if pick(g)]
                for g in games:
                    if g["over"]:
                        shown.discard(g["id"])
                if games:
                    text = json.dumps({"kind": "games", "games": games, "running": len(hub.games)},
                                      separators=(",", ":"))
                    await resp.write(b"data: " + text.encode() + b"\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            hub.unsubscribe(q)
        return resp

    async def live_json(request):
        if hub is None:
            raise web.HTTPNotFound(text="no arena: start with --arena ADDR")
        return web.json_response({"connected": hub.connected, "running": len(hub.games),
                                  "games": sorted(hub.games.values(), key=lambda g: g["id"])[:PER_PAGE]})

    app.router.add_get("/", index)
    app.router.add_get("/ladder/{variant:.+}", ladder)
    app.router.add_get("/game", game)
    app.router.add_get("/record", record)
    app.router.add_get("/bot/{name}", bot)
    app.router.add_get("/live", live)
    app.router.add_get("/live/events", events)
    app.router.add_get("/live.json", live_json)
    if seat is not None:
        table.add_routes(app, seat, table_key, page)
    app.router.add_static("/static", HERE / "static")
    return app


def serve(site: Site, host: str = "127.0.0.1", port: int = 8080, arena: str | None = None,
          print_fn=print, watch_token: str | None = None, seat=None, tls=None) -> None:
    """Run the pages until interrupted; prints one line ``web pages on http://HOST:PORT/``
    (and, with ``seat``, a `table.SeatClient`, one more: ``your table: URL`` with the
    table's key). ``tls``: how to reach the arena (a tls.Client; None: plaintext). Raises
    OSError if ``host:port`` cannot be bound (in use, no such address)."""
    key = secrets.token_urlsafe(12) if seat is not None else ""
    app = make_app(site, arena, watch_token=watch_token, seat=seat, table_key=key, tls=tls)

    async def main():
        runner = web.AppRunner(app)
        await runner.setup()
        sitew = web.TCPSite(runner, host, port)
        await sitew.start()
        real = sitew._server.sockets[0].getsockname()[1]
        print_fn(f"web pages on http://{host}:{real}/", flush=True)
        if seat is not None:
            print_fn(f"your table: http://{host}:{real}/table?key={key}", flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            await runner.cleanup()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
