"""Hostile clients against a real arena process, with honest games beside them.

    python bench/hostile.py                               # every scenario, about 5 minutes
    python bench/hostile.py --scenarios standing bytes --games 60
    python bench/hostile.py --no-front --scenarios idle tls   # the arena without its front door

Starts `taash arena serve` (loopback only, a data directory of its own) and two random
bots, plays --games honest games of 28 (--parallel at once, --deals deals each) once
quietly, then once beside each scenario, each attacker a process of its own (bounded: it
stops when the honest games end, or after --attack-s seconds):

- standing: 16 threads call MyStanding (recent 200) with one bot's token without pause;
- scale: the same, with the token of a bot that has 30,000 finished games, in an arena
  whose store holds them (an arena of its own, its store filled before it starts: rows as
  `save_game` writes them, one record file for all);
- bytes: one token sends hellos of 1 MiB (within the message budget) and reconnects
  each time its stream is cut;
- idle: 1,100 TCP connections that never start a handshake, opened again as the arena
  closes them (or refuses them: its bound of connections without a token per address);
- tls: 16 threads opening TLS connections without pause, each closed once its handshake
  is done (an arena of its own serves TLS for this scenario, with a self-signed
  certificate made with the openssl command; the honest bots and calls use TLS too);
- spread: the same from 32 addresses (127.0.0.2 to 127.0.0.33), a thread each: each
  address within its own bounds, all of them past the bound in all on new connections
  from addresses not known (on the TLS arena, after tls);
- reconnect: one token floods empty messages and reconnects each time it is cut;
- variants: 20 RunMatches at once, each sending a different valid variant text of about
  1 MB (the 29 and comments).

The connection-level attackers (idle, tls) connect from 127.0.0.2, spread from 127.0.0.2
to 127.0.0.33 (Linux routes all of 127.0.0.0/8 to this machine): addresses of their own,
as on a network, since the arena's bounds on connections are per peer address and the
honest clients are on 127.0.0.1. The new bot whose welcome is timed connects from
127.0.0.1 too, an address the arena knows (its honest bots showed their tokens there):
during spread, a bot from an address never seen may wait (docs/protocol.md, "Limits").

For each it prints the honest games' speed as a ratio to a quiet run just before it (games
per second; the attacker runs at nice 19, so that on one machine it takes only the CPU the
arena and the honest bots leave),
the arena's RSS (MiB) before, at most during and 2 s after, the honest games' TIMEOUT
verdicts, the time a new bot's stream took to its Welcome, asked 1 s into the attack, and
what the attacker says of itself (tls: the handshakes done and the tries that failed, in
all and a second). Once each arena has stopped it prints what the arena's log says it
refused while it ran (its lines "refused connections/calls past their bound ...", summed:
docs/protocol.md, "Limits"; the tls attacker's failed tries are those resets and any
other failure it met)
(docs/protocol.md, "Limits": the promise is 0.7 of the speed or more, no TIMEOUT, RSS
back within 50 MiB, a welcome within 1 s).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from taash.arena.pb import arena_pb2 as apb, arena_pb2_grpc  # noqa: E402
from taash.arena.pb import messages_pb2 as pb  # noqa: E402

TAASH = [sys.executable, "-c", "import sys, taash.arena.cli; sys.exit(taash.arena.cli.main())"]
PLAY = "/taash.arena.v1.Arena/Play"
SCENARIOS = ["standing", "bytes", "idle", "reconnect", "variants", "tls", "spread", "scale"]
TLS = ("tls", "spread")     # on an arena of their own that serves TLS
APART = (*TLS, "scale")     # not on the plain arena (TLS; a store of 30,000 games of its own)
SCALE_GAMES = 30_000
ATTACKER = "127.0.0.2"      # the source address of the connection-level attackers
SPREAD = [f"127.0.0.{2 + i}" for i in range(32)]    # spread's, one thread each


def rss_mib(pid: int) -> float:
    """The resident memory of process ``pid`` (MiB, /proc/PID/status VmRSS)."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def play_call(channel, token: str, messages=()):
    """A Play stream of ``token`` sending ``messages`` (an iterable of serialized BotMessages)."""
    return channel.stream_stream(PLAY, request_serializer=lambda b: b,
                                 response_deserializer=pb.ServerMessage.FromString)(
        iter(messages), metadata=[("authorization", f"Bearer {token}")])


# -- the attackers (each run as `--role attack`, a process of its own) -------------------------
def attack(kind: str, addr: str, token: str, admin: str, until: float, ca: str | None = None) -> None:
    if kind in ("standing", "scale"):
        def loop():
            with grpc.insecure_channel(addr) as ch:
                stub = arena_pb2_grpc.ArenaStub(ch)
                while time.monotonic() < until:
                    try:
                        stub.MyStanding(apb.StandingRequest(recent=200),
                                        metadata=[("authorization", f"Bearer {token}")], timeout=10)
                    except grpc.RpcError:
                        pass
        threads = [threading.Thread(target=loop) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    elif kind in ("bytes", "reconnect"):
        msg = (pb.BotMessage(hello=pb.Hello(client="x" * (1 << 20))) if kind == "bytes"
               else pb.BotMessage()).SerializeToString()
        with grpc.insecure_channel(addr, options=[("grpc.max_send_message_length", 8 << 20)]) as ch:
            while time.monotonic() < until:
                def writes():
                    while time.monotonic() < until:
                        yield msg
                call = play_call(ch, token, writes())
                try:
                    for _ in call:
                        pass
                except grpc.RpcError:
                    pass
    elif kind == "idle":
        host, port = addr.rsplit(":", 1)
        socks: list[socket.socket] = []
        while time.monotonic() < until:
            while len(socks) < 1100:
                try:
                    s = socket.create_connection((host, int(port)), timeout=1, source_address=(ATTACKER, 0))
                    s.setblocking(False)
                    socks.append(s)
                except OSError:
                    break
            time.sleep(0.1)
            for s in list(socks):
                try:
                    if s.recv(65536) == b"":
                        raise ConnectionResetError
                except BlockingIOError:
                    continue
                except OSError:
                    s.close()
                    socks.remove(s)
        for s in socks:
            s.close()
    elif kind in TLS:
        host, port = addr.rsplit(":", 1)
        ctx = ssl.create_default_context(cafile=ca)
        ctx.set_alpn_protocols(["h2"])
        counts = {"handshakes": 0, "refused": 0}

        stop = threading.Event()        # SIGTERM: the driver is done; say the counts and end
        signal.signal(signal.SIGTERM, lambda *_: stop.set())

        def shake(source):
            while time.monotonic() < until and not stop.is_set():
                try:
                    with socket.create_connection((host, int(port)), timeout=2, source_address=(source, 0)) as raw:
                        with ctx.wrap_socket(raw, server_hostname="localhost"):
                            counts["handshakes"] += 1
                except (OSError, ssl.SSLError):
                    counts["refused"] += 1
        threads = [threading.Thread(target=shake, args=(source,))
                   for source in ([ATTACKER] * 16 if kind == "tls" else SPREAD)]
        for t in threads:
            t.start()
        t0 = time.monotonic()
        for t in threads:
            t.join()
        took = time.monotonic() - t0
        print(f"{counts['handshakes']} handshakes done ({counts['handshakes'] / took:.0f}/s), {counts['refused']} "
              f"tries failed ({counts['refused'] / took:.0f}/s)", flush=True)
    elif kind == "variants":
        text = (ROOT / "variants" / "29.yaml").read_text()
        pad = "".join(f"# {'padding ' * 12}{i}\n" for i in range(10_000))

        def one(i):
            req = apb.MatchRequest(variant=f"mine{i}.yaml", variant_yaml=f"{text}\n# {i}\n{pad}", bots=["nobody"] * 4)
            with grpc.insecure_channel(addr) as ch:
                try:
                    for _ in arena_pb2_grpc.ArenaStub(ch).RunMatches(
                            req, metadata=[("authorization", f"Bearer {admin}")], timeout=60):
                        pass
                except grpc.RpcError:
                    pass
        threads = [threading.Thread(target=one, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()


# -- the driver ---------------------------------------------------------------------------------
class Arena:
    """`taash arena serve` on loopback with its own data directory, two random bots."""

    def __init__(self, data: Path, tls: tuple[Path, Path] | None = None, extra: list[str] = ()):
        self.data = data
        self.ca = str(tls[0]) if tls else None
        self.log = open(data.parent / f"{data.name}-serve.log", "w")
        served = ["--tls-cert", str(tls[0]), "--tls-key", str(tls[1])] if tls else []
        self.proc = subprocess.Popen([*TAASH, "arena", "serve", "--port", "0", "--data", str(data), "--public-seeds",
                                      *served, *extra], stdout=subprocess.PIPE, stderr=self.log, text=True, cwd=ROOT)
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            raise SystemExit(f"the arena did not start: {line!r}")
        self.addr = line.split("listening on ")[1].split()[0]
        if tls:     # the name the certificate holds
            self.addr = self.addr.replace("127.0.0.1", "localhost")
        self.admin = (data / "admin-token").read_text().strip()
        trust = ["--ca", self.ca] if tls else []
        self.bots = [subprocess.Popen([*TAASH, "bot", "random", "--name", n, "--token", self.token(n),
                                       "--server", self.addr, *trust], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, cwd=ROOT) for n in ("h1", "h2")]

    def channel(self):
        """A new gRPC channel (a new connection) to the arena, with TLS if it serves TLS."""
        if self.ca is None:
            return grpc.insecure_channel(self.addr)
        return grpc.secure_channel(self.addr, grpc.ssl_channel_credentials(Path(self.ca).read_bytes()))

    def token(self, name: str) -> str:
        return subprocess.run([*TAASH, "arena", "token", name, "--data", str(self.data)], capture_output=True,
                              text=True, check=True, cwd=ROOT).stdout.strip()

    def games(self, n: int, parallel: int, deals: int, seed: int) -> tuple[float, int]:
        """Play ``n`` honest games; (seconds, TIMEOUT verdicts in their records)."""
        req = apb.MatchRequest(variant="28", bots=["h1", "h2", "h1", "h2"], matches=n, parallel=parallel,
                               seed=seed, max_deals=deals, wait_ms=30000)
        t0 = time.monotonic()
        with self.channel() as ch:
            results = [u.game for u in arena_pb2_grpc.ArenaStub(ch).RunMatches(
                req, metadata=[("authorization", f"Bearer {self.admin}")], timeout=600)
                if u.WhichOneof("update") == "game"]
        took = time.monotonic() - t0
        timeouts = 0
        for g in results:
            rec = json.loads(Path(g.record).read_text())
            timeouts += sum(c.get("TIMEOUT", 0) for c in rec["arena"]["fault_counts"])
        return took, timeouts

    def welcome_s(self, token: str) -> float | None:
        """Seconds from opening a Play stream to its Welcome (None: refused or none in 10 s)."""
        t0 = time.monotonic()
        with self.channel() as ch:
            call = play_call(ch, token)
            try:
                msg = next(iter(call))
            except (grpc.RpcError, StopIteration):
                return None
            finally:
                call.cancel()
        return time.monotonic() - t0 if msg.WhichOneof("msg") == "welcome" else None

    def stop(self) -> None:
        for p in [*self.bots, self.proc]:
            p.terminate()
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
        self.log.close()


def scenario(arena: Arena, kind: str, args, n: int) -> dict:
    quiet_s, _ = arena.games(args.games, args.parallel, args.deals, seed=1000 * n + 1)   # just before
    attacker_token = arena.token("scale" if kind == "scale" else f"attacker{n}")
    newcomer = arena.token(f"newcomer{n}")
    before = rss_mib(arena.proc.pid)
    until = time.monotonic() + args.attack_s
    # at the lowest priority: on one machine the attacker takes only the CPU the arena and
    # the honest bots leave (a real attacker's CPU is its own machine's)
    proc = subprocess.Popen([sys.executable, __file__, "--role", "attack", kind, arena.addr, attacker_token,
                             arena.admin, str(args.attack_s), *([arena.ca] if arena.ca else [])], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True, preexec_fn=lambda: os.nice(19))
    peak = [before]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_mib(arena.proc.pid))
            time.sleep(0.2)
    sampler = threading.Thread(target=sample)
    sampler.start()
    welcome = []
    prober = threading.Timer(1.0, lambda: welcome.append(arena.welcome_s(newcomer)))
    prober.start()
    took, timeouts = arena.games(args.games, args.parallel, args.deals, seed=1000 * n)
    prober.join()
    proc.terminate()
    said = proc.communicate(timeout=30)[0].strip()
    done.set()
    sampler.join()
    time.sleep(2)
    return {"scenario": kind, "ratio": quiet_s / took, "rss_before": before, "rss_peak": peak[0],
            "rss_after": rss_mib(arena.proc.pid), "timeouts": timeouts, "welcome_s": welcome[0],
            "attack_ended_early": time.monotonic() < until, "attacker": said}


def main(argv=None) -> int:
    if argv is None and len(sys.argv) > 2 and sys.argv[1] == "--role":
        kind, addr, token, admin, seconds = sys.argv[3:8]
        attack(kind, addr, token, admin, time.monotonic() + float(seconds), *sys.argv[8:9])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=SCENARIOS)
    ap.add_argument("--games", type=int, default=120, help="honest games per run (default 120)")
    ap.add_argument("--parallel", type=int, default=20, help="honest games at once (default 20)")
    ap.add_argument("--deals", type=int, default=2, help="deals per honest game (default 2)")
    ap.add_argument("--attack-s", type=float, default=60.0, help="an attacker stops after this (default 60)")
    ap.add_argument("--no-front", action="store_true",
                    help="the arenas without their front door (--peer-pending 0 --peer-connect-rate 0 "
                         "--connect-rate 0): what its bounds change")
    args = ap.parse_args(argv)
    extra = ["--peer-pending", "0", "--peer-connect-rate", "0", "--connect-rate", "0"] if args.no_front else []
    plain = [k for k in args.scenarios if k not in APART]
    with tempfile.TemporaryDirectory(prefix="taash-hostile-") as tmp:
        print(f"{os.cpu_count()} cores; each scenario's speed is a ratio to a quiet run just before it"
              + ("; no front door" if args.no_front else ""), flush=True)
        print(f"{'scenario':<10} {'speed':>6} {'RSS before':>11} {'peak':>7} {'after':>7} {'TIMEOUT':>8} "
              f"{'welcome':>9}")
        n = 0
        runs = [(name, kinds) for name, kinds in (("tls", [k for k in TLS if k in args.scenarios]),
                                                  ("scale", [k for k in ("scale",) if k in args.scenarios])) if kinds]
        for name, kinds in ([("data", plain)] if plain else []) + runs:
            data = Path(tmp) / name
            data.mkdir()
            if name == "scale":
                fill_store(data, SCALE_GAMES)
            arena = Arena(data, make_cert(Path(tmp)) if name == "tls" else None, extra)
            try:
                arena.games(4, 4, 1, seed=0)          # warm up (and the bots connected)
                for kind in kinds:
                    n += 1
                    r = scenario(arena, kind, args, n)
                    w = "refused" if r["welcome_s"] is None else f"{r['welcome_s'] * 1000:.0f} ms"
                    print(f"{kind:<10} {r['ratio']:>6.2f} {r['rss_before']:>11.0f} {r['rss_peak']:>7.0f} "
                          f"{r['rss_after']:>7.0f} {r['timeouts']:>8} {w:>9}  {r['attacker']}", flush=True)
            finally:
                arena.stop()
            print(f"  the {name} arena's log: {logged(arena.log.name)}", flush=True)
    return 0


def logged(path: str) -> str:
    """What the arena's log at ``path`` says it refused, summed over its lines by kind
    and reason: "refused connections: 12 for ...; refused calls: ..." ("nothing refused")."""
    import re
    line = re.compile(r"(refused connections|refused calls) past their bound \(docs/protocol.md, Limits\): (.*)$")
    sums: dict[str, dict[str, int]] = {}
    for text in Path(path).read_text().splitlines():
        m = line.search(text)
        if m:
            kind = sums.setdefault(m.group(1), {})
            for part in m.group(2).split("; "):
                n, why = part.split(" for ", 1)
                kind[why] = kind.get(why, 0) + int(n)
    return "; ".join(f"{k}: " + ", ".join(f"{n} for {w}" for w, n in v.items())
                     for k, v in sums.items()) or "nothing refused"


def fill_store(data: Path, games: int) -> None:
    """Give bot "scale" ``games`` finished games of 28 in the arena store of ``data``
    (seated 0 and 2, against h1 and h2; a few faults), as save_game leaves its rows; every
    row names one record file (MyStanding reads no record)."""
    import sqlite3
    from taash.arena.store import SQLiteStore
    SQLiteStore(data).close()      # the tables
    record = data / "records" / "filled.json"
    record.write_text("{}")
    db = sqlite3.connect(data / "arena.sqlite3")
    now = time.time()
    bots = json.dumps(["scale", "h1", "scale", "h2"])
    with db:
        db.executemany("INSERT INTO games(game_id, created, finished, variant, seed, bots, complete, score, winners, "
                       "faults, record) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                       ((f"f{i:06d}", now, now, "28", i, bots, 1, "[6, -6]", "[0]", i % 3, str(record))
                        for i in range(games)))
        ids = [r[0] for r in db.execute("SELECT id FROM games WHERE game_id LIKE 'f%'")]
        db.executemany("INSERT INTO bot_games(bot, game, seats, faults) VALUES(?,?,?,?)",
                       ((b, g, seats, json.dumps({"TIMEOUT": g % 3} if b == "scale" else {}))
                        for g in ids for b, seats in (("scale", "[0, 2]"), ("h1", "[1]"), ("h2", "[3]"))))
    db.close()


def make_cert(d: Path) -> tuple[Path, Path]:
    """(certificate, key): self-signed for localhost and 127.0.0.1 (the openssl command)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        raise SystemExit("the tls scenario needs the openssl command (to make a certificate)")
    crt, key = d / "arena.crt", d / "arena.key"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(crt),
                    "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   capture_output=True, check=True, timeout=60)
    return crt, key

if __name__ == "__main__":
    sys.exit(main())
