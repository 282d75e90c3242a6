"""`ArenaRunner`: the ladder's games played by a running arena (`taash arena serve`) over
gRPC, between bots that dial in from their own processes; the ladder asks for each game
with the arena's RunMatches call (admin token) and reads the record the arena wrote. The
arena extra (grpc, protobuf)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor

import grpc

from taash.interpreter import load_variant
from taash.interpreter.loader import VARIANTS_DIR, load_raw

from ..errors import LadderError
from ..pb import arena_pb2 as apb
from ..pb import arena_pb2_grpc
from ..pb import messages_pb2 as pb
from ..tls import PLAIN, channel
from .ratings import GameResult
from .runners import drain
from .schedule import GameSpec


def read_admin_token(data_dir) -> str:
    """The arena's admin token from ``DATA_DIR/admin-token``. Raises LadderError."""
    path = os.path.join(data_dir, "admin-token")
    try:
        with open(path) as f:
            tok = f.read().strip()
    except OSError:
        tok = ""
    if not tok:
        raise LadderError(f"no admin token at {path}: start the arena with `taash arena serve --data {data_dir}`, "
                          "or pass the --data directory it uses")
    return tok


class ArenaRunner:
    """Games played by the arena at ``server`` (host:port) between connected bots.
    ``admin_token``: the arena's admin token; ``wait_s``: how long the arena waits for a
    seated bot to connect; ``time_control``: optional dict of move_ms, bank_ms, grace_ms,
    max_strikes (ms) for every game; ``tls``: how to reach the arena (a tls.Client; None:
    plaintext)."""

    name = "arena"

    def __init__(self, server: str, admin_token: str, variant_name: str, options: dict | None = None,
                 wait_s: float = 30.0, time_control: dict | None = None, tls=None):
        self.server, self.variant_name = server, variant_name
        self.options = dict(options or {})
        self.variant = load_variant(variant_name, self.options or None)
        # a variant file of the ladder's (not shipped) is sent as its text, its `extends:`
        # chain merged: the arena plays only shipped names and its DATA/variants/ by name
        self.variant_text = ""
        path = Path(self.variant.path).resolve()
        if not path.is_relative_to(VARIANTS_DIR.resolve()):
            self.variant_text = json.dumps(load_raw(path)[0])
        self.wait_s = wait_s
        self.tc = dict(time_control or {})
        self.md = [("authorization", f"Bearer {admin_token}")]
        self.channel = channel(server, tls or PLAIN)
        self.stub = arena_pb2_grpc.ArenaStub(self.channel)
        self.reached = False    # an answer came from the arena once: losing it then is not "never reached"

    def _error(self, e) -> LadderError:
        code = e.code()
        if code == grpc.StatusCode.UNAVAILABLE and self.reached:
            return LadderError(f"lost the arena at {self.server} during the run (it stopped or was killed): "
                               "the games it finished are kept; start it again and run the ladder again "
                               "to play the rest")
        if code == grpc.StatusCode.UNAVAILABLE:
            return LadderError(f"cannot reach the arena at {self.server}: is `taash arena serve` running?")
        return LadderError(f"the arena at {self.server} said: {code.name.lower().replace('_', ' ')}: {e.details()}")

    def connected(self) -> dict[str, int]:
        """Bots with a token in the arena, and how many live connections each has."""
        try:
            rep = self.stub.ListBots(apb.ListBotsRequest(), metadata=self.md, timeout=10)
        except grpc.RpcError as e:
            raise self._error(e) from None
        self.reached = True
        return {b.name: b.connections for b in rep.bots}

    def bots(self) -> list[str]:
        """The bots connected to the arena now."""
        return sorted(b for b, n in self.connected().items() if n > 0)

    def check(self, names) -> None:
        """Raise LadderError if a bot in ``names`` has no token in the arena (a bot that is
        registered but not connected yet gets ``wait_s`` seconds in each game)."""
        known = self.connected()
        missing = sorted(set(names) - set(known))
        if missing:
            raise LadderError(f"the arena at {self.server} has no bot named {', '.join(missing)}: "
                              "issue a token with `taash arena token NAME` and start the bot")

    def play(self, spec: GameSpec) -> GameResult:
        """Ask the arena for one game and wait for its result. Raises LadderError."""
        tc = pb.TimeControl(**{k: int(v) for k, v in self.tc.items()})
        req = apb.MatchRequest(variant=self.variant_name, variant_yaml=self.variant_text,
                               options_json=json.dumps(self.options) if self.options else "",
                               bots=list(spec.bots), matches=1, seed=spec.seed, time_control=tc,
                               wait_ms=int(self.wait_s * 1000), parallel=1, max_deals=spec.deals)
        game = None
        try:
            for up in self.stub.RunMatches(req, metadata=self.md):
                self.reached = True
                if up.WhichOneof("update") == "game":
                    game = up.game
        except grpc.RpcError as e:
            raise self._error(e) from None
        if game is None:
            raise LadderError(f"the arena at {self.server} ended game {spec.key} without a result")
        if game.error:
            raise LadderError(f"game {spec.key} failed in the arena ({game.game_id}): {game.error}")
        record = None
        if game.record:
            try:
                with open(game.record) as f:
                    record = json.load(f)
            except (OSError, ValueError):
                record = None   # an arena on another host: its path is not ours
        return GameResult(spec.key, tuple(game.bots), list(game.score), game.deals, record,
                          arena_game=game.game_id, record_path=game.record, faults=game.faults)

    def results(self, specs: list[GameSpec], workers: int = 1):
        """Play ``specs``, ``workers`` games at once; yield each GameResult as it ends."""
        pool = ThreadPoolExecutor(max_workers=max(1, workers))
        yield from drain(pool, self.play, specs, max(1, workers))

    def close(self) -> None:
        """Close the channel."""
        self.channel.close()
