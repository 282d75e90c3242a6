"""`taash serve http --bot NAME [--host 127.0.0.1] [--port 8001]`: a bot of the registry
served over the SmartBots 29 HTTP protocol (arena/http/serve.py, docs/http-bots.md); the
arena extra (aiohttp), loaded when the command runs."""

from __future__ import annotations

import asyncio
import logging
import sys

from ..errors import UnknownBotError, UsageError


def cmd_serve_http(args) -> int:
    """Serve the bot until interrupted; a bad bot or address is a usage error (exit 2)."""
    from ..http.serve import Served, serve
    from ..tls import loopback
    if not loopback(args.host) and not args.insecure:
        raise UsageError(f"--host {args.host} is reachable from other machines: the SmartBots protocol is "
                         "plaintext HTTP without a token, so anyone who reaches it can use the bot; pass "
                         "--insecure to serve plaintext anyway")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr)
    try:
        served = Served(args.bot, seed=args.seed)
    except UnknownBotError as e:
        raise UsageError(str(e)) from None

    def ready(url):
        print(f"serving bot {served.entry.name} over HTTP (SmartBots 29) listening on {url}", flush=True)

    try:
        asyncio.run(serve(served, args.host, args.port, ready))
    except OSError as e:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    except KeyboardInterrupt:
        pass
    return 0


def add_commands(sub) -> None:
    """Register `taash serve http ...` on the subparsers of `taash`."""
    s = sub.add_parser("serve", help="serve a taash bot over another protocol (http: SmartBots 29)")
    ssub = s.add_subparsers(dest="serve_command", metavar="PROTOCOL")
    ssub.required = True
    h = ssub.add_parser("http", help="serve a registered bot over the SmartBots 29 HTTP protocol (docs/http-bots.md)")
    h.add_argument("--bot", required=True, metavar="NAME", help="a registered bot (random, heuristic, ...) or NAME=module:factory")
    h.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    h.add_argument("--insecure", action="store_true",
                   help="serve plaintext on an address beyond loopback (refused without it: the protocol "
                        "has no token, anyone who reaches the address can use the bot)")
    h.add_argument("--port", type=int, default=8001, help="port (default 8001; 0: any free port)")
    h.add_argument("--seed", type=int, default=0, help="seed of the bot's and the dealing's choices (default 0)")
    h.add_argument("-v", "--verbose", action="store_true", help="log every failure")
    h.set_defaults(fn=cmd_serve_http, extra="arena")
