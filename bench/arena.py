"""Arena throughput and latency against a bare gRPC echo at the same concurrency.

    python bench/arena.py                      # 1, 100 and 1000 concurrent games of 29
    python bench/arena.py --games 1 100 --deals 2 --variant 28

For each concurrency G it runs, on localhost, with the server in one process and the
bots in another (two cores: one each):

- arena: a server (taash.arena.server.ArenaServer) plays G games of the variant at once, each
  limited to --deals deals, between 4*G bot connections (the Python SDK, a random legal
  action, decide called on the event loop; lazy_observation, since this bot does not
  read its observation). Figures: decisions per second (all games,
  wall time from the first request to the last game's end) and the decision latency
  (the server's clock, from sending a DecisionRequest to receiving the legal answer).
- echo: a bare bidirectional gRPC echo server (no protobuf, no game); G concurrent
  ping-pong loops, each over 4 streams in turn like a game's seats, with messages of the
  size of an average DecisionRequest (as the arena run just before made them: the
  ServerMessage bytes, batched events included; about 1.3 KB in 29). Its streams are opened (one round trip each) before
  the clock starts, as the arena's bots are connected before its games start. Figures:
  round trips per second and round-trip time.
- wire (--wire): the arena's wire without its game hosting (the Play method, a reader and
  a writer task per stream joined by the arena's Outbox, each answer sending a ready
  DecisionRequest of the variant to the next seat), with the same bots and decisions per
  game: what the arena would do if hosting cost nothing; "wire/e" is its ratio to the echo.
- floor (--floor): the wire-only server whose games are played by the engine (bench
  FloorGame: each answer applied to the State, its public form held for every seat, each
  request built with the legal actions, the observation's JSON and the held events, as
  the arena builds it), with nothing else of hosting (no time control, fault policy,
  record, journal or spectators, no per-game cost): the least an arena of this design
  (gRPC aio, the Python engine) does per decision; "floor/e" is its ratio to the echo.

The bots are the Python SDK (--bots sdk, the default) or, with --bots raw, clients as lean
as the echo's (raw gRPC, parse the ServerMessage, answer a random legal action): the
arena's own cost, without the SDK's.

- spectators: the arena run again at --spectator-games games (default 100) with
  --spectators idle spectators attached (default 1000; Watch of every game from another
  process, never read, gRPC's default flow-control window: each takes about a thousand
  events before its stream blocks), beside the same run without them, --spectator-deals
  deals per game (default 6); --spectator-batches: WatchBatches calls instead. What the
  arena writes to all spectators together is bounded by --spectator-rate units a second
  (a message or a KiB; the arena's default, 1000), the least behind first: the idle
  spectators fall behind and are dropped as the run goes (the line says how many were
  still attached at its end). --repeat N: N pairs, and their median.

Throughput is also given while all G games play (column "all G": the decisions made
before the first game ends, over that time; the echo's loops likewise): games of random
bots differ in length, so the whole run's figure has a tail where fewer games play, which
the echo's equal loops do not have.

The bots ask for batched events (Hello.batch_events) unless --no-batch. Prints one table
and the ratios arena/echo, with each side's CPU per decision (round trip) in the run and
the server's write and read system calls per decision (/proc/self/io);
--repeat N runs arena and echo in turn N times per concurrency and prints the median
ratio too (on a shared machine one pair of runs can be far off). Needs nothing but the project's venv.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")     # not gRPC's INFO lines about closed connections
import grpc  # noqa: E402

SERVER_OPTIONS_NAME = "taash.arena.server.SERVER_OPTIONS"


def pct(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def io_calls() -> tuple[int, int]:
    """(read, write) system calls of this process so far (/proc/self/io; zeros elsewhere):
    a write call is one sendmsg of gRPC's transport, the most costly part of a message."""
    try:
        f = dict(line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
        return int(f["syscr"]), int(f["syscw"])
    except (OSError, KeyError, ValueError):
        return 0, 0


def tune_gc():
    """What `taash arena serve` does too: fewer collections of the long-lived heap."""
    from taash.arena.server import tune_gc as tune
    tune()


def _count_decision_bytes() -> list[int]:
    """From now on, the size of each DecisionRequest message this arena process makes
    (the ServerMessage bytes, held events included) is appended to the list returned."""
    from taash.arena.server import framing
    make, sizes = framing.decision_message, []

    def counted(request, events):
        m = make(request, events)
        sizes.append(len(m))
        return m
    framing.decision_message = counted
    return sizes


# -- server processes -------------------------------------------------------------------
async def arena_server(games: int, deals: int, variant: str, data: str, spectators: int = 0,
                       rate: int = 1000, front: bool = True) -> None:
    """The arena side: serve, wait for the bots, play ``games`` games at once, print the
    figures as JSON on stdout. ``front``: through the arena's front door (its bounds per
    address as by default, but the bench's connections, all from one address, let in at
    once), else gRPC accepting the connections itself."""
    from taash.interpreter import load_variant
    from taash.arena.limits import Limits
    from taash.arena.server import ArenaServer, TimeControl
    from taash.arena.store import SQLiteStore
    store = SQLiteStore(data)
    names = [f"bench{s}" for s in range(4)]
    tokens = {n: store.issue_token(n) for n in names}
    # each game's seats are streams of their own (as the echo's loops), so a token has one
    # stream per game: the cap of streams per token is raised to the number of games
    server = ArenaServer(store, TimeControl(move_ms=60_000, bank_ms=0, grace_ms=60_000),
                         max_spectators=max(1000, spectators), spectator_rate=rate,
                         max_streams=max(8, games),
                         limits=Limits(peer_connect_burst=64) if front
                         else Limits(peer_pending=0, peer_connect_rate=0, connect_rate=0))
    port = await server.start("127.0.0.1", 0)
    print(json.dumps({"port": port, "tokens": tokens}), flush=True)
    arena = server.arena
    v = load_variant(variant)
    bots = [names[s % 4] for s in range(v.players)]
    # every connection must be in before the burst
    while (sum(len([c for c in arena.conns.get(n, ()) if c.alive]) for n in names) < games * v.players
           or len(arena.spectators.readers) < spectators):
        await asyncio.sleep(0.05)
    arena.measure = True
    sizes = _count_decision_bytes()
    tune_gc()
    c0, io0 = os.times(), io_calls()
    t0 = time.perf_counter()
    first: dict = {}        # when the first game ends: the decisions made while all games played

    async def game(g):
        r = await arena.run_game(v, 1000 + g, bots, max_deals=deals)
        if not first:
            first.update(t=time.perf_counter() - t0, n=len(arena.latencies))
        return r
    results = await asyncio.gather(*(game(g) for g in range(games)))
    dt = time.perf_counter() - t0
    lat = arena.latencies
    errors = [r["error"] for r in results if r["error"]]
    cpu, io = os.times(), io_calls()
    print(json.dumps({"decisions": len(lat), "all_playing_per_s": first["n"] / first["t"], "syscr": io[0] - io0[0], "syscw": io[1] - io0[1], "seconds": dt, "server_cpu": cpu.user + cpu.system,
                      "server_cpu_run": cpu.user + cpu.system - c0.user - c0.system, "p50_ms": pct(lat, 50) * 1000,
                      "p99_ms": pct(lat, 99) * 1000, "faults": sum(r["faults"] for r in results),
                      "spectators_left": len(arena.spectators.readers),
                      "decision_bytes": sum(sizes) / max(1, len(sizes)),
                      "errors": errors[:3]}), flush=True)
    await server.stop()


def sample_request(variant: str) -> bytes:
    """A ServerMessage with a DecisionRequest of ``variant`` from the middle of a deal (its
    observation, legal actions and four batched ActionTaken events), as the arena sends
    one: what the wire-only server sends for every decision."""
    from taash.interpreter import Match, load_variant
    from taash.arena.pb import messages_pb2 as mpb
    from taash.arena.store import compact_json
    v = load_variant(variant)
    st = Match(v, 5).new_deal()
    rng = random.Random(1)
    while st.to_act >= 0 and len(st.history) < 20:
        st.apply(rng.choice(st.legal_actions()))
    s = st.to_act
    events = [mpb.GameEvent(game_id="000123", index=i, action=mpb.ActionTaken(deal=1, seat=i % v.players, action=a))
              for i, (_, a) in enumerate(st.history[-4:])]
    return mpb.ServerMessage(decision=mpb.DecisionRequest(
        request_id="000123.20", game_id="000123", seat=s, observation_json=compact_json(st.observation(s)),
        legal_actions=st.legal_actions(), deadline_ms=60_000, events=events)).SerializeToString()


class FloorGame:
    """A game as the --floor server plays it: the least any arena of this design does
    per decision. An answer is parsed and applied to the engine's State, and its public
    form (`State.public_action`) goes to every seat as a serialized ActionTaken held for
    its next request (connection.Connection in batch mode); a request is the legal actions,
    the observation's JSON (`State.observation_json`) and a DecisionRequest carrying the
    held events (framing.decision_message), as the arena sends it. Left out: time
    control, the fault policy, verdicts, spectators, the record and journal, and every
    per-game cost (store rows, GameStart and the end of a game): a match that ends is
    followed by the next at once."""

    def __init__(self, variant, seed: int, game_id: str):
        from taash.arena.pb import messages_pb2
        from taash.arena.server import framing
        from taash.interpreter import Match
        self.pb, self.framing, self.Match = messages_pb2, framing, Match   # imported once, not per decision
        self.v, self.seed, self.id = variant, seed, game_id
        self.match = Match(variant, seed)
        self.st = self.match.new_deal()
        self.held: list[list[bytes]] = [[] for _ in range(variant.players)]
        self.legal: dict = {}
        self.nreq = 0

    def answer(self, raw: bytes) -> bool:
        """Apply the answer in BotMessage bytes ``raw`` (an action not legal: the first
        legal one); False for a message that is no answer (a Hello)."""
        mpb = self.pb
        msg = mpb.BotMessage.FromString(raw)
        if msg.WhichOneof("msg") != "answer":
            return False
        st = self.st
        act = self.legal.get(msg.answer.action) or st.legal_actions()[0]
        s = st.to_act
        st.apply(act)
        ev = mpb.GameEvent()
        a = ev.action
        a.deal, a.seat, a.action = st.deal_number, s, st.public_action(s, act, None)
        data = ev.SerializeToString()
        for h in self.held:
            h.append(data)
        if st.to_act < 0:
            m = self.match
            m.finish_deal(st)
            if m.over:
                self.seed += 1
                m = self.match = self.Match(self.v, self.seed)
            self.st = m.new_deal()
        return True

    def request(self) -> tuple[int, bytes]:
        """(seat, ServerMessage bytes) of the next decision."""
        st = self.st
        s = st.to_act
        legal = st.legal_actions()
        self.legal = dict(zip(legal, legal))
        rid = f"{self.id}.{self.nreq}"
        self.nreq += 1
        req = self.pb.DecisionRequest(request_id=rid, game_id=self.id, seat=s, observation_json=st.observation_json(s),
                                  legal_actions=legal, deadline_ms=60_000).SerializeToString()
        held, self.held[s] = self.held[s], []
        return s, self.framing.decision_message(req, held)


async def wire_server(games: int, rounds: int, variant: str, players: int, floor: bool = False) -> None:
    """The arena's wire without its game hosting: the Play method over raw bytes, each
    stream with a reader task and a writer task joined by the arena's Outbox (as
    taash.arena.server.wire does); every ``players`` streams in order of arrival make a game
    that asks its seats in turn; each answer sends the same ready DecisionRequest
    (`sample_request`) to the next seat, ``rounds`` times per game. No engine, no
    observation, no events, no store, no authentication: what the arena would cost if
    hosting cost nothing. With ``floor``, each game is a `FloorGame` instead: the
    engine, the observation and the events, but none of the rest of hosting."""
    from taash.arena.server.hosting import Outbox
    from taash.interpreter import load_variant
    req = sample_request(variant)
    v = load_variant(variant) if floor else None
    floors: list[FloorGame] = []
    lat: list[float] = []
    seats: list[list] = []          # per game: its streams' outboxes
    left = [games]
    done = asyncio.get_running_loop().create_future()
    t = {}

    async def play(request_iterator, context):
        out = Outbox()
        g, s = divmod(sum(len(x) for x in seats), players)
        if s == 0:
            seats.append([])
        seats[g].append(out)
        if len(seats) == games and len(seats[-1]) == players:
            t["t0"] = time.perf_counter()
            t["c0"] = os.times()
            for i, outs in enumerate(seats):       # every game asks its first seat
                if floor:
                    floors.append(FloorGame(v, 1000 + i, f"{i:06d}"))
                    first, data = floors[i].request()
                    outs[first].put_nowait(data)
                else:
                    outs[0].put_nowait(req)
                games_state[id(outs)] = {"n": 0, "sent": time.perf_counter()}

        async def reader():
            read = context.read
            while True:
                raw = await read()
                if raw is grpc.aio.EOF:
                    break
                if len(seats[g]) < players or id(seats[g]) not in games_state:
                    continue            # the Hello, before the game starts
                if floor and not floors[g].answer(raw):
                    continue            # a Hello that came after the start
                gs = games_state[id(seats[g])]
                now = time.perf_counter()
                lat.append(now - gs["sent"])
                gs["n"] += 1
                if gs["n"] < rounds:
                    gs["sent"] = now
                    if floor:
                        nxt, data = floors[g].request()
                        seats[g][nxt].put_nowait(data)
                    else:
                        seats[g][gs["n"] % players].put_nowait(req)
                else:
                    left[0] -= 1
                    if left[0] == 0 and not done.done():
                        done.set_result(time.perf_counter())
                        for outs in seats:      # every handler ends: no call is cancelled
                            for o in outs:
                                o.put_nowait(None)
                await asyncio.sleep(0)
        task = asyncio.ensure_future(reader())
        write = context.write
        try:
            while True:
                item = out.get_nowait() if out.qsize() else await out.get()
                if item is None:
                    break
                await write(item)
        except asyncio.CancelledError:      # the bot went first (its client stopped)
            pass
        finally:
            task.cancel()
    games_state: dict = {}
    srv, port = await raw_server("taash.arena.v1.Arena", "Play", play)
    print(json.dumps({"port": port, "tokens": {f"bench{s}": "none" for s in range(4)}}), flush=True)
    end = await done
    c = os.times()
    dt = end - t["t0"]
    print(json.dumps({"decisions": len(lat), "all_playing_per_s": len(lat) / dt, "syscr": 0, "syscw": 0,
                      "seconds": dt, "server_cpu": c.user + c.system,
                      "server_cpu_run": c.user + c.system - t["c0"].user - t["c0"].system,
                      "p50_ms": pct(lat, 50) * 1000, "p99_ms": pct(lat, 99) * 1000, "faults": 0,
                      "spectators_left": 0, "errors": []}), flush=True)
    await srv.stop(0)


async def raw_server(service: str, method: str, handler):
    """A started gRPC server (the arena's options) with one bidirectional ``method`` of
    ``service`` over raw bytes on a free local port, the GC tuned: (server, port)."""
    from taash.arena.server import SERVER_OPTIONS
    srv = grpc.aio.server(options=SERVER_OPTIONS)
    srv.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        service, {method: grpc.stream_stream_rpc_method_handler(handler)}),))
    port = srv.add_insecure_port("127.0.0.1:0")
    await srv.start()
    tune_gc()
    return srv, port


async def echo_server() -> None:
    """A bare bidirectional echo over gRPC (raw bytes, same server options)."""

    async def echo(req_iter, context):
        async for m in req_iter:
            yield m
    srv, port = await raw_server("bench.Echo", "Echo", echo)
    print(json.dumps({"port": port}), flush=True)
    # "go" on stdin starts the CPU count; the end of stdin prints it
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)
    c0, io0 = os.times(), io_calls()
    await loop.run_in_executor(None, sys.stdin.readline)
    c, io = os.times(), io_calls()
    print(json.dumps({"server_cpu_run": c.user + c.system - c0.user - c0.system,
                      "syscr": io[0] - io0[0], "syscw": io[1] - io0[1]}), flush=True)
    await srv.wait_for_termination()


async def idle_spectators(addr: str, n: int, batches: bool = False) -> None:
    """``n`` Watch (or WatchBatches) calls of every game that are never read (gRPC's
    default windows)."""
    from taash.arena.pb import arena_pb2 as apb, arena_pb2_grpc
    chans = [grpc.aio.insecure_channel(addr, options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(8)]
    calls = [(arena_pb2_grpc.ArenaStub(chans[i % 8]).WatchBatches if batches else
              arena_pb2_grpc.ArenaStub(chans[i % 8]).Watch)(apb.WatchRequest()) for i in range(n)]
    await asyncio.gather(*(c.initial_metadata() for c in calls))
    print(json.dumps({"watching": n}), flush=True)
    await asyncio.sleep(1e9)


# -- client side ------------------------------------------------------------------------
def spawn(role: str, *args) -> tuple[subprocess.Popen, dict]:
    p = subprocess.Popen([sys.executable, __file__, "--role", role, *map(str, args)],
                         stdout=subprocess.PIPE, stdin=subprocess.PIPE if role == "echo" else None,
                         text=True, cwd=str(ROOT))
    line = p.stdout.readline()
    if not line:
        p.wait()
        raise SystemExit(f"the {role} server did not start (exit {p.returncode})")
    return p, json.loads(line)


def channels(addr: str, streams: int) -> list:
    """The client connections: one per 64 streams (at most 64 connections), each its own
    TCP connection. The arena's bots and the echo use the same layout."""
    n = max(1, min(64, streams // 64))
    return [grpc.aio.insecure_channel(addr, options=[("grpc.use_local_subchannel_pool", 1)])
            for _ in range(n)]


async def raw_bot(chan, token: str, name: str, batch: bool, rng: random.Random, stopping: asyncio.Event) -> None:
    """A bot as lean as the echo's client: raw gRPC on the Play method, a random legal
    action, no SDK (what the arena costs, without the Python SDK's own work)."""
    from taash.arena.pb import messages_pb2 as mpb
    call = chan.stream_stream("/taash.arena.v1.Arena/Play")(
        metadata=(("authorization", f"Bearer {token}"), ("taash-bot", name)))
    await call.write(mpb.BotMessage(hello=mpb.Hello(client="bench-raw", batch_events=batch)).SerializeToString())
    parse = mpb.ServerMessage.FromString
    while not stopping.is_set():
        raw = await call.read()
        if raw is grpc.aio.EOF:
            return
        msg = parse(raw)
        if msg.WhichOneof("msg") == "decision":
            d = msg.decision
            legal = d.legal_actions
            out = mpb.BotMessage()
            out.answer.request_id, out.answer.action = d.request_id, legal[rng.randrange(len(legal))]
            await call.write(out.SerializeToString())
    call.cancel()


async def run_arena(games: int, deals: int, variant: str, players: int, batch: bool = True,
                    spectators: int = 0, rate: int = 1000, batches_of_spectators: bool = False,
                    raw: bool = False, wire_rounds: int = 0, floor: bool = False, front: bool = True) -> dict:
    """One arena run (or, with ``wire_rounds``, one run of the wire-only server, that many
    decisions per game; with ``floor`` too, of the floor server) with the bench's bots;
    returns the server's figures."""
    from taash.arena.sdk import BotClient
    data = tempfile.mkdtemp(prefix="taash-bench-")
    if wire_rounds:
        proc, info = spawn("wire", games, wire_rounds, variant, players, int(floor))
    else:
        proc, info = spawn("arena", games, deals, variant, data, spectators, rate, int(front))
    addr = f"127.0.0.1:{info['port']}"
    watchers = spawn("spectators", addr, spectators, int(batches_of_spectators))[0] if spectators else None
    rng = random.Random(7)
    chans = channels(addr, games * players)
    clients = []
    stopping = asyncio.Event()
    for g in range(games):
        for s in range(players):
            name = f"bench{s % 4}"
            if raw:
                clients.append(raw_bot(chans[(g * players + s) % len(chans)], info["tokens"][name], name, batch,
                                       rng, stopping))
                continue
            clients.append(BotClient(lambda o, legal: legal[rng.randrange(len(legal))], info["tokens"][name],
                                     name, addr, threads=False, channel=chans[(g * players + s) % len(chans)],
                                     batch_events=batch, lazy_observation=True))
    tasks = [asyncio.ensure_future(c if raw else c.run()) for c in clients]
    tune_gc()
    c0 = os.times()
    line = await asyncio.get_running_loop().run_in_executor(None, proc.stdout.readline)
    stopping.set()
    for c in clients:
        if raw:
            continue
        c.stop()
    await asyncio.gather(*tasks, return_exceptions=True)
    for ch in chans:
        await ch.close()
    proc.wait()
    if watchers is not None:
        watchers.kill()
        watchers.wait()
    if not line:
        raise SystemExit("the arena server failed")
    r = json.loads(line)
    r["per_s"] = r["decisions"] / r["seconds"]
    c = os.times()
    bots_cpu = c.user + c.system - c0.user - c0.system
    n = max(1, r["decisions"])
    print(f"  (arena server cpu {r['server_cpu']:.1f} s, {r['server_cpu_run'] / n * 1e6:.0f} us per decision "
          f"in the run, {r['syscw'] / n:.2f} writes {r['syscr'] / n:.2f} reads (system calls) per decision; "
          f"bots cpu {bots_cpu:.1f} s, {bots_cpu / n * 1e6:.0f} us per decision; wall {r['seconds']:.1f} s)")
    return r


async def run_echo(games: int, rounds: int, size: int) -> dict:
    proc, info = spawn("echo")
    addr = f"127.0.0.1:{info['port']}"
    chans = channels(addr, games * 4)
    payload = os.urandom(size)
    lat: list[float] = []

    first: dict = {}
    ready, start = [0], asyncio.Event()

    async def game(g):
        # the streams are opened (one round trip each) before the clock starts, as the
        # arena's bots connect before its games start
        calls = [chans[(g * 4 + s) % len(chans)].stream_stream("/bench.Echo/Echo")() for s in range(4)]
        for c in calls:
            await c.write(payload)
            await c.read()
        ready[0] += 1
        if ready[0] == games:
            start.set()
        await start.wait()
        for i in range(rounds):
            c = calls[i % 4]
            t = time.perf_counter()
            await c.write(payload)
            await c.read()
            lat.append(time.perf_counter() - t)
        if not first:
            first.update(t=time.perf_counter() - t0, n=len(lat))
        for c in calls:
            await c.done_writing()
    tune_gc()
    tasks = [asyncio.ensure_future(game(g)) for g in range(games)]
    await start.wait()
    proc.stdin.write("go\n")
    proc.stdin.flush()
    c0 = os.times()
    t0 = time.perf_counter()
    await asyncio.gather(*tasks)
    dt = time.perf_counter() - t0
    c = os.times()
    proc.stdin.close()
    srv = json.loads(proc.stdout.readline())
    server_cpu = srv["server_cpu_run"]
    for ch in chans:
        await ch.close()
    proc.terminate()
    proc.wait()
    client_cpu = c.user + c.system - c0.user - c0.system
    print(f"  (echo of {size} B messages: server cpu {server_cpu / len(lat) * 1e6:.0f} us per round trip, {srv['syscw'] / len(lat):.2f} "
          f"writes {srv['syscr'] / len(lat):.2f} reads (system calls) per round trip; client cpu "
          f"{client_cpu / len(lat) * 1e6:.0f} us per round trip; wall {dt:.1f} s)")
    return {"decisions": len(lat), "seconds": dt, "per_s": len(lat) / dt, "all_playing_per_s": first["n"] / first["t"],
            "p50_ms": pct(lat, 50) * 1000, "p99_ms": pct(lat, 99) * 1000}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, nargs="+", default=[1, 100, 1000], help="concurrent games")
    ap.add_argument("--deals", type=int, default=2,
                    help="deals per game (default 2; at least 100/games, for enough decisions)")
    ap.add_argument("--variant", default="29")
    ap.add_argument("--no-batch", action="store_true", help="bots get one message per event (no batch_events)")
    ap.add_argument("--wire", action="store_true",
                    help="also run the wire-only server (the arena's wire, no game hosting: what the arena "
                         "would do if hosting cost nothing) with the same bots and decisions per game")
    ap.add_argument("--floor", action="store_true",
                    help="also run the floor server (the wire, the engine's apply and legal actions, the "
                         "observation's JSON and the public events, none of the rest of hosting: the least an "
                         "arena of this design does per decision) with the same bots and decisions per game")
    ap.add_argument("--bots", choices=("sdk", "raw"), default="sdk",
                    help="sdk: the Python SDK's BotClient (default); raw: bots as lean as the echo's client "
                         "(raw gRPC, no SDK), so that the figure is the arena's cost alone")
    ap.add_argument("--repeat", type=int, default=1,
                    help="arena and echo runs per concurrency, in turn (a shared machine is noisy: "
                         "the median ratio is printed)")
    ap.add_argument("--spectators", type=int, default=1000, help="idle spectators of the spectator run (0: none)")
    ap.add_argument("--spectator-games", type=int, default=100, help="concurrent games of the spectator run")
    ap.add_argument("--spectator-deals", type=int, default=6,
                    help="deals per game of the spectator run (default 6: the spectators' fixed cost at the first "
                         "events, each stream's window filled once, is spread as in a long-running arena)")
    ap.add_argument("--spectator-batches", action="store_true",
                    help="the idle spectators call WatchBatches rather than Watch")
    ap.add_argument("--spectator-rate", type=int, default=1000,
                    help="the arena's --spectator-rate in both runs (0: no bound)")
    ap.add_argument("--no-front", action="store_true",
                    help="the arena without its front door (--peer-pending 0 --peer-connect-rate 0 --connect-rate 0: gRPC accepts "
                         "the connections itself, no relay): the front door's cost is the difference")
    ap.add_argument("--role", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.role:
        role, rest = args.role[0], args.role[1:]
        if role == "wire":
            asyncio.run(wire_server(int(rest[0]), int(rest[1]), rest[2], int(rest[3]), rest[4] == "1"))
        elif role == "arena":
            asyncio.run(arena_server(int(rest[0]), int(rest[1]), rest[2], rest[3], int(rest[4]), int(rest[5]),
                                     rest[6] == "1"))
        elif role == "spectators":
            asyncio.run(idle_spectators(rest[0], int(rest[1]), rest[2] == "1"))
        else:
            asyncio.run(echo_server())
        return 0
    from taash.interpreter import load_variant
    players = load_variant(args.variant).players
    print(f"arena vs bare gRPC echo on localhost, {args.variant}, max({args.deals}, 100/games) deals per game, "
          f"{players} bot connections per game; python {sys.version.split()[0]}, grpcio {grpc.__version__}, "
          f"{os.cpu_count()} cores")
    print(f"{'games':>6} {'what':>6} {'decisions':>10} {'per s':>9} {'p50 ms':>8} {'p99 ms':>8} {'all G':>9}")
    for g in args.games:
        deals = max(args.deals, 100 // g)     # enough decisions for stable figures at low concurrency
        ratios, steady = [], []
        for _ in range(args.repeat):          # arena and echo in turn, so both see the same load
            a = asyncio.run(run_arena(g, deals, args.variant, players, not args.no_batch, raw=args.bots == "raw",
                                      front=not args.no_front))
            size = round(a["decision_bytes"]) or 900     # the echo's messages: the arena's average request
            rounds = max(4, a["decisions"] // g)
            e = asyncio.run(run_echo(g, rounds, size))
            w = (asyncio.run(run_arena(g, deals, args.variant, players, not args.no_batch, raw=args.bots == "raw",
                                       wire_rounds=rounds)) if args.wire else None)
            f = (asyncio.run(run_arena(g, deals, args.variant, players, not args.no_batch, raw=args.bots == "raw",
                                       wire_rounds=rounds, floor=True)) if args.floor else None)
            for what, r in (("arena", a), ("echo", e)) + ((("wire", w),) if w else ()) + ((("floor", f),) if f else ()):
                print(f"{g:>6} {what:>6} {r['decisions']:>10} {r['per_s']:>9.0f} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} "
                      f"{r['all_playing_per_s']:>9.0f}")
            ratios.append(a["per_s"] / e["per_s"])
            steady.append(a["all_playing_per_s"] / e["all_playing_per_s"])
            print(f"{g:>6} {'ratio':>6} {'':>10} {a['per_s'] / e['per_s']:>9.2f} "
                  f"{a['p50_ms'] / e['p50_ms']:>8.2f} {a['p99_ms'] / e['p99_ms']:>8.2f} {steady[-1]:>9.2f}"
                  + (f"   ({a['faults']} verdicts)" if a.get("faults") else ""), flush=True)
            if w:
                print(f"{g:>6} {'wire/e':>6} {'':>10} {w['per_s'] / e['per_s']:>9.2f}   (the wire alone, no hosting)")
            if f:
                print(f"{g:>6} {'floor/e':>7} {'':>9} {f['per_s'] / e['per_s']:>9.2f}   "
                      "(the wire, the engine, the observation and the events: no other hosting)")
            if a.get("errors"):
                print("errors:", a["errors"])
        if len(ratios) > 1:
            print(f"{g:>6} {'median':>6} {'':>10} {statistics.median(ratios):>9.2f} {'':>17} "
                  f"{statistics.median(steady):>9.2f}   (while all {g} play: {' '.join(f'{x:.2f}' for x in steady)};")
            print(f"{'':>44}throughput ratio of "
                  f"{len(ratios)} runs: {' '.join(f'{x:.2f}' for x in ratios)})", flush=True)
    if args.spectators:
        g, deals = args.spectator_games, args.spectator_deals
        ratios = []
        for _ in range(args.repeat):      # without and with in turn, so both see the same load
            runs = [(n, asyncio.run(run_arena(g, deals, args.variant, players, not args.no_batch, n,
                                              args.spectator_rate, args.spectator_batches)))
                    for n in (0, args.spectators)]
            for n, r in runs:
                print(f"{g:>6} {'+' + str(n) + ' spec':>10} {r['decisions']:>6} {r['per_s']:>9.0f} "
                      f"{r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f}"
                      + (f"   ({r['spectators_left']} still attached at the end)" if n else ""))
            ratios.append(runs[1][1]['per_s'] / runs[0][1]['per_s'])
            print(f"{g:>6} {'ratio':>6} {'':>10} {ratios[-1]:>9.2f} "
                  f"{runs[1][1]['p50_ms'] / runs[0][1]['p50_ms']:>8.2f} "
                  f"{runs[1][1]['p99_ms'] / runs[0][1]['p99_ms']:>8.2f}   (with / without spectators)", flush=True)
        if len(ratios) > 1:
            print(f"{g:>6} {'median':>6} {'':>10} {statistics.median(ratios):>9.2f}   (with / without spectators, "
                  f"{len(ratios)} pairs: {' '.join(f'{x:.2f}' for x in ratios)})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
