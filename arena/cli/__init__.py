"""The `taash` command line, one module per command group:

    game.py     check, simulate, replay, rules, variants (the core install)
    proto.py    proto: the wire contract's files (the core install)
    docs.py     docs: the documentation shipped in the package (the core install)
    arena.py    arena serve|token|revoke|match|watch|bots (the arena extra)
    bot.py      bot: a registered bot, or an HTTP bot, as an arena client (arena)
    ladder.py   ladder run|standings|plot|report|verify (arena; plot: plots; report: web)
    serve.py    serve http: a registered bot over the SmartBots 29 HTTP protocol (arena)
    web.py      web: the read-only web pages (web)
    play.py     play: a person's seat in the browser against the built-in bots (web)
    mainjob.py  the main job of `make run` (python -m taash.arena.cli.mainjob)

Nothing outside this package imports it. A command loads its modules when it runs, so
that the commands of the core install work without the extras; a command whose extra is
missing says which to install in one line (exit 2). Exit codes: 0 done, 1 a failure the
command reports (a bad variant file, an unreachable arena), 2 a usage error, 130
interrupted.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import warnings
from importlib.metadata import PackageNotFoundError, version

from taash.interpreter import RecordError, RuleError, VariantError

from ..errors import SimulationError, UnknownBotError, UsageError
from . import arena, bot, docs, game, ladder, play, proto, serve, web

# the top-level module of an optional library -> the extra of pyproject.toml that installs it
EXTRAS = {
    "grpc": "arena", "grpc_health": "arena", "grpc_reflection": "arena", "google": "arena",
    "openskill": "arena", "aiohttp": "arena",
    "jinja2": "web", "markupsafe": "web",
    "matplotlib": "plots",
    "ray": "ray",
}
# an extra -> the extras it installs (pyproject.toml: web and ray bring the arena's)
COVERS = {"web": {"web", "arena"}, "ray": {"ray", "arena"}}


def build_parser() -> argparse.ArgumentParser:
    """The `taash` parser with every command group's commands."""
    p = argparse.ArgumentParser(prog="taash", description="taash: rules-as-data engine for 56, 28, 29 and 304.")
    try:
        ver = version("taash")
    except PackageNotFoundError:
        ver = "unknown"
    p.add_argument("--version", action="version", version=f"taash {ver}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for group in (game, arena, bot, ladder, serve, web, play, proto, docs):
        group.add_commands(sub)
    return p


def _command(args) -> str:
    """The command as typed, without its arguments: ``taash arena serve``."""
    words = ["taash", args.command]
    for attr in ("arena_command", "ladder_command", "serve_command"):
        if getattr(args, attr, None):
            words.append(getattr(args, attr))
    return " ".join(words)


def missing_extra(e: ModuleNotFoundError, wanted: str | None = None) -> str | None:
    """The extra that installs the module ``e`` did not find, or None if no extra does:
    ``wanted``, the extra of the command, when it installs that module too."""
    extra = EXTRAS.get((e.name or "").split(".")[0])
    if extra is not None and wanted is not None and extra in COVERS.get(wanted, {wanted}):
        return wanted
    return extra


def unavailable(extra: str) -> bool:
    """Whether a library that ``extra`` installs (with the extras it brings, COVERS) is not
    importable here: looked up without importing it (importlib.util.find_spec)."""
    for mod, e in EXTRAS.items():
        if e not in COVERS.get(extra, {extra}):
            continue
        try:
            if importlib.util.find_spec("google.protobuf" if mod == "google" else mod) is None:
                return True
        except (ImportError, ValueError):
            return True
    return False


def _one_line(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning as the command line says it: one line, without the source it came from."""
    print(f"taash: {category.__name__}: {message}", file=file if file is not None else sys.stderr)


def main(argv=None) -> int:
    """Run `taash` with ``argv`` (default: the process's arguments); the exit code."""
    shown = warnings.showwarning
    warnings.showwarning = _one_line
    try:
        return _main(argv)
    finally:
        warnings.showwarning = shown


def _main(argv) -> int:
    # gRPC's C core logs handshake failures, failed binds and more on stderr, around the
    # one line taash prints; it reads GRPC_VERBOSITY when grpc is first imported, so set it
    # here, before any command imports grpc, unless the user set it (debug brings them back)
    os.environ.setdefault("GRPC_VERBOSITY", "NONE")
    args = build_parser().parse_args(argv)
    wanted = getattr(args, "extra", None)
    if wanted and unavailable(wanted):
        # before the command reads its arguments further: a missing extra is said first,
        # not after a complaint about a token or an address the user would then fix in vain
        print(f"{_command(args)}: needs the {wanted} extra: pip install 'taash[{wanted}]'", file=sys.stderr)
        return 2
    try:
        return args.fn(args)
    except VariantError as e:
        for pr in e.problems:
            print(pr.format(), file=sys.stderr)
        return 1
    except RecordError as e:
        print(f"taash: error: {e}", file=sys.stderr)
        return 1
    except RuleError as e:   # a rule of the variant that named no seat as a deal was played
        print(f"taash: error: the variant's rule {e}", file=sys.stderr)
        return 1
    except UsageError as e:
        print(e if e.located else f"taash: error: {e}", file=sys.stderr)
        return 2
    except (UnknownBotError, SimulationError) as e:
        print(f"taash: error: {e}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as e:
        extra = missing_extra(e, getattr(args, "extra", None))
        if extra is None:
            raise
        print(f"{_command(args)}: needs the {extra} extra: pip install 'taash[{extra}]'", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("taash: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
