"""The arena's commands: `taash arena serve|token|revoke|match|watch|bots` (the arena
extra: gRPC, loaded when a command runs)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys

from ..errors import StoreError, UsageError
from ..limits import FREE_BYTES, Limits
from ..store import DEFAULT_DATA_DIR, SQLiteStore, has_arena, read_watch_token
from ..tls import channel
from .args import client_of, conv, parse_set, port, server_arg


def _time_args(p, server_side: bool) -> None:
    what = "arena default" if server_side else "the arena's default"
    p.add_argument("--move-ms", type=conv(1), metavar="MS",
                   help=f"free time per decision (ms; {what}: 2000)")
    p.add_argument("--bank-ms", type=conv(), metavar="MS",
                   help=f"time bank per seat per game (ms; {what}: 20000)")
    p.add_argument("--grace-ms", type=conv(), metavar="MS",
                   help=f"reconnect budget per seat per game (ms; {what}: 15000)")
    p.add_argument("--strikes", type=conv(1), metavar="N",
                   help=f"illegal answers to one request before the default action ({what}: 3)")


def _time_control(args, base=None):
    from ..server import TimeControl
    tc = base or TimeControl()
    kw = {}
    for arg, f in (("move_ms", "move_ms"), ("bank_ms", "bank_ms"), ("grace_ms", "grace_ms"),
                   ("strikes", "max_strikes")):
        v = getattr(args, arg, None)
        if v is not None:
            kw[f] = v
    from dataclasses import replace
    return replace(tc, **kw)


def _store(args) -> SQLiteStore:
    try:
        return SQLiteStore(args.data)
    except StoreError as e:
        raise UsageError(str(e)) from None


# -- serve -------------------------------------------------------------------------------
def _server_tls(args):
    """(certificate chain, key) PEM bytes of --tls-cert and --tls-key, or None for
    plaintext, which only a loopback --host may serve unless --insecure. Raises
    UsageError."""
    from ..tls import TLSError, loopback, server_pair
    if bool(args.tls_cert) != bool(args.tls_key):
        raise UsageError("--tls-cert and --tls-key go together: the certificate and its private key")
    if args.tls_cert and args.insecure:
        # refused rather than ignored: --insecure means plaintext, --tls-cert TLS, and a user
        # who typed both should learn which one the arena serves before it does
        raise UsageError("--insecure (serve plaintext) and --tls-cert (serve TLS) contradict each other: "
                         "drop --insecure to serve TLS")
    if args.tls_cert:
        try:
            return server_pair(args.tls_cert, args.tls_key)
        except TLSError as e:
            raise UsageError(str(e)) from None
    if not loopback(args.host) and not args.insecure:
        raise UsageError(f"--host {args.host} is reachable from other machines: serve TLS (--tls-cert FILE "
                         "--tls-key FILE) so that bot tokens do not cross the network in clear, or pass "
                         "--insecure to serve plaintext anyway")
    return None


def _limits(args) -> Limits:
    """The server's limits.Limits from `taash arena serve`'s flags."""
    return Limits(query_burst=args.query_burst, query_rate=float(args.query_rate), token_bytes=args.token_bytes,
                  token_byte_rate=args.token_byte_rate, peer_bytes=args.peer_bytes,
                  peer_byte_rate=args.peer_byte_rate, peer_messages=args.peer_messages,
                  peer_message_rate=args.peer_message_rate, handshake_ms=args.handshake_ms,
                  idle_ms=args.idle_ms, max_connections=args.max_connections, peer_pending=args.peer_pending,
                  peer_connect_burst=args.peer_connect_burst, peer_connect_rate=float(args.peer_connect_rate),
                  connect_burst=args.connect_burst, connect_rate=float(args.connect_rate), known_peers=args.known_peers,
                  variant_cache_bytes=args.variant_cache_bytes)


def cmd_serve(args) -> int:
    tls = _server_tls(args)
    from ..server import serve
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr)
    tc = _time_control(args)
    if args.web:        # its port is taken: say so before serving, not after (the child's error)
        import socket
        try:
            with socket.socket(socket.AF_INET6 if ":" in args.web_host else socket.AF_INET) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind((args.web_host, args.web))
        except OSError as e:
            raise UsageError(f"--web {args.web}: cannot serve the web pages on {args.web_host}:{args.web}: "
                           f"{e.strerror or e}") from None

    web = []        # the `taash web` child of --web (children.Relayed), started once the arena's port is known
    failed = []     # why the arena stopped on its own: its web pages died at their start
    stopping = []   # set once the arena stops: the children it ends are no news

    async def main():
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGTERM, task.cancel)
        except (NotImplementedError, RuntimeError):
            pass

        def web_ended(code: int, ready: bool) -> None:    # on the loop: the web child exited
            if stopping:
                return
            how = f"exit code {code}" if code >= 0 else f"signal {-code}"
            if not ready:       # it never served: the arena's --web is not served, so it stops
                failed.append(f"--web {args.web}: the web pages (taash web) stopped at their start with {how} "
                              "(their error is above); the arena stops too")
                task.cancel()
            else:
                logging.getLogger("taash.arena").error(
                    "the web pages (taash web, --web %s) stopped with %s; the arena serves on without them",
                    args.web, how)

        def ended(code: int, ready: bool) -> None:          # on the relay's thread
            try:
                loop.call_soon_threadsafe(web_ended, code, ready)
            except RuntimeError:    # the loop is closed: the arena has stopped
                pass

        def ready(port):
            host = f"[{args.host}]" if ":" in args.host else args.host
            print(f"taash arena listening on {host}:{port}{' (TLS)' if tls else ''} (data: {args.data}; admin token "
                  f"in {os.path.join(args.data, 'admin-token')})", flush=True)
            if args.web is not None:
                web.append(_start_web(args, port, ended))

        try:
            await serve(args.data, args.host, args.port, tc, ready, public_seeds=args.public_seeds,
                        max_spectators=args.max_spectators, private_watch=args.private_watch,
                        spectator_backlog=args.spectator_backlog, send_limit=args.max_queued,
                        spectator_rate=args.spectator_rate, max_streams=args.max_streams, tls=tls,
                        variant_load_ms=args.variant_load_ms, limits=_limits(args))
        except asyncio.CancelledError:
            pass
        finally:
            stopping.append(True)

    try:
        asyncio.run(main())
    except (StoreError, OSError) as e:  # a bad data directory or address
        print(f"taash: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    finally:
        stopping.append(True)
        for child in web:
            child.stop()
    if failed:
        print(f"taash: error: {failed[0]}", file=sys.stderr)
        return 1
    print("taash arena stopped", file=sys.stderr)
    return 0


def _start_web(args, port: int, ended):
    """`taash arena serve --web PORT`: the pages of `taash web` in a process of their own
    (their work never runs on the arena's event loop), following this arena's games and
    reading its data directory; the child dies with the arena (docs/web.md). With TLS it
    trusts the arena's certificate, which must name the host it connects to (localhost
    for a loopback or wildcard --host). Its output is relayed to the arena's; ``ended(code,
    ready)`` is called from the relay's thread when it exits (children.Relayed)."""
    from ..children import Relayed
    host = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host
    if ":" in host and not host.startswith("["):      # an IPv6 host: HOST:PORT needs it in brackets
        host = f"[{host}]"
    tls = []
    if args.tls_cert:   # the pages connect with TLS too, trusting the arena's certificate
        tls = ["--ca", args.tls_cert]
        if host == "127.0.0.1":
            host = "localhost"      # the name a certificate for a local arena has
    argv = [sys.executable, "-m", "taash.arena.cli", "web", "--data", args.data, "--arena", f"{host}:{port}",
            "--host", args.web_host, "--port", str(args.web), *tls]
    return Relayed(argv, "web pages on ", ended)


# -- token -------------------------------------------------------------------------------
def cmd_token(args) -> int:
    new = not has_arena(args.data)
    store = _store(args)
    try:
        existed = args.name in store.bots()
        tok = store.issue_token(args.name)
    except StoreError as e:
        raise UsageError(str(e)) from None
    from ..bots.registry import names as bot_names
    example = args.name if args.name in bot_names() else "heuristic"   # a built-in of that name, if any
    print(tok)
    print(f"token for bot {args.name!r}" + (" (the previous one no longer works: a running arena closes "
                                            "its streams within a second)" if existed else "")
          + f"; run a bot under this name with: taash bot {example} --name {args.name} --token {tok}"
          + ("" if example == args.name else " (or another built-in bot: `taash bot --help`; or your own through the SDK)"),
          file=sys.stderr)
    if new:     # a mistyped --data makes a new arena that no running one reads
        print(f"note: {args.data} held no arena: it is new, and this token works with an arena serving from it "
              f"(taash arena serve --data {args.data})", file=sys.stderr)
    return 0


def cmd_revoke(args) -> int:
    if not has_arena(args.data):     # nothing to revoke, and nothing made
        raise UsageError(f"no arena data in {args.data} (no arena.sqlite3): give the --data of the arena")
    store = _store(args)
    try:
        had = store.revoke_token(args.name)
    except StoreError as e:
        raise UsageError(str(e)) from None
    if not had:
        raise UsageError(f"bot {args.name!r} has no token in {args.data}")
    print(f"the token of bot {args.name!r} is revoked: a running arena closes its streams within a second "
          "and seats it in no new game (`taash arena token NAME` issues a new one)", file=sys.stderr)
    return 0


# -- admin client ------------------------------------------------------------------------
def _admin_md(args):
    path = os.path.join(args.data, "admin-token")
    try:
        with open(path) as f:
            tok = f.read().strip()
    except OSError:
        raise UsageError(f"no admin token at {path}: start the arena with `taash arena serve --data "
                       f"{args.data}` (or pass the --data directory it uses)") from None
    return [("authorization", f"Bearer {tok}")]


def _reached(ch, timeout_s: float = 10.0) -> bool:
    """Wait until channel ``ch`` is connected (seconds: ``timeout_s``); False at the first
    failed connection attempt or the timeout, so that "cannot reach" is said only of an
    arena that was never reached."""
    import threading
    import grpc
    seen = threading.Event()
    state = []

    def on_state(st):
        if st in (grpc.ChannelConnectivity.READY, grpc.ChannelConnectivity.TRANSIENT_FAILURE,
                  grpc.ChannelConnectivity.SHUTDOWN):
            state.append(st)
            seen.set()

    ch.subscribe(on_state, try_to_connect=True)
    try:
        seen.wait(timeout_s)
    finally:
        ch.unsubscribe(on_state)
    return bool(state) and state[0] == grpc.ChannelConnectivity.READY


def _unreachable(args) -> int:
    client = client_of(args)
    if client.ca:       # the CA was given: the likelier fault is the name dialled
        host = args.server.rsplit(":", 1)[0] if args.server.count(":") == 1 or args.server.startswith("[") \
            else args.server
        hint = (f"or its certificate does not name {host}, the host dialled: --server must use a name or "
                f"address the certificate holds, or the certificate is not signed by --ca {client.ca}")
    elif client.secure:
        hint = "or its certificate is not one this client trusts: --ca FILE"
    else:
        hint = "an arena served with TLS needs --tls"
    print(f"taash: error: cannot reach the arena at {args.server}: is `taash arena serve` running? ({hint})",
          file=sys.stderr)
    return 1


def _rpc_error(e, server) -> int:
    import grpc
    code = e.code()
    if code == grpc.StatusCode.UNAVAILABLE:
        print(f"taash: error: lost the arena at {server}: {e.details()}", file=sys.stderr)
    else:
        print(f"taash: error: {code.name.lower().replace('_', ' ')}: {e.details()}", file=sys.stderr)
    return 1


def cmd_match(args) -> int:
    import grpc
    from ..pb import arena_pb2 as apb
    from ..pb import arena_pb2_grpc
    from ..pb import messages_pb2 as pb
    if not -2**63 <= args.seed < 2**63:
        raise UsageError("--seed must fit in 64 bits")
    if args.seed + args.matches - 1 >= 2**63:
        raise UsageError(f"match i plays --seed + i: --seed {args.seed} with --matches {args.matches} "
                       f"passes {2**63 - 1}, the largest seed (64 bits)")
    from ..server.wire import MAX_PARALLEL
    if args.parallel > MAX_PARALLEL:
        raise UsageError(f"--parallel is {args.parallel}; the arena plays at most {MAX_PARALLEL} matches "
                       "of one call at once")
    if not 0 <= args.wait <= 86400:
        raise UsageError("--wait must be between 0 and 86400 seconds")
    bots = [b.strip() for b in args.bots.split(",")]
    if any(not b for b in bots):
        raise UsageError(f"--bots takes bot names separated by commas, not {args.bots!r}")
    options = parse_set(args.set)
    md = _admin_md(args)
    variant_text = uploaded_variant_text(args.variant, options)
    # bank and grace are sent only when given: an explicit 0 means 0 (proto3 optional)
    given = {"bank_ms": args.bank_ms, "grace_ms": args.grace_ms}
    tc = pb.TimeControl(move_ms=args.move_ms or 0, max_strikes=args.strikes or 0,
                        **{k: v for k, v in given.items() if v is not None})
    req = apb.MatchRequest(variant=args.variant, variant_yaml=variant_text,
                           options_json=json.dumps(options) if options else "",
                           bots=bots, matches=args.matches, seed=args.seed, time_control=tc,
                           wait_ms=int(args.wait * 1000), parallel=args.parallel, max_deals=args.max_deals)
    results = []
    lost = None    # the error that ended the stream after it began
    with channel(args.server, client_of(args)) as ch:
        stub = arena_pb2_grpc.ArenaStub(ch)
        if not _reached(ch):
            return _unreachable(args)
        try:
            for up in stub.RunMatches(req, metadata=md):
                if up.WhichOneof("update") == "note":
                    print(up.note, file=sys.stderr)
                    continue
                g = up.game
                r = {"game_id": g.game_id, "seed": g.seed, "bots": list(g.bots), "deals": g.deals,
                     "score": list(g.score), "winners": list(g.winners), "complete": g.complete,
                     "ended_by": ended_by(g.complete, g.winners),
                     "faults": g.faults, "record": g.record, "error": g.error}
                results.append(r)
                print(_result_line(r, bots) if not args.json else json.dumps(r), file=sys.stderr, flush=True)
        except grpc.RpcError as e:
            if e.code().name not in _LOST:   # refused (arguments, token): nothing was played
                return _rpc_error(e, args.server)
            lost = e
        except KeyboardInterrupt:
            # the call ends with this process: the arena stops its games and saves them
            print(f"taash: interrupted after {len(results)} of {args.matches} results (each printed above); "
                  "the arena saves the games it was playing for this call as cut short, with their records "
                  "in its data directory (`taash arena watch` and its log name them)", file=sys.stderr)
            raise
    results.sort(key=lambda r: r["seed"])
    wins = {b: 0 for b in dict.fromkeys(bots)}
    for r in results:
        for b in {r["bots"][s] for s in r["winners"]}:
            wins[b] += 1
    summary = {"variant": args.variant, "options": options, "bots": bots, "matches": results,
               "wins": wins}
    if lost is not None:
        summary["lost"] = _lost_text(lost, args.server, len(results), args.matches)
    elif len(results) < args.matches:    # the stream ended early: the arena was stopped
        summary["lost"] = (f"the arena at {args.server} ended the call after {len(results)} of "
                           f"{args.matches} results (it was stopped); the results above are all it sent")
    status = 0 if "lost" not in summary and all(not r["error"] for r in results) else 1
    if args.json:
        print(json.dumps(summary, indent=2))
        if "lost" in summary:
            print(f"taash: error: {summary['lost']}", file=sys.stderr)
        return status
    from rich.console import Console
    from rich.table import Table
    con = Console()
    t = Table(title=f"{args.variant}: {len(results)} match{'es' if len(results) != 1 else ''} "
                    f"in the arena, seats {', '.join(bots)}")
    for col in ("game", "seed", "deals", "over", "score", "winners", "verdicts"):
        t.add_column(col, no_wrap=col in ("game", "score"))
    for r in results:
        t.add_row(r["game_id"], str(r["seed"]), str(r["deals"]),
                  {"rule": "yes", "deal limit": "deal limit"}.get(r["ended_by"], "no"),  # as taash simulate
                  " ".join(map(str, r["score"])),
                  ", ".join(f"{r['bots'][s]}@{s}" for s in r["winners"]) or "-", str(r["faults"]))
    con.print(t)
    con.print("matches won: " + ", ".join(f"{b} {w}" for b, w in wins.items())
              + " (a shared win counts for each winner)")
    for r in results:
        if r["error"]:
            con.print(f"{r['game_id'] or 'a match'}: error: {r['error']}", markup=False)
    paths = [r["record"] for r in results if r["record"]]
    if paths:
        con.print("records: " + (" ".join(paths) if len(paths) <= 4 else
                                 f"{os.path.dirname(paths[0])}/ ({len(paths)} files)"), markup=False)
        con.print(f"replay one with: taash replay {paths[0]}", markup=False)
    if "lost" in summary:
        print(f"taash: error: {summary['lost']}", file=sys.stderr)
    return status


# the stream broke after the call was made: the arena stopped or the connection was lost
_LOST = {"UNAVAILABLE", "CANCELLED", "UNKNOWN", "INTERNAL", "ABORTED", "DEADLINE_EXCEEDED"}


def _lost_text(e, server: str, got: int, asked: int) -> str:
    """What `arena match` says when the arena went away in the middle: what it had received."""
    return (f"lost the arena at {server} after {got} of {asked} result{'s' if asked != 1 else ''} "
            f"({e.code().name}: {e.details() or 'no details'}); "
            + ("the results above are all it had sent; " if got else "no game had ended; ")
            + "a game it was playing is saved as cut short (if the arena was killed: at its next start)")


# the note a game's line ends with, by ended_by
_OVER_NOTE = {"rule": "", "deal limit": " (stopped at the deal limit, no winner)", None: " (not complete)"}


def ended_by(complete: bool, winners) -> str | None:
    """Why a game the arena reports (GameResult, GameEnded) ended, as `taash simulate`
    tells it (engine.Match.ended_by): "rule" (the variant's ``match.ends``: it always
    names winners, the seats with the top score), "deal limit" (the variant's
    ``match.max_deals`` reached: over, but no winner), or None (not complete: cut short
    by the server, an error, or the request's ``--max-deals``)."""
    if not complete:
        return None
    return "rule" if len(winners) else "deal limit"


def _result_line(r: dict, bots: list[str]) -> str:
    return (f"{r['game_id']}: seed {r['seed']}, {r['deals']} deals, score {' '.join(map(str, r['score']))}, "
            f"winners {', '.join(f'{bots[s]}@{s}' for s in r['winners']) or '-'}"
            f"{_OVER_NOTE[r['ended_by']]}{', ' + str(r['faults']) + ' verdicts' if r['faults'] else ''}"
            f"{', error: ' + r['error'] if r['error'] else ''}")


def uploaded_variant_text(name: str, options: dict) -> str:
    """The text to send for a variant file of the caller's (a path, not a shipped name):
    the file checked here, with its `extends:` chain merged (so that the arena needs none
    of the caller's files), as JSON (which YAML reads). "" for a shipped name: the arena
    has those. UsageError (located problems) for a bad file."""
    from taash.interpreter import VariantError, load_variant
    from taash.interpreter.loader import VARIANTS_DIR, load_raw, resolve_name
    try:
        path = resolve_name(name)
    except FileNotFoundError:
        return ""    # not here: the arena says what it knows
    try:
        path.relative_to(VARIANTS_DIR)
        return ""
    except ValueError:
        pass
    try:
        load_variant(path, options or None)      # its problems located in the caller's file
        data, _ = load_raw(path)
    except VariantError as e:
        raise UsageError("\n".join(p.format() for p in e.problems), located=True) from None
    return json.dumps(data)


def cmd_bots(args) -> int:
    import grpc
    from ..pb import arena_pb2 as apb
    from ..pb import arena_pb2_grpc
    md = _admin_md(args)
    with channel(args.server, client_of(args)) as ch:
        if not _reached(ch):
            return _unreachable(args)
        try:
            rep = arena_pb2_grpc.ArenaStub(ch).ListBots(apb.ListBotsRequest(), metadata=md, timeout=10)
        except grpc.RpcError as e:
            return _rpc_error(e, args.server)
    for b in rep.bots:
        print(f"{b.name}\t{b.connections} connection{'s' if b.connections != 1 else ''}\t{b.seats} seats")
    return 0


def cmd_standing(args) -> int:
    """`taash arena standing --token T`: the bot's own ratings, latest games and faults
    (MyStanding), as lines or as JSON (the reply's proto field names)."""
    import grpc
    from ..pb import arena_pb2 as apb
    from ..pb import arena_pb2_grpc
    from ..pb import messages_pb2 as pb
    token = args.token or os.environ.get("TAASH_TOKEN")
    if not token:
        raise UsageError("no token: pass --token TOKEN or set TAASH_TOKEN (the bot's own token, "
                         "from `taash arena token NAME`)")
    with channel(args.server, client_of(args)) as ch:
        if not _reached(ch):
            return _unreachable(args)
        try:
            rep = arena_pb2_grpc.ArenaStub(ch).MyStanding(apb.StandingRequest(recent=args.recent),
                                                          metadata=[("authorization", f"Bearer {token}")],
                                                          timeout=60)
        except grpc.RpcError as e:
            return _rpc_error(e, args.server)
    if args.json:
        print(json.dumps(_plain_json(rep)))
        return 0
    print(f"bot {rep.bot}: {rep.games_total} finished game{'s' if rep.games_total != 1 else ''} in this arena")
    for r in rep.ratings:
        print(f"{r.variant}\trating {r.mu:.2f} +- {1.96 * r.sigma:.2f}\trank {r.rank} of {r.ranked}\t"
              f"{r.games} games, {r.deals} deals\tW-D-L {r.wins}-{r.draws}-{r.losses}")
    if not rep.ratings:
        print("no rating: no ladder in the arena's data directory has rated it")
    for g in rep.games:
        print(f"{g.game_id}\t{g.variant}\tseats {','.join(map(str, g.seats))}\tscore {' '.join(map(str, g.score))}"
              f"\t{'won' if set(g.seats) & set(g.winners) else 'lost' if g.winners else '-'}"
              f"{'' if g.complete else ' (cut short)'}\tfaults {g.faults}")
    faults = ", ".join(f"{pb.Verdict.Kind.Name(f.kind)} {f.count}" for f in rep.faults)
    print(f"faults in these games: {faults or 'none'}; seats taken back (RESUMED, no fault): {rep.resumed}")
    return 0


def describe_event(ev) -> str:
    """One line for a public GameEvent (taash arena watch)."""
    from ..pb import messages_pb2 as pb
    kind = ev.WhichOneof("event")
    head = f"{ev.game_id} #{ev.index}"
    if kind == "game_started":
        g = ev.game_started
        return f"{head} game started: {g.variant}, seats {', '.join(g.bots)}"
    if kind == "deal_started":
        return f"{head} deal {ev.deal_started.deal}: dealer {ev.deal_started.dealer}"
    if kind == "action":
        a = ev.action
        return f"{head} seat {a.seat}: {a.action}{' (default)' if a.by_default else ''}"
    if kind == "fault":
        n = ev.fault.count
        return f"{head} seat {ev.fault.seat}: {pb.Verdict.Kind.Name(ev.fault.kind)}" + (f" x{n}" if n > 1 else "")
    if kind == "deal_ended":
        d = ev.deal_ended
        hands = " | ".join(" ".join(h.cards) for h in d.hands)
        return f"{head} deal {d.deal} over: {d.result_json}\n    hands: {hands}"
    if kind == "game_ended":
        g = ev.game_ended
        over = {"rule": "game over", "deal limit": "game stopped at the deal limit (no winner)"}.get(
            ended_by(g.complete, g.winners), "game ended before the match was over")
        return (f"{head} {over}: score {' '.join(map(str, g.score))}, "
                f"winners {list(g.winners)}, seed {g.seed}, record {g.record}")
    return head


def _plain_json(msg) -> dict:
    """``msg`` as a JSON-ready dict: the .proto's field names, every field (a zero, a
    false, seat 0), and 64-bit integers (a seed) as numbers, where protobuf's JSON writes
    them as strings."""
    from google.protobuf.json_format import MessageToDict
    d = MessageToDict(msg, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
    _numbers(msg.DESCRIPTOR, d)
    return d


def _numbers(desc, d: dict) -> None:
    for f in desc.fields:
        v = d.get(f.name)
        if v is None:
            continue
        if f.message_type is not None:
            for x in (v if isinstance(v, list) else [v]):
                if isinstance(x, dict):
                    _numbers(f.message_type, x)
        elif f.cpp_type in (f.CPPTYPE_INT64, f.CPPTYPE_UINT64):
            d[f.name] = [int(x) for x in v] if isinstance(v, list) else int(v)


def cmd_watch(args) -> int:
    import grpc
    from ..pb import arena_pb2 as apb
    from ..pb import arena_pb2_grpc
    token = args.token if args.token is not None else read_watch_token(args.data)
    md = [("authorization", f"Bearer {token}")] if token else None
    with channel(args.server, client_of(args)) as ch:
        if not _reached(ch):
            return _unreachable(args)
        try:
            # WatchBatches: the same events, several a message (the arena's spectator budget
            # then lets this follow a busy arena; docs/protocol.md, "Spectators")
            stub = arena_pb2_grpc.ArenaStub(ch)
            for batch in stub.WatchBatches(apb.WatchRequest(game_id=args.game or ""), metadata=md):
                for ev in batch.events:
                    if args.json:   # the .proto's field names, every field (seat 0, a zero score)
                        print(json.dumps(_plain_json(ev)), flush=True)
                    else:
                        print(describe_event(ev), flush=True)
        except grpc.RpcError as e:
            return _rpc_error(e, args.server)
    return 0


def add_commands(sub) -> None:
    """Register `taash arena ...` on the subparsers of `taash`."""
    a = sub.add_parser("arena", help="the bot arena: serve, issue tokens, run matches, watch")
    asub = a.add_subparsers(dest="arena_command", metavar="ARENA_COMMAND")
    asub.required = True

    def data_arg(p):
        p.add_argument("--data", default=DEFAULT_DATA_DIR, metavar="DIR",
                       help=f"the arena's data directory: tokens, games, records (default {DEFAULT_DATA_DIR})")

    s = asub.add_parser("serve", help="run the arena server")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    s.add_argument("--port", type=port, default=50051, help="port (default 50051; 0: any free port)")
    data_arg(s)
    _time_args(s, server_side=True)
    s.add_argument("--quiet", action="store_true", help="log only warnings")
    s.add_argument("--public-seeds", action="store_true",
                   help="deal from the seeds alone, as `taash simulate` does (by default the arena "
                        "mixes a secret of its data directory into every shuffle, so that a bot "
                        "that knows a seed cannot compute the hands)")
    s.add_argument("--max-spectators", type=conv(), default=1000, metavar="N",
                   help="Watch calls at once; more are refused (0: nobody may watch; default 1000)")
    s.add_argument("--spectator-backlog", type=conv(1), default=5_000, metavar="N",
                   help="a spectator of every game that falls N events behind is dropped (default 5000)")
    s.add_argument("--spectator-rate", type=conv(), default=1_000, metavar="N",
                   help="units a second (a message, or a KiB of a longer one) sent to all spectators "
                        "together, the least behind first, so that spectators cannot slow the games; "
                        "one that cannot keep up falls behind and is dropped (0: no bound; default 1000)")
    s.add_argument("--max-queued", type=conv(1), default=10_000, metavar="N",
                   help="a bot stream with N messages waiting while its client reads nothing (the "
                        "arena's write has waited 2 s), or 10*N in any case, is dropped as a fault "
                        "(default 10000)")
    s.add_argument("--variant-load-ms", type=conv(1), default=10_000, metavar="MS",
                   help="a variant text sent with a match request is checked in a process of its own at "
                        "low priority, killed and the request refused past MS milliseconds of its CPU, or 5 "
                        "times that in wall time (default 10000)")
    s.add_argument("--private-watch", action="store_true",
                   help="watching needs a token: the one in DIR/watch-token (made on first start) "
                        "or the admin token")
    s.add_argument("--web", type=port, metavar="PORT",
                   help="also serve the web pages (`taash web`: live tables, standings, game viewer) on "
                        "PORT, in a process of their own (0: any free port)")
    s.add_argument("--web-host", default="127.0.0.1", metavar="HOST",
                   help="address of the web pages (default 127.0.0.1)")
    s.add_argument("--tls-cert", metavar="FILE",
                   help="serve TLS only, with this certificate (PEM; its chain after it); needs --tls-key, "
                        "checked to match it before the arena serves")
    s.add_argument("--tls-key", metavar="FILE", help="the certificate's private key (PEM)")
    s.add_argument("--insecure", action="store_true",
                   help="serve plaintext on an address beyond loopback (refused without it: tokens would "
                        "cross the network in clear; use --tls-cert and --tls-key instead; not with --tls-cert)")
    s.add_argument("--max-streams", type=conv(1), default=8, metavar="N",
                   help="Play streams one bot token may have open at once; the next is refused "
                        "(default 8)")
    s.add_argument("--token-bytes", type=conv(1), default=Limits.token_bytes, metavar="BYTES",
                   help=f"bytes one token's streams may send at once, past the first {FREE_BYTES} of each "
                        f"message (default {Limits.token_bytes}) ...")
    s.add_argument("--token-byte-rate", type=conv(1), default=Limits.token_byte_rate, metavar="BYTES",
                   help=f"... and a second past that (default {Limits.token_byte_rate}); past either, the "
                        "stream is closed RESOURCE_EXHAUSTED and the token gets no new stream until it is "
                        "back within them")
    s.add_argument("--peer-bytes", type=conv(1), default=Limits.peer_bytes, metavar="BYTES",
                   help=f"the same for all the streams of one peer address (default {Limits.peer_bytes}) ...")
    s.add_argument("--peer-byte-rate", type=conv(1), default=Limits.peer_byte_rate, metavar="BYTES",
                   help=f"... a second (default {Limits.peer_byte_rate})")
    s.add_argument("--peer-messages", type=conv(1), default=Limits.peer_messages, metavar="N",
                   help="messages all the streams of one peer address may send at once, beyond the answers "
                        f"to the requests sent (default {Limits.peer_messages}) ...")
    s.add_argument("--peer-message-rate", type=conv(1), default=Limits.peer_message_rate, metavar="N",
                   help=f"... and a second past that (default {Limits.peer_message_rate})")
    s.add_argument("--handshake-ms", type=conv(1), default=Limits.handshake_ms, metavar="MS",
                   help="a connection that has not finished its TLS and HTTP/2 handshake in MS milliseconds "
                        f"is closed (default {Limits.handshake_ms})")
    s.add_argument("--idle-ms", type=conv(1), default=Limits.idle_ms, metavar="MS",
                   help=f"a connection with no call for MS milliseconds is closed (default {Limits.idle_ms})")
    s.add_argument("--max-connections", type=conv(), default=Limits.max_connections, metavar="N",
                   help="connections held at once, the next refused before its handshake (default 0: "
                        "the open-file limit, raised at start as far as the system allows, less 256; "
                        "a third of that through the front door: --peer-pending)")
    s.add_argument("--peer-pending", type=conv(), default=Limits.peer_pending, metavar="N",
                   help="connections one peer address may hold on which no call has shown a valid token yet; "
                        f"the next is reset at once (default {Limits.peer_pending}; 0: no bound)")
    s.add_argument("--peer-connect-burst", type=conv(1), default=Limits.peer_connect_burst, metavar="N",
                   help="new connections (each a TLS handshake when serving TLS) one peer address may open at "
                        f"once (default {Limits.peer_connect_burst}) ...")
    s.add_argument("--peer-connect-rate", type=conv(), default=int(Limits.peer_connect_rate), metavar="N",
                   help=f"... and a second past that (default {Limits.peer_connect_rate:g}; 0: no bound); more are "
                        "reset at once")
    s.add_argument("--connect-burst", type=conv(1), default=Limits.connect_burst, metavar="N",
                   help="new connections all the addresses not known (--known-peers) may open at once, together "
                        f"(default {Limits.connect_burst}) ...")
    s.add_argument("--connect-rate", type=conv(), default=int(Limits.connect_rate), metavar="N",
                   help=f"... and a second past that (default {Limits.connect_rate:g}; 0: no bound); more are reset "
                        "at once. With --peer-pending 0, --peer-connect-rate 0 and --connect-rate 0 the arena has "
                        "no front door: gRPC accepts connections itself")
    s.add_argument("--known-peers", type=conv(), default=Limits.known_peers, metavar="N",
                   help="the last N addresses on whose connections a valid token was shown are known: their new "
                        f"connections are not held by --connect-rate (default {Limits.known_peers}; 0: none)")
    s.add_argument("--query-burst", type=conv(1), default=Limits.query_burst, metavar="N",
                   help=f"MyStanding calls one token may make at once (default {Limits.query_burst}) ...")
    s.add_argument("--query-rate", type=conv(1), default=int(Limits.query_rate), metavar="N",
                   help=f"... and a second past that (default {Limits.query_rate:g}); more are refused "
                        "RESOURCE_EXHAUSTED")
    s.add_argument("--variant-cache-bytes", type=conv(), default=Limits.variant_cache_bytes, metavar="BYTES",
                   help="built variants kept for the next RunMatches, by their estimated sizes (about 640 KiB "
                        "and the bytes of the variant's file each); the least recently used go first "
                        f"(default {Limits.variant_cache_bytes}; 0: none kept)")
    s.set_defaults(fn=cmd_serve, extra="arena")

    t = asub.add_parser("token", help="issue a token for a bot (replaces its previous one)")
    t.add_argument("name", metavar="NAME", help="the bot's name")
    data_arg(t)
    t.set_defaults(fn=cmd_token)

    rv = asub.add_parser("revoke", help="revoke a bot's token: its streams are closed, it gets no new game")
    rv.add_argument("name", metavar="NAME", help="the bot's name")
    data_arg(rv)
    rv.set_defaults(fn=cmd_revoke)

    m = asub.add_parser("match", help="run matches between connected bots and print the results")
    m.add_argument("variant", metavar="VARIANT", help="shipped name (29, 28, 56, 304, house/...) or a YAML file of "
                   "yours: it is read and checked here and its text sent to the arena")
    m.add_argument("--bots", required=True, metavar="NAME,NAME,...",
                   help="bot name per seat; a name may fill several seats (both seats of a side)")
    m.add_argument("--matches", type=conv(1), default=1, metavar="M", help="matches (default 1)")
    m.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the first match (default 0)")
    m.add_argument("--set", action="append", metavar="KEY=VALUE", help="set a variant option")
    m.add_argument("--parallel", type=conv(1), default=1, metavar="P",
                   help="matches played at once (default 1)")
    m.add_argument("--max-deals", type=conv(), default=0, metavar="N",
                   help="stop each match after N deals (default: play it to the end: its "
                        "match.ends rule, or the variant's match.max_deals, 1000 unless the "
                        "file sets it; a match stopped by a limit has no winners)")
    m.add_argument("--wait", type=float, default=30.0, metavar="SECONDS",
                   help="how long to wait for the bots to connect (default 30)")
    _time_args(m, server_side=False)
    m.add_argument("--json", action="store_true", help="print the results as JSON")
    server_arg(m)
    data_arg(m)
    m.set_defaults(fn=cmd_match, extra="arena")

    w = asub.add_parser("watch", help="print the public events of one game or of all games")
    w.add_argument("game", nargs="?", metavar="GAME_ID", help="a running game (default: every game)")
    w.add_argument("--json", action="store_true", help="one JSON object per event")
    w.add_argument("--token", metavar="T",
                   help="the watch token of an arena served with --private-watch (default: "
                        "DIR/watch-token if it exists)")
    server_arg(w)
    data_arg(w)
    w.set_defaults(fn=cmd_watch, extra="arena")

    lb = asub.add_parser("bots", help="list the bots with a token and their connections")
    server_arg(lb)
    data_arg(lb)
    lb.set_defaults(fn=cmd_bots, extra="arena")

    st = asub.add_parser("standing", help="a bot's own ratings, latest games and faults (its own token)")
    server_arg(st)
    st.add_argument("--token", metavar="T", help="the bot's token (default $TAASH_TOKEN)")
    st.add_argument("--recent", type=conv(1), default=20, metavar="N",
                    help="list its latest N finished games (default 20; the arena gives at most 200)")
    st.add_argument("--json", action="store_true", help="print the reply as JSON (the proto's field names)")
    st.set_defaults(fn=cmd_standing, extra="arena")
