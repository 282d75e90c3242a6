"""The ladder's commands: `taash ladder run|standings|margins|plot|report|verify` (docs/ladder.md);
the arena extra (openskill; gRPC with --arena), plots for `plot`, web for `report`."""

from __future__ import annotations

import json
import os
import sys

from taash.interpreter import TaashError, load_variant

from ..bots.registry import names as bot_names
from ..errors import LadderError, StoreError, UsageError
from ..store import DEFAULT_DATA_DIR, open_ladder_store
from .args import address, client_of, conv, tls_args
from .web import cmd_report


def _store(args, create: bool = False):
    """The ladder store of ``--store``/``--data``; a command that only reads it does not
    create it (NoLadder, a StoreError, when there is none)."""
    return open_ladder_store(args.store, args.data, create)


def _fail(e) -> int:
    print(f"taash: error: {e}", file=sys.stderr)
    return 1


def standings_table(variant: str, lines, title: str | None = None):
    """A rich Table of standings ``lines`` (BotStanding, best first)."""
    from rich.table import Table
    t = Table(title=title or f"{variant}: standings")
    for col, just in (("#", "right"), ("bot", "left"), ("rating", "right"), ("95% interval", "right"),
                      ("games", "right"), ("deals", "right"), ("win rate", "right")):
        t.add_column(col, justify=just)
    for i, s in enumerate(lines, 1):
        lo, hi = s.ci95
        wr = s.win_rate
        t.add_row(str(i), s.bot, f"{s.mu:.1f}", f"{lo:.1f} .. {hi:.1f}", str(s.games), str(s.deals),
                  "-" if wr is None else f"{wr:.0%}")
    return t


def margins_table(variant: str, margins, title: str | None = None):
    """A rich Table of head-to-head ``margins`` (arena/ladder/margins.py `Margin`)."""
    from rich.table import Table
    from ..ladder.margins import MIN_EVENTS
    t = Table(title=title or f"{variant}: head to head, score margin a deal")
    for col, just in (("bot", "left"), ("over", "left"), ("margin", "right"), ("95% interval", "right"),
                      ("events", "right"), ("deals", "right"), ("ahead?", "left")):
        t.add_column(col, justify=just, no_wrap=col != "ahead?")
    for m in margins:
        ci = "-" if m.ci95 is None else f"{m.ci95[0]:+.3f} .. {m.ci95[1]:+.3f}"
        ahead = "yes" if m.apart else f"< {MIN_EVENTS} events" if m.events < MIN_EVENTS else "not at 95%"
        t.add_row(m.better, m.worse, f"{m.mean:+.3f}", ci, str(m.events), str(m.deals), ahead)
    return t


def _margins(store, ref, variant=None) -> list:
    """The head-to-head margins of the ladder ``ref`` (the loaded ``variant`` if given);
    [] when its variant no longer loads (a file moved since the ladder ran)."""
    from ..ladder.margins import store_margins
    if variant is None:
        try:
            variant = load_variant(ref)
        except TaashError:
            return []
    return store_margins(store, variant)


def _bots_arg(text):
    return [b.strip() for b in text.split(",") if b.strip()]


# -- run -----------------------------------------------------------------------------------
def make_runner(args):
    """The runner of ``args``: ArenaRunner with --arena, else InProcessRunner. Returns
    (runner, bot names for new rounds). Raises LadderError."""
    from ..ladder import InProcessRunner, parse_bot_spec
    if args.arena and args.cluster:
        raise LadderError("--arena and --cluster do not go together: a ladder of remote bots is played by "
                          "their arena (docs/cluster.md)")
    if args.arena:
        from ..ladder.arena_runner import ArenaRunner, read_admin_token
        runner = ArenaRunner(args.arena, read_admin_token(args.data), args.variant, wait_s=args.wait,
                             time_control={k: v for k, v in (("move_ms", args.move_ms), ("bank_ms", args.bank_ms))
                                           if v is not None}, tls=client_of(args))
        names = args.bots or runner.bots()
        if not args.bots and len(names) < 2:
            runner.close()
            raise LadderError(f"fewer than 2 bots are connected to the arena at {args.arena} "
                              f"({', '.join(names) or 'none'}): start some with `taash bot ...`, or name them with --bots")
        return runner, names
    pairs = [parse_bot_spec(b) for b in (args.bots or bot_names())]
    specs = dict(pairs)
    if len(specs) < len(pairs):
        from collections import Counter
        twice = sorted(n for n, k in Counter(n for n, _ in pairs).items() if k > 1)
        raise LadderError(f"--bots names {', '.join(repr(n) for n in twice)} more than once: "
                          "each bot of a ladder has one name (NAME=module:factory to name one)")
    if args.cluster == "ray":
        from ..ladder.cluster import RayRunner
        return RayRunner(args.variant, specs, address=args.address, num_cpus=args.workers), sorted(specs)
    if args.address:
        raise LadderError("--address is for --cluster ray")
    from ..ladder.runners import BANK_MS, MOVE_MS
    limits = dict(move_ms=MOVE_MS if args.move_ms is None else args.move_ms,
                  bank_ms=BANK_MS if args.bank_ms is None else args.bank_ms)
    return InProcessRunner(args.variant, specs, **limits), sorted(specs)


def cmd_run(args) -> int:
    from rich.console import Console
    from ..ladder import LadderSettings, run_ladder
    con = Console()
    err = Console(stderr=True)
    settings = LadderSettings(seed=args.seed, duplicate=args.duplicate, game_deals=args.game_deals,
                              schedule=args.schedule)
    workers = args.workers or (4 if args.arena else 1)
    store = runner = None
    progress = {"events": 0}

    import time
    from ..ladder.cluster import progress_bar
    bar = None if args.quiet or args.json else progress_bar(args.deals, f"{args.variant} ladder")
    clock = {"t0": time.perf_counter(), "base": 0}   # reset once the runner is up (Ray's start)

    def on_event(ratings, event, deals_total):
        progress["events"] += 1
        if bar is not None:
            bar.update(min(deals_total, args.deals), time.perf_counter() - clock["t0"], clock["base"])
        if args.quiet:
            return
        if progress["events"] % args.every == 0:
            top = " ".join(f"{s.bot} {s.mu:.1f}±{1.96 * s.sigma:.1f}" for s in ratings.table())
            out = bar.p.console if bar is not None and bar.p is not None else err
            out.print(f"{args.variant}: {deals_total} deals rated: {top}", highlight=False)

    try:
        runner, names = make_runner(args)   # the variant and bots checked before any database is made
        store = _store(args, create=True)
        events = store.events(runner.variant.ref)
        clock.update(t0=time.perf_counter(), base=events[-1]["deals_total"] if events else 0)
        summary = run_ladder(store, runner, names, args.deals, settings, workers=workers, on_event=on_event)
    except (LadderError, StoreError) as e:
        return _fail(e)
    except KeyboardInterrupt:
        n = len(store.games(_ref(args))) if store is not None else 0
        print(f"taash: interrupted; {n} games are stored: run the same command again to resume", file=sys.stderr)
        return 130
    finally:
        if bar is not None:
            bar.stop()
        if runner is not None and hasattr(runner, "close"):
            runner.close()
    margins = _margins(store, summary.variant, runner.variant)
    if args.json:
        print(json.dumps({"variant": summary.variant, "games_played": summary.games_played,
                          "games": summary.games_total, "events": summary.events_total,
                          "deals": summary.deals_total, "rounds": summary.rounds,
                          "standings": [s.to_json() for s in summary.standings],
                          "margins": [m.to_json() for m in margins]}, indent=2))
    else:
        con.print(standings_table(summary.variant, summary.standings,
                                  f"{summary.variant}: {summary.deals_total} deals in {summary.games_total} games "
                                  f"({summary.games_played} played now), {runner.name}"))
        if margins:
            con.print(margins_table(summary.variant, margins))
    store.close()
    return 0


def _ref(args):
    from ..ladder import variant_ref
    try:
        return variant_ref(load_variant(args.variant))
    except Exception:
        return args.variant


def _variants(store, args) -> list[str]:
    if args.variant:
        ref = _ref(args)
        if ref not in store.variants():
            raise UsageError(f"no ladder for {args.variant} in {args.store or args.data} "
                           f"(ladders: {', '.join(store.variants()) or 'none'})")
        return [ref]
    return store.variants()


# -- standings, plot, verify ---------------------------------------------------------------
def cmd_standings(args) -> int:
    from rich.console import Console
    try:
        store = _store(args)
        variants = _variants(store, args)
        data = {v: store.standings(v) for v in variants}
    except StoreError as e:
        return _fail(e)
    if args.json:
        print(json.dumps({v: [s.to_json() for s in lines] for v, lines in data.items()}, indent=2))
        return 0
    con = Console()
    if not any(data.values()):    # no ladder, or ladders whose first game has not ended
        print(f"no games in {args.store or args.data} yet: run a ladder with `taash ladder run --variant V`")
        return 0
    for v, lines in data.items():
        if lines:
            con.print(standings_table(v, lines))
            margins = _margins(store, v)
            if margins:
                con.print(margins_table(v, margins))
        else:
            print(f"{v}: no games yet")
    return 0


def cmd_margins(args) -> int:
    from rich.console import Console
    try:
        store = _store(args)
        data = {v: _margins(store, v) for v in _variants(store, args)}
    except StoreError as e:
        return _fail(e)
    if args.json:
        print(json.dumps({v: [m.to_json() for m in ms] for v, ms in data.items()}, indent=2))
        return 0
    if not any(data.values()):
        print(f"no head-to-head results in {args.store or args.data} yet: run a ladder with "
              "`taash ladder run --variant V`")
        return 0
    con = Console()
    for v, ms in data.items():
        if ms:
            con.print(margins_table(v, ms))
    return 0


def cmd_plot(args) -> int:
    from ..ladder.plot import plot_history
    try:
        store = _store(args)
        variants = _variants(store, args)
        out = plot_history({v: store.history(v) for v in variants},
                           args.out or os.path.join(args.data, "ladder.png"))
    except (StoreError, ValueError, OSError) as e:
        return _fail(e)
    print(f"plot written to {out}")
    return 0


def cmd_verify(args) -> int:
    from ..ladder import recompute
    try:
        store = _store(args)
        variants = _variants(store, args)
        bad = 0
        if not variants:    # (a --variant with no ladder is refused by _variants)
            return _fail(f"no ladder in {args.store or args.data}: nothing to verify")
        for v in variants:
            differ = []
            again = [s.to_json() for s in recompute(store, load_variant(v), differ).table()]
            stored = [s.to_json() for s in store.standings(v)]
            same = again == stored
            bad += not same or bool(differ)
            for line in differ:
                print(line)
            print(f"{v}: {len(store.events(v))} events, standings from the records "
                  f"{'equal' if same else 'DIFFER FROM'} the stored standings"
                  + (f"; {len(differ)} games' stored scores differ from their records" if differ else ""))
    except (StoreError, LadderError) as e:
        return _fail(e)
    return 1 if bad else 0


def add_commands(sub) -> None:
    """Register `taash ladder ...` on the subparsers of `taash`."""
    p = sub.add_parser("ladder", help="rank bots over many deals: run a ladder, standings, plot")
    lsub = p.add_subparsers(dest="ladder_command", metavar="LADDER_COMMAND")
    lsub.required = True

    def where(q):
        q.add_argument("--data", default=DEFAULT_DATA_DIR, metavar="DIR",
                       help=f"data directory: the ladder database DIR/ladder.sqlite3 and, with --arena, "
                            f"the arena's admin token (default {DEFAULT_DATA_DIR})")
        q.add_argument("--store", default=os.environ.get("TAASH_LADDER_STORE"), metavar="URL",
                       help="the ladder database instead: sqlite:///FILE or postgresql://... "
                            "(default $TAASH_LADDER_STORE, else DIR/ladder.sqlite3)")

    r = lsub.add_parser("run", help="play a ladder (resumes a stopped one)")
    r.add_argument("--variant", required=True, metavar="V", help="shipped name (29, 28, 56, 304, 304-solo, house/...) or a YAML path")
    r.add_argument("--bots", type=_bots_arg, metavar="A,B,...",
                   help=f"bots to pair: in-process, registered bots ({', '.join(bot_names())}) or "
                        "NAME=package.module:factory (or NAME=package.module:maker@ARG, e.g. a trained "
                        "policy: docs/learning.md) (default: every registered bot); "
                        "with --arena, bot names (default: every connected bot)")
    r.add_argument("--deals", type=conv(1), default=200, metavar="N",
                   help="play until the planned rounds hold N deals in all (whole rounds; default 200)")
    r.add_argument("--duplicate", action="store_true",
                   help="replay each round's cards in every seating of each pairing (card luck cancels)")
    r.add_argument("--seed", type=int, default=0, metavar="S", help="the ladder's seed (default 0)")
    r.add_argument("--workers", type=conv(1), metavar="W",
                   help="games at once (default 1 in-process, 4 with --arena; with --cluster ray "
                        "and no --address: the CPUs of the local Ray, default all)")
    r.add_argument("--game-deals", type=conv(1), default=4, metavar="G",
                   help="deals per game (default 4; a match that ends first plays fewer)")
    r.add_argument("--schedule", choices=["round-robin", "rating"], default="round-robin",
                   help="who plays whom each round: every pair, or neighbours in the standings")
    r.add_argument("--arena", type=address, metavar="ADDR", help="play through the arena at ADDR (host:port) over gRPC, "
                                                   "with the admin token from --data; default: in-process")
    r.add_argument("--cluster", choices=["ray"], help="play the in-process bots' games as Ray tasks "
                   "(docs/cluster.md; pip install 'taash[ray]'): the same standings as a local run")
    tls_args(r)
    r.add_argument("--address", metavar="ADDR", help="with --cluster ray: the cluster's head (host:port, auto); "
                   "default: a local Ray started for the run, with --workers CPUs")
    r.add_argument("--wait", type=float, default=30.0, metavar="SECONDS",
                   help="with --arena: how long a game waits for its bots to connect (default 30)")
    r.add_argument("--move-ms", type=conv(0), metavar="MS",
                   help="each decision's free time, in-process bots too (default: the arena's, 2000; "
                        "docs/protocol.md, Time)")
    r.add_argument("--bank-ms", type=conv(0), metavar="MS",
                   help="each seat's time bank per game (default: the arena's, 20000)")
    r.add_argument("--every", type=conv(1), default=10, metavar="K",
                   help="print the ratings every K rated events (default 10)")
    r.add_argument("--quiet", action="store_true", help="print only the standings")
    r.add_argument("--json", action="store_true", help="print the summary, standings and margins as JSON")
    where(r)
    r.set_defaults(fn=cmd_run, extra="arena")   # openskill: said before any database is made

    s = lsub.add_parser("standings", help="print the standings (rating, interval, games, deals, win rate)")
    s.add_argument("--variant", metavar="V", help="one variant (default: every ladder)")
    s.add_argument("--json", action="store_true", help="print them as JSON")
    where(s)
    s.set_defaults(fn=cmd_standings)

    mg = lsub.add_parser("margins", help="print each pair's head-to-head score margin a deal, with its 95%% interval")
    mg.add_argument("--variant", metavar="V", help="one variant (default: every ladder)")
    mg.add_argument("--json", action="store_true", help="print them as JSON")
    where(mg)
    mg.set_defaults(fn=cmd_margins)

    pl = lsub.add_parser("plot", help="write a PNG of ratings over time")
    pl.add_argument("--variant", metavar="V", help="one variant (default: every ladder, one panel each)")
    pl.add_argument("--out", metavar="FILE.png", help="where to write it (default DIR/ladder.png)")
    where(pl)
    pl.set_defaults(fn=cmd_plot)

    rp = lsub.add_parser("report", help="write standings, chart and head-to-head as one static HTML file")
    rp.add_argument("--variant", metavar="V", help="one variant (default: every ladder)")
    rp.add_argument("--out", metavar="FILE.html", help="where to write it (default DIR/report.html)")
    where(rp)
    rp.set_defaults(fn=cmd_report, extra="web")

    v = lsub.add_parser("verify", help="recompute the standings from the stored records and compare")
    v.add_argument("--variant", metavar="V", help="one variant (default: every ladder)")
    where(v)
    v.set_defaults(fn=cmd_verify)
