"""`taash web [--data DIR] [--store URL] [--arena ADDR [--play-as NAME --token T]] [--host 127.0.0.1] [--port 8080]`
and the body of `taash ladder report --out FILE.html` (docs/web.md); the web extra
(aiohttp, jinja2), loaded when the command runs."""

from __future__ import annotations

import os
import sys

from ..errors import NoLadder, StoreError, UsageError
from ..store import DEFAULT_DATA_DIR, open_ladder_store, read_watch_token
from .args import address, client_of, port, tls_args


def _site(args):
    """The pages' data: the ladder of --store/--data if there is one, or once there is one
    (none is created: the pages only read), and the arena's data directory."""
    from ..web.data import Site

    def open_ladder():
        try:
            return open_ladder_store(args.store, args.data, create=False)
        except NoLadder:        # not yet: looked for again at the next page
            return None
    return Site(open_ladder(), args.data, open_ladder=open_ladder)


def cmd_web(args) -> int:
    from ..web.app import serve
    if not args.store and not os.path.isdir(args.data):
        print(f"taash: error: no data directory {args.data!r} (the --data of an arena or a ladder)",
              file=sys.stderr)
        return 1
    token = args.watch_token if args.watch_token is not None else read_watch_token(args.data)
    try:
        site = _site(args)
    except StoreError as e:
        print(f"taash: error: {e}", file=sys.stderr)
        return 1
    seat = None
    if args.play_as:
        if not args.arena:
            raise UsageError("--play-as needs --arena ADDR: the arena whose match seats NAME")
        seat_token = args.token or os.environ.get("TAASH_TOKEN")
        if not seat_token:
            raise UsageError(f"--play-as {args.play_as}: give its token with --token T (or $TAASH_TOKEN; "
                             f"issue one with `taash arena token {args.play_as}`)")
        from ..web.table import SeatClient
        seat = SeatClient(args.arena, seat_token, args.play_as, tls=client_of(args))
    if args.nice:
        os.nice(args.nice)
    try:
        serve(site, args.host, args.port, args.arena, watch_token=token, seat=seat,
              tls=client_of(args))
    except OSError as e:     # the address: in use, or no such host
        print(f"taash: error: cannot serve the web pages on {args.host}:{args.port}: "
              f"{e.strerror or e}", file=sys.stderr)
        return 1
    return 0


def cmd_report(args) -> int:
    """`taash ladder report`: write the static page; prints its path."""
    from ..web.report import write_report
    try:
        site = _site(args)
        out = write_report(site, args.out or os.path.join(args.data, "report.html"),
                           [args.variant] if args.variant else None)
    except OSError as e:     # the place given: a folder, no such folder, no permission
        where = args.out or os.path.join(args.data, "report.html")
        print(f"taash: error: cannot write the report {where}: {e.strerror or e}", file=sys.stderr)
        return 1
    except (StoreError, ValueError) as e:
        print(f"taash: error: {e}", file=sys.stderr)
        return 1
    print(f"report written to {out}")
    return 0


def add_commands(sub) -> None:
    """Register `taash web` on the subparsers of `taash`."""
    w = sub.add_parser("web", help="serve the read-only web pages: standings, game viewer, bots, live tables")
    w.add_argument("--data", default=DEFAULT_DATA_DIR, metavar="DIR",
                   help=f"data directory: the ladder database and the arena's records (default {DEFAULT_DATA_DIR})")
    w.add_argument("--store", default=os.environ.get("TAASH_LADDER_STORE"), metavar="URL",
                   help="the ladder database instead: sqlite:///FILE or postgresql://...")
    w.add_argument("--arena", type=address, metavar="ADDR", help="show the live games of the arena at ADDR (host:port)")
    tls_args(w)
    w.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    w.add_argument("--port", type=port, default=8080, help="port (default 8080; 0: any free port)")
    w.add_argument("--watch-token", metavar="T",
                   help="the watch token of an arena served with --private-watch (default: DIR/watch-token "
                        "if there is one)")
    w.add_argument("--play-as", metavar="NAME",
                   help="with --arena: hold the seat of the bot name NAME for a person, who plays it from the "
                        "page /table (its address, with a key, is printed); start the match with `taash arena "
                        "match VARIANT --bots NAME,...` and give it a person's time (--move-ms 60000)")
    w.add_argument("--token", metavar="T", help="with --play-as: the token of NAME (default $TAASH_TOKEN)")
    w.add_argument("--nice", type=int, default=0, metavar="N",
                   help="lower this process's CPU priority by N (e.g. 10 beside a busy arena on the same machine)")
    w.set_defaults(fn=cmd_web, extra="web")
