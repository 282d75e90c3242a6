"""The bot registry: every bot that `taash simulate --bots`, `taash ladder run --bots`,
`taash bot NAME` and the main job can seat by name, registered once here.

    from taash.arena.bots import registry
    registry.names()                       # ['heuristic', 'random']
    agent = registry.make("heuristic", variant, seed=0)

A bot is one module with a factory ``factory(variant, seed=0) -> agent`` (``variant``:
the loaded `interpreter.Variant`; ``seed``: an int or text for the bot's own choices),
and one `register` call below. The agent is an observation agent
(``decide(observation, legal) -> action``) or a state agent (``decide_state(state,
seat) -> action``, for search) as `taash.interpreter.playout` defines them: a state agent may
call only ``state.observation(seat)``, ``state.legal_actions()``, ``state.copy()`` and
``state.resample(seat, rng)``, and must not change the state. Over the arena only
observations exist, so `taash bot` seats observation agents only.

Users' own bots need no entry: wherever a name is taken, ``NAME=package.module:factory``
(or ``package.module:factory``, named after the factory) names a factory ``f(variant)``
or ``f(variant, seed)``. ``NAME=package.module:maker@ARG`` calls ``maker(ARG)`` (ARG: the
text after the first ``@``, a file's path, say) for the factory: a trained policy is
seated so (``taash.learn.policy:from_file@policy.npz``, docs/learning.md).
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import tempfile
import threading
from dataclasses import dataclass, field

from taash.interpreter import VariantError, load_variant

from ..errors import UnknownBotError

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class BotEntry:
    """A registered bot: its ``name``, its ``factory`` (a callable, or ``"module:attr"``
    imported on first use, so that listing bots imports none of them), a one-line
    ``description``, and whether it can play over the arena (``arena``: it is an
    observation agent)."""
    name: str
    factory: object
    description: str = ""
    arena: bool = True
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    def load(self):
        """The factory itself. Raises UnknownBotError if its module or attribute cannot
        be imported, it is not callable, or it takes neither ``(variant)`` nor
        ``(variant, seed)``."""
        f = self._cache.get("f")
        if f is None:
            f = self.factory
            if isinstance(f, str):
                target, at, arg = f.partition("@")
                mod, _, attr = target.partition(":")
                try:
                    f = importlib.import_module(mod)
                    for part in attr.split("."):
                        f = getattr(f, part)
                except (ImportError, AttributeError, ValueError) as e:
                    hint = ""
                    if isinstance(e, ModuleNotFoundError) and e.name == mod.split(".")[0]:
                        hint = (" (the taash command does not look in the current directory: "
                                "add the module's folder to PYTHONPATH)")
                    raise UnknownBotError(f"cannot load bot {self.name!r} from {self.factory!r}: {e}{hint}") from None
                if at:      # a factory maker, given the text after '@'
                    try:
                        f = f(arg)
                    except Exception as e:
                        raise UnknownBotError(f"bot {self.name!r}: {target}({arg!r}) raised "
                                              f"{type(e).__name__}: {e}") from None
            if not callable(f):
                raise UnknownBotError(f"bot {self.name!r}: {self.factory!r} is not callable: "
                                      "give a factory f(variant) -> agent")
            seeded = _seeded(f)
            if seeded is None:
                raise UnknownBotError(f"bot {self.name!r}: {self.factory!r} must take (variant) or "
                                      "(variant, seed) and give an agent")
            self._cache["seeded"] = seeded
            self._cache["f"] = f
        return f

    def make(self, variant, seed=0):
        """A new agent of this bot for ``variant``. Raises UnknownBotError for a factory
        that does not take ``(variant)`` or ``(variant, seed)`` (`load`), that raises (its
        error is the cause), or that gives no agent (an object with ``decide``,
        ``decide_state`` or a function)."""
        f = self.load()
        try:
            agent = f(variant, seed) if self._cache["seeded"] else f(variant)
        except Exception as e:
            raise UnknownBotError(f"bot {self.name!r}: its factory {self.factory!r} raised "
                                  f"{type(e).__name__}: {e}") from e
        if not (hasattr(agent, "decide") or hasattr(agent, "decide_state") or callable(agent)):
            raise UnknownBotError(f"bot {self.name!r}: {self.factory!r} gave {agent!r}, which is no agent: "
                                  "give an object with decide(observation, legal) or decide_state(state, seat), "
                                  "or a function (observation, legal) -> action")
        return agent

    def __reduce__(self):
        # to worker processes: by spec, so that the factory is imported there
        return (BotEntry, (self.name, self.factory, self.description, self.arena))


def _seeded(f) -> bool | None:
    """How factory ``f`` is called: True for ``(variant, seed)``, False for ``(variant)``,
    None when it takes neither. A signature that cannot be read is taken as ``(variant,
    seed)``."""
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return True
    for args in ((None, None), (None,)):
        try:
            sig.bind(*args)
        except TypeError:
            continue
        return len(args) == 2
    return None


_BOTS: dict[str, BotEntry] = {}


def register(name: str, factory, description: str = "", arena: bool = True,
             replace: bool = False) -> BotEntry:
    """Register a bot under ``name`` (letters, digits, ``_ . -``; at most 64). Raises
    ValueError for a bad or already registered name (unless ``replace``)."""
    if not NAME.match(name or ""):
        raise ValueError(f"bad bot name {name!r}: letters, digits, '_', '.', '-' (at most 64)")
    if name in _BOTS and not replace:
        raise ValueError(f"a bot named {name!r} is already registered")
    e = _BOTS[name] = BotEntry(name, factory, description, arena)
    return e


def unregister(name: str) -> None:
    """Remove a registered bot (tests)."""
    _BOTS.pop(name, None)


def names() -> list[str]:
    """The registered bot names, sorted."""
    return sorted(_BOTS)


def entries() -> list[BotEntry]:
    """The registered bots, sorted by name."""
    return [_BOTS[n] for n in names()]


def known() -> str:
    """The registered names as one phrase, for messages: ``heuristic, random``."""
    return ", ".join(names())


def get(name: str) -> BotEntry:
    """The registered bot ``name``. Raises UnknownBotError (one line, listing the names)."""
    e = _BOTS.get(name)
    if e is None:
        raise UnknownBotError(f"unknown bot {name!r}: the registered bots are {known()} "
                              "(or give NAME=package.module:factory)")
    return e


def resolve(spec: str) -> BotEntry:
    """A bot by registered name, ``NAME=package.module:factory`` or
    ``package.module:factory`` (named after the factory's last part), either with
    ``@ARG`` for a factory maker (module docstring). Raises
    UnknownBotError for an unknown name or a bad spec (a factory is imported when first
    used: `BotEntry.load`)."""
    spec = (spec or "").strip()
    name, eq, target = spec.partition("=")
    if not eq:
        if ":" not in spec:
            return get(spec)
        name, target = spec.partition("@")[0].rsplit(":", 1)[-1].rsplit(".", 1)[-1], spec
    name, target = name.strip(), target.strip()
    if not NAME.match(name):
        _bad(name)
    if ":" in target:
        return BotEntry(name, target, f"{target} (a user's bot)")
    e = get(target)      # NAME=registered: another name for a registered bot
    return BotEntry(name, e.factory, e.description, e.arena)


def _bad(name):
    raise UnknownBotError(f"bad bot name {name!r}: letters, digits, '_', '.', '-' (at most 64)")


def make(spec: str, variant, seed=0):
    """A new agent of bot ``spec`` (see `resolve`) for ``variant``."""
    return resolve(spec).make(variant, seed)


class ArenaAgent:
    """A bot of the registry playing over the arena (`taash bot NAME`): an SDK bot
    ``decide(observation, legal, game)`` that makes one agent of ``entry`` per game
    (kept in ``game.extra``), for the game's variant: loaded by the name the arena sends
    (a shipped name, or the path on the arena's host), else built from the variant data
    the arena sends. The agent must be an observation agent."""

    def __init__(self, entry: BotEntry, seed=0):
        self.entry, self.seed = entry, seed
        self._variants: dict = {}
        self._lock = threading.Lock()   # the SDK may call decide from several threads

    def variant_of(self, game):
        """The loaded Variant of ``game`` (an taash.arena.sdk.GameInfo), cached. Raises
        VariantError if it can be loaded neither by name nor from its data."""
        key = (game.variant, json.dumps(game.options, sort_keys=True),
               json.dumps(game.variant_data, sort_keys=True, default=str))
        v = self._variants.get(key)
        if v is None:
            v = self._variants[key] = _load_game_variant(game)
        return v

    def agent_of(self, game):
        """The agent playing ``game`` (made on its first decision)."""
        extra = getattr(game, "extra", None)
        agent = extra.get("agent") if extra is not None else None
        if agent is None:
            with self._lock:
                agent = extra.get("agent") if extra is not None else None
                if agent is None:
                    agent = self.entry.make(self.variant_of(game), self.seed)
                    if extra is not None:
                        extra["agent"] = agent
        return agent

    def decide(self, observation: dict, legal_actions: list[str], game=None) -> str:
        """The agent's answer for this game's seat."""
        agent = self.agent_of(game)
        decide = getattr(agent, "decide", None)
        if decide is None:
            decide = agent if callable(agent) else None
        if decide is None:
            raise TypeError(f"bot {self.entry.name!r} is a state agent: it plays in process only "
                            "(taash simulate, taash ladder run), not over the arena")
        if getattr(agent, "takes_game", False):   # it reads the game's time (arena/bots/search.py)
            return decide(observation, legal_actions, game)
        return decide(observation, legal_actions)


def _load_game_variant(game):
    options = dict(getattr(game, "options", None) or {}) or None
    if game.variant:
        try:
            return load_variant(game.variant, options)
        except VariantError:
            if not game.variant_data:
                raise
    elif not game.variant_data:
        raise ValueError(f"game {game.game_id}: the arena named no variant")
    # a file of the arena's host: its merged data is what the arena sent (JSON is YAML)
    with tempfile.TemporaryDirectory(prefix="taash-variant-") as d:
        path = os.path.join(d, "variant.yaml")
        with open(path, "w") as f:
            json.dump(game.variant_data, f)
        return load_variant(path, options)


# -- the built-in bots ------------------------------------------------------------------------
register("random", "taash.arena.bots.random:random_bot",
         "uniform among the legal actions (over the arena and in the ladder: a function of "
         "its seed and what it sees)")
register("heuristic", "taash.arena.bots.heuristic:heuristic_bot",
         "estimates its hand for the auction and trump; plays cheap, wins tricks worth it")
register("search", "taash.arena.bots.search:search_bot",
         "determinized search (PIMC): resampled deals played out to the variant's own score; "
         "50 ms a decision (taash bot search --budget-ms N, --playouts N)")
register("ismcts", "taash.arena.bots.ismcts:ismcts_bot",
         "information-set MCTS (SO-ISMCTS): one tree over resampled deals; "
         "50 ms a decision (taash bot ismcts --budget-ms N, --playouts N, --exploration C)")
