"""`taash bot BOT`: a registered bot, or one of the user's, as an arena client; `taash bot
http URL`: an outside bot of the SmartBots 29 HTTP protocol seated through the bridge
(arena/http/bridge.py). The arena extra (gRPC; aiohttp for http), loaded when the
command runs."""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
import os
import sys

from ..bots.registry import ArenaAgent, BotEntry, entries, resolve
from ..errors import UnknownBotError, UsageError
from .args import client_of, conv, server_arg

# the search bot's settings that `taash bot` takes as flags (arena/bots/search.py)
SEARCH_SETTINGS = ("budget_ms", "playouts", "prior_z", "call_eps", "greedy", "declare", "kernel")


def _number(low: float, high: float | None = None):
    """An argparse type: a number from ``low`` to ``high``."""
    def conv_(text):
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
        if v < low or (high is not None and v > high):
            raise argparse.ArgumentTypeError(f"must be from {low:g} to {high:g}, not {text}" if high is not None
                                             else f"must be at least {low:g}, not {text}")
        return v
    return conv_


# the ismcts bot's settings that `taash bot` takes as flags (arena/bots/ismcts.py)
ISMCTS_SETTINGS = ("budget_ms", "playouts", "exploration", "greedy", "kernel")


def _with_settings(entry: BotEntry, args) -> BotEntry:
    """``entry`` with the settings of the search or ismcts bot given as flags (its
    factory called with them). Raises UsageError for a flag the bot does not take."""
    names = dict.fromkeys(SEARCH_SETTINGS + ISMCTS_SETTINGS)
    given = {k: getattr(args, k) for k in names if getattr(args, k, None) not in (None, False)}
    if not given:
        return entry
    from ..bots.ismcts import ismcts_bot
    from ..bots.search import search_bot
    factory = entry.load()
    takes = {search_bot: SEARCH_SETTINGS, ismcts_bot: ISMCTS_SETTINGS}.get(factory)
    if takes is None:
        flags = ", ".join("--" + f.replace("_", "-") for f in names if f in given)
        whose = "the ismcts bot" if all(f in ISMCTS_SETTINGS and f not in SEARCH_SETTINGS for f in given) else \
            "the search bot"
        raise UsageError(f"{flags}: settings of {whose}, not of {entry.name!r}")
    wrong = [f for f in given if f not in takes]
    if wrong:
        flags = ", ".join("--" + f.replace("_", "-") for f in wrong)
        other = "the ismcts bot" if factory is search_bot else "the search bot"
        raise UsageError(f"{flags}: settings of {other}, not of {entry.name!r}")
    if "kernel" in given:        # --kernel wait / off: the bots' kernel=True / False
        given["kernel"] = given["kernel"] == "wait"
    return BotEntry(entry.name, functools.partial(factory, **given), entry.description, entry.arena)


def cmd_bot(args) -> int:
    if args.kind == "http":          # an outside bot of the SmartBots 29 HTTP protocol
        return _bot_http(args)
    try:
        entry = resolve(args.kind)
        entry.load()        # a factory that does not import stops here, not at every decision
    except UnknownBotError as e:
        raise UsageError(str(e)) from None
    entry = _with_settings(entry, args)
    if not entry.arena:
        raise UsageError(f"bot {entry.name!r} needs the state (a search bot): it plays in process only "
                         "(taash simulate --bots, taash ladder run --bots), not over the arena")
    token = args.token or os.environ.get("TAASH_TOKEN")
    if not token:
        raise UsageError("no token: pass --token TOKEN or set TAASH_TOKEN "
                         "(issue one with `taash arena token NAME`)")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr)
    name = args.name or entry.name
    from ..sdk import BotClient
    bot = ArenaAgent(entry, args.seed)
    tls = client_of(args)
    client = BotClient(bot.decide, token, name, args.server, max_games=args.games,
                       batch_events=args.batch_events, tls=tls.tls, ca=tls.ca)
    print(f"bot {name} ({entry.name}) playing at {args.server}", file=sys.stderr, flush=True)
    return run_client(client, name)


def run_client(client, name: str) -> int:
    """Run a bot's arena client to its end; a refused token, or a first connection that
    fails on TLS, is one line and exit 1."""
    from ..sdk import AuthError, HandshakeError
    try:
        asyncio.run(client.run())
    except AuthError as e:
        print(f"taash: error: the arena refused bot {name!r}: {e}", file=sys.stderr)
        return 1
    except HandshakeError as e:
        print(f"taash: error: {e}", file=sys.stderr)
        return 1
    return 0


def _bot_http(args) -> int:
    """`taash bot http URL [--name NAME --token T --server ADDR --wait S --games N]`."""
    from ..http.bridge import BridgeClient, BridgeError, wait_hi
    url = args.url
    if not url:
        raise UsageError("taash bot http needs the bot's URL: taash bot http http://127.0.0.1:8001")
    if "://" not in url:
        url = "http://" + url
    token = args.token or os.environ.get("TAASH_TOKEN")
    if not token:
        raise UsageError("no token: pass --token TOKEN or set TAASH_TOKEN (issue one with `taash arena token NAME`)")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr)
    name = args.name or os.environ.get("TAASH_BOT") or "http"
    try:
        hello = asyncio.run(wait_hi(url, getattr(args, "wait_http", 10.0)))
    except BridgeError as e:
        print(f"taash: error: the HTTP bot is not there: {e}", file=sys.stderr)
        return 1
    tls = client_of(args)
    client = BridgeClient(url, token, name, args.server, max_games=args.games, tls=tls.tls, ca=tls.ca)
    print(f"bot {name} (HTTP bot at {url}, /hi: {hello[:60]}) playing at {args.server}", file=sys.stderr, flush=True)
    code = run_client(client, name)
    if client.refused:     # a game of a variant the protocol cannot play: left at its start
        print(f"taash: error: {client.refused}", file=sys.stderr)
        return 1
    return code


def add_commands(sub) -> None:
    """Register `taash bot ...` on the subparsers of `taash`."""
    listing = "\n".join(f"  {e.name:12} {e.description}" for e in entries())
    b = sub.add_parser("bot", help="run a registered bot that plays in the arena",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Run a bot of the registry (arena/bots/registry.py) as an arena client.",
                       epilog=f"registered bots:\n{listing}\n"
                              "or BOT=package.module:factory for a bot of your own (a factory "
                              "f(variant) returning an agent with decide(observation, legal)), "
                              "or BOT=package.module:maker@ARG for the factory maker(ARG): a trained "
                              "policy is BOT=taash.learn.policy:from_file@FILE.npz (docs/learning.md)")
    b.add_argument("kind", metavar="BOT", help="a registered bot (see below) or NAME=package.module:factory; "
                   "`http URL`: an HTTP bot of the SmartBots 29 protocol (docs/http-bots.md)")
    b.add_argument("url", nargs="?", metavar="URL", help="with `http`: the HTTP bot's address")
    b.add_argument("--wait-http", type=float, default=10.0, metavar="S",
                   help="with `http`: how long to wait for GET /hi to answer (default 10)")
    b.add_argument("--name", metavar="NAME", help="the bot's name in the arena (default: the bot's)")
    b.add_argument("--token", metavar="T", help="its token (default $TAASH_TOKEN)")
    server_arg(b)
    b.add_argument("--seed", type=int, default=0, help="seed of the bot's own choices, for a seeded bot such as random (default 0)")
    b.add_argument("--games", type=conv(1), metavar="N", help="stop after N games (default: never)")
    b.add_argument("--budget-ms", type=conv(1), metavar="N",
                   help="a search bot's time per decision, ms (default 50; never above half the decision's deadline)")
    b.add_argument("--playouts", type=conv(1), metavar="N",
                   help="a search bot's rollouts (ismcts: iterations) per decision (reproducible decisions; "
                        "default: time only)")
    b.add_argument("--prior-z", type=_number(0), metavar="Z",
                   help="a search bot's lead, in standard errors, needed to leave the heuristic's action "
                        "(default 2; 0: no prior)")
    b.add_argument("--call-eps", type=_number(0, 1), metavar="P",
                   help="a search bot's weight of a world for each call of another seat (a bid, a pass, "
                        "a trump) that its model, the heuristic, would not have made there "
                        "(default 0.2; 1: uniform worlds)")
    b.add_argument("--greedy", type=_number(0, 1), metavar="P",
                   help="a search or ismcts bot's chance of a greedy card in its rollouts (default 0.8)")
    b.add_argument("--exploration", type=_number(0), metavar="C",
                   help="the ismcts bot's UCB1 constant, in units of the spread of the values it has seen "
                        "(default 0.7)")
    b.add_argument("--declare", action="store_true",
                   help="a search bot's rollouts make the declarations with an effect (a marriage, a pair)")
    b.add_argument("--kernel", nargs="?", const="wait", choices=("wait", "off"),
                   help="a search or ismcts bot's rollouts in the play phase on the compiled kernel (the fast extra): by "
                        "default made in the background, the engine rolling out until it is ready; --kernel "
                        "(wait): its first decision in play waits for it (10-30 s the first time, then cached "
                        "on disk); --kernel off: the engine only")
    b.add_argument("--batch-events", action="store_true",
                   help="receive the public events inside the next decision request (fewer messages; "
                        "docs/protocol.md, Batched events)")
    b.add_argument("-v", "--verbose", action="store_true", help="log connections and verdicts")
    b.set_defaults(fn=cmd_bot, extra="arena")
