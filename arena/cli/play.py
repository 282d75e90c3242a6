"""`taash play VARIANT [--seat N] [--bots B,B,...] [--seed S] [--pace 0.8s] [--think-time 60s] [--review T]`:
a person plays a seat of a match against the built-in bots, in the browser (docs/web.md,
"Play a seat"). The web extra (gRPC, aiohttp, jinja2), loaded when the command runs.

One path, as for bots: an arena on loopback (a data folder of its own, ``--data``) with
the time control given, the built-in bots connected to it as clients (as `taash bot`
does), and the person's seat a client of the same ``Play`` stream, held by the web
server (arena/web/table.py), which serves the table's page. The match is started as
`taash arena match` starts one (RunMatches) and recorded like any other: `taash replay
DATA/records/...` and the viewer replay it."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import secrets
import sys
import threading
import time

from ..errors import UsageError
from .args import conv, parse_set, port

DEFAULT_PLAY_DIR = "taash-play"
NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def seconds(text: str) -> float:
    """An argparse type: a duration, "60s", "0.8s", "500ms", "2m" or a bare number of seconds."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m)?\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"must be a duration such as 60s, 0.8s, 500ms or 2m, not {text!r}")
    v = float(m.group(1)) * {"ms": 0.001, "s": 1.0, "m": 60.0, None: 1.0}[m.group(2)]
    if v > 86400:
        raise argparse.ArgumentTypeError(f"is too long: {text} (at most a day)")
    return v


class PacedBot:
    """A bot's ``decide`` that waits ``pace`` seconds first, so that a person can follow
    its moves (run in the SDK's worker threads: the arena is not held up)."""

    def __init__(self, agent, pace: float):
        self.agent, self.pace = agent, pace

    def decide(self, observation, legal, game):
        if self.pace > 0:
            time.sleep(self.pace)
        return self.agent.decide(observation, legal, game)


def _bots(args, players: int) -> list[str]:
    """The bot of each seat but the person's, in seat order: --bots, its last name
    repeated for the seats it does not name. UsageError for an unknown bot or too many."""
    from ..bots.registry import resolve
    from ..errors import UnknownBotError
    names = [b.strip() for b in args.bots.split(",")]
    if any(not b for b in names):
        raise UsageError(f"--bots takes bot names separated by commas, not {args.bots!r}")
    if len(names) > players - 1:
        raise UsageError(f"--bots names {len(names)} bots; this variant has {players - 1} seats besides yours")
    for b in names:
        try:
            e = resolve(b)
        except UnknownBotError as e:
            raise UsageError(str(e)) from None
        if "=" in b or ":" in b:
            raise UsageError(f"--bots {b!r}: taash play seats the registered bots (taash bot --help lists them)")
        if not e.arena:
            raise UsageError(f"bot {b!r} plays in process only, not over the arena")
    return names + [names[-1]] * (players - 1 - len(names))


def _take_lock(data: str):
    """DATA/arena.lock, the lock `taash arena serve` takes: one arena per data folder.
    UsageError if another holds it."""
    import fcntl
    f = open(os.path.join(data, "arena.lock"), "a")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise UsageError(f"another arena or `taash play` is using {data}: stop it or give another --data") from None
    return f


def _check_host(args) -> None:
    """Refuse a --host beyond loopback without --insecure, as `taash arena serve` does: the
    table's page is plaintext HTTP and its URL key is all that keeps a stranger off the
    person's seat. Raises UsageError."""
    from ..tls import loopback
    if not loopback(args.host) and not args.insecure:
        raise UsageError(f"--host {args.host} is reachable from other machines: the table is served in "
                         "plaintext and its address (with its key) is all that keeps anyone else off your "
                         "seat; pass --insecure to serve plaintext anyway")


def cmd_play(args) -> int:
    os.environ.setdefault("GRPC_VERBOSITY", "NONE")   # gRPC's C core logs on stderr otherwise
    from taash.interpreter import load_variant

    from .arena import uploaded_variant_text
    options = parse_set(args.set)
    v = load_variant(args.variant, options or None)      # a bad file: located problems, exit 1
    variant_text = uploaded_variant_text(args.variant, options)
    players = v.players
    if not 0 <= args.seat < players:
        raise UsageError(f"--seat must be from 0 to {players - 1} in {v.name}, not {args.seat}")
    _check_host(args)
    if not NAME.match(args.name):
        raise UsageError(f"--name must be 1 to 64 letters, digits, '_', '.' or '-', not {args.name!r}")
    others = _bots(args, players)
    if args.name in others:
        raise UsageError(f"--name {args.name!r} is the name of a bot of --bots: choose another")
    seats = list(others)
    seats.insert(args.seat, args.name)
    seed = args.seed if args.seed is not None else secrets.randbits(62)
    if not -2**63 <= seed < 2**63 - args.matches:
        raise UsageError("--seed must fit in 64 bits")
    try:
        os.makedirs(args.data, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--data {args.data}: {e.strerror or e}") from None
    lock = _take_lock(args.data)
    try:
        asyncio.run(_stoppable(_play(args, v.name, variant_text, options, seats, seed)))
    except KeyboardInterrupt:
        print("taash play: stopped", file=sys.stderr)
    except OSError as e:
        print(f"taash: error: {e.strerror or e}", file=sys.stderr)
        return 1
    finally:
        lock.close()
    return 0


async def _stoppable(coro) -> None:
    """Run ``coro`` until it ends or SIGTERM comes (then it is cancelled: the arena saves
    the game it was playing as cut short, as `taash arena serve` does)."""
    import signal
    task = asyncio.current_task()
    try:
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    except (NotImplementedError, RuntimeError):
        pass
    try:
        await coro
    except asyncio.CancelledError:
        print("taash play: stopped", file=sys.stderr)


async def _play(args, vname, variant_text, options, seats, seed) -> None:
    import grpc
    from aiohttp import web

    from ..bots.registry import ArenaAgent, resolve
    from ..pb import arena_pb2 as apb
    from ..pb import arena_pb2_grpc
    from ..sdk import BotClient
    from ..server import ArenaServer, TimeControl, deal_secret
    from ..store import SQLiteStore
    from ..tls import loopback
    from ..web.app import make_app
    from ..web.data import Site
    from ..web.table import SeatClient

    store = SQLiteStore(args.data)
    think_ms = int(args.think_time * 1000)
    tc = TimeControl(move_ms=max(1, think_ms), bank_ms=int(args.bank * 1000), grace_ms=int(args.grace * 1000))
    server = ArenaServer(store, tc, salt=deal_secret(args.data))
    aport = await server.start("127.0.0.1", 0)
    addr = f"127.0.0.1:{aport}"
    clients, tasks = [], []
    for i, name in enumerate(dict.fromkeys(b for s, b in enumerate(seats) if s != args.seat)):
        agent = ArenaAgent(resolve(name), args.seed_bots + i)
        c = BotClient(PacedBot(agent, args.pace).decide, store.issue_token(name), name, addr, threads=True)
        clients.append(c)
        tasks.append(asyncio.ensure_future(c.run()))
    seat = SeatClient(addr, store.issue_token(args.name), args.name)
    # the person's review of each deal holds the next one (no decision open meanwhile)
    seat.review_s = args.review
    server.arena.deal_break = seat.deal_break
    server.arena.stop_words = "stopped by the host: taash play was stopped (Ctrl-C or SIGTERM)"
    key = secrets.token_urlsafe(12)
    app = make_app(Site(None, args.data), seat=seat, table_key=key)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, args.host, args.port)
    try:
        await site.start()
    except OSError as e:
        await runner.cleanup()
        await server.stop()
        raise OSError(e.errno, f"cannot serve the table on {args.host}:{args.port}: {e.strerror or e}") from None
    wport = site._server.sockets[0].getsockname()[1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{wport}/table?key={key}"
    print(f"your table: {url}", flush=True)
    print(f"the table's page listens on {host}:{wport}"
          + ("" if loopback(args.host) else " (reachable from other machines: --insecure)"),
          file=sys.stderr, flush=True)
    print(f"{vname}: you are seat {args.seat}; " + ", ".join(f"seat {s} {b}" for s, b in enumerate(seats)
                                                            if s != args.seat)
          + f"; {args.think_time:g} s a decision; Ctrl-C stops", file=sys.stderr, flush=True)
    if args.open:
        import webbrowser
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    md = [("authorization", f"Bearer {server.admin_token}")]
    # a file of the user's is named by its own path (the record names it so); a shipped name as given
    named = str(os.path.abspath(args.variant)) if variant_text else args.variant

    async def matches(seed: int) -> None:
        while True:
            req = apb.MatchRequest(variant=named, variant_yaml=variant_text,
                                   options_json=json.dumps(options) if options else "", bots=seats,
                                   matches=args.matches, seed=seed, time_control=tc.to_pb(), wait_ms=30000,
                                   max_deals=args.deals or 0)
            async with grpc.aio.insecure_channel(addr) as ch:
                async for up in arena_pb2_grpc.ArenaStub(ch).RunMatches(req, metadata=md):
                    if up.WhichOneof("update") == "note":
                        print(up.note, file=sys.stderr, flush=True)
                        continue
                    g = up.game
                    print(f"{g.game_id}: {g.deals} deals, score {' '.join(map(str, g.score))}, winners "
                          f"{', '.join(f'seat {s}' for s in g.winners) or '-'}"
                          + (f", error: {g.error}" if g.error else ""), file=sys.stderr, flush=True)
                    if g.record:
                        print(f"record: {g.record} (replay it with: taash replay {g.record})", flush=True)
            if server.arena.stopping:       # stopped (Ctrl-C, SIGTERM): the game was saved as cut short
                return
            print("the match is over; the table stays open (its \"play again\" starts another) until Ctrl-C",
                  file=sys.stderr, flush=True)
            await seat.wait_again()
            seed += args.matches        # the same settings, the next seeds

    # the matches run in a task of their own, shielded from the stop (Ctrl-C, SIGTERM):
    # the stop reaches the arena first (below), so RunMatches does not end before the
    # arena saves its game as stopped by the host
    work = asyncio.ensure_future(matches(seed))
    try:
        await asyncio.shield(work)
    finally:
        # in this order: the arena first, which saves a game it was playing as cut short
        # by its host (no seat's stream has closed yet: no seat is blamed), then the
        # matches' task, the seat's stream (and the page's event streams with it), the
        # bots, the table's server
        await server.stop()
        work.cancel()
        await asyncio.gather(work, return_exceptions=True)
        seat.stop()
        for c in clients:
            c.stop()
        for t in tasks:
            t.cancel()
        await runner.cleanup()
        store.close()


def add_commands(sub) -> None:
    """Register `taash play` on the subparsers of `taash`."""
    p = sub.add_parser("play", help="play a seat yourself, in the browser, against the built-in bots",
                       description="Open a table in your browser and play one seat of VARIANT against the "
                                   "built-in bots: an arena on this machine (loopback only) seats them and "
                                   "you; the match is recorded in --data like any arena game.")
    p.add_argument("variant", metavar="VARIANT",
                   help="shipped name (29, 28, 56, 304, house/...) or a YAML file of yours")
    p.add_argument("--seat", type=conv(), default=0, metavar="N", help="your seat (default 0)")
    p.add_argument("--bots", default="heuristic", metavar="B,B,...",
                   help="the bot of each other seat in seat order, the last repeated (default heuristic; "
                        "registered bots: taash bot --help)")
    p.add_argument("--seed", type=int, metavar="S",
                   help="the match seed (default: a random one); the cards also depend on the data folder's "
                        "secret, so a seed alone does not tell them")
    p.add_argument("--pace", type=seconds, default=0.8, metavar="T",
                   help="how long each bot waits before it acts, so that you can follow (default 0.8s)")
    p.add_argument("--think-time", type=seconds, default=60.0, metavar="T",
                   help="your time for each decision (the arena's move time; then your bank; then the "
                        "default action is played for you; default 60s)")
    p.add_argument("--bank", type=seconds, default=120.0, metavar="T",
                   help="time bank per seat for the whole match, used once a decision's own time is spent "
                        "(default 120s)")
    p.add_argument("--grace", type=seconds, default=300.0, metavar="T",
                   help="how long your seat may be away (the page's server lost the arena) before the default "
                        "action is played for it (default 300s)")
    p.add_argument("--review", type=seconds, default=None, metavar="T",
                   help="how long the review of a finished deal holds the next one (default: until you "
                        "press continue; 0: not at all); no clock runs meanwhile")
    p.add_argument("--deals", type=conv(), default=0, metavar="N",
                   help="stop the match after N deals (0, the default: play it to the end)")
    p.add_argument("--matches", type=conv(1), default=1, metavar="M", help="matches, one after the other (default 1)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="set a variant option")
    p.add_argument("--name", default="you", metavar="NAME", help="your name in the records (default you)")
    p.add_argument("--data", default=DEFAULT_PLAY_DIR, metavar="DIR",
                   help=f"data folder of the table's arena: its records (default {DEFAULT_PLAY_DIR})")
    p.add_argument("--host", default="127.0.0.1", help="address of the table's page (default 127.0.0.1)")
    p.add_argument("--port", type=port, default=0, help="port of the table's page (default: any free port)")
    p.add_argument("--insecure", action="store_true",
                   help="serve the table's page on an address beyond loopback (refused without it: the page "
                        "is plaintext and its address with its key is all that keeps others off your seat)")
    p.add_argument("--no-browser", dest="open", action="store_false",
                   help="print the table's address, do not open a browser")
    p.add_argument("--seed-bots", type=int, default=0, metavar="S", help="seed of the bots' own choices (default 0)")
    p.set_defaults(fn=cmd_play, extra="web")
