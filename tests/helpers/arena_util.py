"""Helpers for the arena tests: start `taash arena serve` and bots as real processes,
talk to the arena over gRPC, read records."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import grpc

from tests.helpers import ROOT, readline

# the console script, as a user runs it (`make test` installs it in the venv)
_SCRIPT = Path(sys.executable).parent / "taash"
TAASH = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-c", "import sys, taash.arena.cli; sys.exit(taash.arena.cli.main())"]
FAULT_BOT = [sys.executable, "-m", "tests.helpers.fault_bot"]  # run with cwd=ROOT, env()


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    e.pop("TAASH_TOKEN", None)
    return e


class Server:
    """`taash arena serve --port 0` in a process of its own; ``addr``, ``data``."""

    def __init__(self, data: Path, *extra: str, public_seeds: bool = True):
        self.data = Path(data)
        self.log = open(self.data.parent / f"{self.data.name}-serve.log", "w")
        seeds = ["--public-seeds"] if public_seeds else []
        self.proc = subprocess.Popen([*TAASH, "arena", "serve", "--port", "0", "--data", str(data), *seeds, *extra],
                                     stdout=subprocess.PIPE, stderr=self.log, text=True, env=env(), cwd=ROOT)
        try:
            line = readline(self.proc.stdout)
        except AssertionError:
            line = "(none in 60 s)"
        if "listening on" not in line:
            self.stop()
            raise RuntimeError(f"the arena did not start: {line!r}; log: {self.logtext()}")
        self.addr = line.split("listening on ")[1].split()[0]
        self.admin = (self.data / "admin-token").read_text().strip()
        self.procs: list[subprocess.Popen] = []

    def logtext(self) -> str:
        self.log.flush()
        return (self.data.parent / f"{self.data.name}-serve.log").read_text()

    def token(self, name: str) -> str:
        """Issue a token with the CLI, as a user does."""
        out = subprocess.run([*TAASH, "arena", "token", name, "--data", str(self.data)], capture_output=True,
                             text=True, env=env(), cwd=ROOT, timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    def bot(self, kind: str, name: str, token: str, *extra: str) -> subprocess.Popen:
        """`taash bot KIND` in its own process."""
        p = subprocess.Popen([*TAASH, "bot", kind, "--name", name, "--token", token, "--server", self.addr, *extra],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
        self.procs.append(p)
        return p

    def fault_bot(self, mode: str, name: str, token: str, out: Path, *extra: str) -> subprocess.Popen:
        """tests/helpers/fault_bot.py MODE in its own process; it writes what it saw to ``out``."""
        p = subprocess.Popen([*FAULT_BOT, mode, "--name", name, "--token", token, "--server", self.addr,
                              "--out", str(out), *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, env=env(), cwd=ROOT)
        self.procs.append(p)
        return p

    def wait_connected(self, names, timeout=30.0) -> None:
        """Wait until each bot in ``names`` has a connection."""
        from taash.arena.pb import arena_pb2 as apb, arena_pb2_grpc
        end = time.monotonic() + timeout
        with grpc.insecure_channel(self.addr) as ch:
            stub = arena_pb2_grpc.ArenaStub(ch)
            while True:
                rep = stub.ListBots(apb.ListBotsRequest(), metadata=[("authorization", f"Bearer {self.admin}")],
                                    timeout=10)
                have = {b.name for b in rep.bots if b.connections > 0}
                if set(names) <= have:
                    return
                if time.monotonic() > end:
                    raise AssertionError(f"bots not connected: {set(names) - have}")
                time.sleep(0.05)

    def run_matches(self, variant, bots, matches=1, seed=0, max_deals=0, timeout=300, **tc):
        """RunMatches over gRPC; returns the list of GameResult messages."""
        from taash.arena.pb import arena_pb2 as apb, arena_pb2_grpc
        from taash.arena.pb import messages_pb2 as pb
        req = apb.MatchRequest(variant=variant, bots=bots, matches=matches, seed=seed, max_deals=max_deals,
                               time_control=pb.TimeControl(**tc), wait_ms=30000)
        with grpc.insecure_channel(self.addr) as ch:
            ups = arena_pb2_grpc.ArenaStub(ch).RunMatches(req, metadata=[("authorization", f"Bearer {self.admin}")],
                                                          timeout=timeout)
            return [u.game for u in ups if u.WhichOneof("update") == "game"]

    def taash(self, *args, timeout=300) -> subprocess.CompletedProcess:
        """Run `taash ARGS` (with --server/--data added where they apply)."""
        return subprocess.run([*TAASH, *args], capture_output=True, text=True, env=env(), cwd=ROOT, timeout=timeout)

    def stop(self) -> None:
        """Stop the bots, then the server (SIGTERM: it saves what it has)."""
        for p in getattr(self, "procs", []):
            if p.poll() is None:
                p.terminate()
        for p in getattr(self, "procs", []):
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


def faulty_game(data: Path, mode: str, *extra: str) -> Server:
    """An arena process serving ``data`` (flags ``extra``) where bot f (fault_bot ``mode``,
    seat 0) has played one deal of 28, seed 3, with the random bot r in seats 1 to 3
    (move 2 s, bank 2 s, grace 2 s, 3 strikes). Returns the Server, with ``tokens``
    (f's and r's) and ``game`` (the GameResult)."""
    s = Server(data, *extra)
    try:
        s.tokens = {n: s.token(n) for n in ("f", "r")}
        s.bot("random", "r", s.tokens["r"])
        s.fault_bot(mode, "f", s.tokens["f"], data.parent / "f.json")
        s.wait_connected(["f", "r"])
        [g] = s.run_matches("28", ["f", "r", "r", "r"], seed=3, max_deals=1,
                            move_ms=2000, bank_ms=2000, grace_ms=2000, max_strikes=3)
        assert g.error == ""
    except BaseException:
        s.stop()
        raise
    s.game = g
    return s


def record(path) -> dict:
    return json.loads(Path(path).read_text())


def verdict_kinds(rec: dict) -> list[str]:
    return [v["kind"] for v in rec["arena"]["verdicts"]]


def two_clean_deals(tmp_path, variant: str, bots: dict[str, list[str]], seating: list[str]) -> None:
    """Start an arena, connect ``bots`` (name -> [kind, extra CLI args...]) as `taash bot`
    processes, and play one match of two deals of ``variant`` seated ``seating`` at 400 ms
    a move: it must end at the deal limit with no error, fault or verdict."""
    s = Server(tmp_path / "data")
    try:
        for name, (kind, *extra) in bots.items():
            s.bot(kind, name, s.token(name), *extra)
        s.wait_connected(list(bots))
        [g] = s.run_matches(variant, seating, matches=1, seed=3, max_deals=2, move_ms=400)
        assert not g.error and g.deals == 2   # cut at the deal limit, so not "complete"
        assert g.faults == 0
        rec = record(g.record)
        assert rec["arena"]["verdicts"] == []
        assert len(rec["deals"]) == 2
    finally:
        s.stop()


PLAY_METHOD = "/taash.arena.v1.Arena/Play"


def raw_play_call(channel, token: str):
    """A ``Play`` stream on the aio ``channel`` that writes and reads raw bytes (the
    tests parse them with messages_pb2), authenticated with ``token``."""
    return channel.stream_stream(PLAY_METHOD, request_serializer=lambda b: b, response_deserializer=lambda b: b)(
        metadata=[("authorization", f"Bearer {token}")])
