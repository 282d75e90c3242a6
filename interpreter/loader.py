"""Load a variant file: YAML (safe loader) -> `extends:` merged -> JSON Schema -> semantic
checks -> compiled rules (docs/architecture.md, "The pipeline of a variant").

Every problem is reported as a `Problem` with the file, line and column of the node that
caused it (1-based); `VariantError` carries the problems found, at most `MAX_PROBLEMS`
of them and then one that counts the rest. Nothing here raises anything else for a bad
file.

A variant file is untrusted input (an arena loads the text a caller sends): reading one
is bounded by a `Bounds` (its bytes, lines, YAML nodes and nesting), checked as the YAML
is composed, before anything is built from it; each rule's text is bounded by the DSL's
parser (dsl.parse.MAX_RULE_CHARS, MAX_DEPTH).
"""

from __future__ import annotations

import copy
import difflib
import functools
import importlib.resources
import json
import re
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import yaml

from .errors import TaashError



def data_dir(name: str) -> Path:
    """The real path of the data folder ``name`` (``grammar``, ``variants`` or ``proto``).

    In an installed wheel they are package data, ``taash/grammar/``, ``taash/variants/``
    and ``taash/proto/`` (pyproject.toml maps the repository's top-level folders there),
    found with importlib.resources. In a checkout (an editable install, or the checkout
    on PYTHONPATH) they are the top-level folders themselves: setuptools' editable finder
    does not map a folder without ``__init__.py`` into a package (pypa/setuptools#4943).
    taash must be installed as files (pip does), not zipped.
    """
    root = importlib.resources.files(__package__.partition(".")[0])
    packaged = root / name
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged.resolve()
    return Path(__file__).resolve().parent.parent / name


VARIANTS_DIR = data_dir("variants")
SCHEMA_PATH = data_dir("grammar") / "variant.schema.json"
MAX_EXTENDS = 16
MAX_FILE_BYTES = 1 << 20
MAX_PROBLEMS = 100      # problems a VariantError keeps (by position); one more counts the rest


@dataclass(frozen=True)
class Bounds:
    """Limits on reading one variant file: ``max_bytes`` of UTF-8 text, ``max_lines``
    lines, ``max_nodes`` YAML nodes (each key, value and list item is one) and
    ``max_depth`` levels of nested mappings and lists. The shipped variants are under
    100 lines, 200 nodes and 8 levels. Past a bound the file is refused with one
    problem at the place it passed it, and nothing more is read of it (composing the
    YAML is the slow part of reading a large file: the node bound bounds its time)."""
    max_bytes: int = MAX_FILE_BYTES
    max_lines: int = 20_000
    max_nodes: int = 20_000
    max_depth: int = 64


BOUNDS = Bounds()
KEY = "\0key"  # locs[path + (KEY,)]: where the key of the value at path is written


@dataclass(frozen=True)
class Problem:
    """One located problem: ``file`` (str), ``line``/``column`` (1-based), ``message``.
    ``origin``: for a problem in what the file inherits (``extends:``), the (file, line,
    column) of the inherited text; ``line``/``column`` are then the child's ``extends:``.
    ``warning``: not an error (variant.check_warnings)."""
    file: str
    line: int
    column: int
    message: str
    origin: tuple | None = None
    warning: bool = False   # a warning (`taash check` prints it; the file still loads)

    def format(self, with_context: bool = True, lines_of=None) -> str:
        """``FILE:LINE:COL: error: MESSAGE`` (``warning:`` for a warning), then the
        offending line and a caret (and for an inherited problem, the inherited line and
        a caret). ``lines_of(file)``: the file's lines (`format_problems` reads each file
        once), else it is read."""
        kind = "warning" if self.warning else "error"
        if self.line < 1:  # not about a place in the file (an option given on the command line)
            return f"{self.file}: {kind}: {self.message}"
        head = f"{self.file}:{self.line}:{self.column}: {kind}: {self.message}"
        if not with_context:
            return head
        out = [head]
        for file, line, column in [(self.file, self.line, self.column)] + ([self.origin] if self.origin else []):
            try:
                text = (lines_of(file) if lines_of else _read_lines(file))[line - 1]
            except (OSError, IndexError):
                continue
            out += [f"    {text}", "    " + " " * (max(column, 1) - 1) + "^"]
        return "\n".join(out)


@dataclass(frozen=True)
class More(Problem):
    """The last problem of a VariantError that listed only the first ones: ``count``
    problems more were found (and not formatted)."""
    count: int = 0


def _read_lines(file: str) -> list[str]:
    """The lines of ``file`` (at most MAX_FILE_BYTES of it, bad UTF-8 replaced). Raises
    OSError."""
    with open(file, "rb") as f:
        return f.read(MAX_FILE_BYTES).decode(errors="replace").splitlines()


def format_problems(problems: list[Problem], with_context: bool = True) -> str:
    """Each problem formatted (`Problem.format`), one a line (or three, with context),
    each file read once for all its problems."""
    lines_of = lines_cache()
    return "\n".join(p.format(with_context, lines_of) for p in problems)


def lines_cache():
    """A function ``lines_of(file)`` for `Problem.format`: the file's lines, read at its
    first call for that file (raises OSError, each time, for a file it cannot read)."""
    cache: dict[str, list[str] | OSError] = {}

    def lines_of(file: str) -> list[str]:
        if file not in cache:
            try:
                cache[file] = _read_lines(file)
            except OSError as e:
                cache[file] = e
        got = cache[file]
        if isinstance(got, OSError):
            raise got
        return got
    return lines_of


class VariantError(TaashError, ValueError):
    """A variant file that cannot be loaded; ``problems`` lists the located problems,
    each file's in order of position (files in the order they first appear): the first
    ``limit`` of them, then (when there were more) one problem without a place that says
    how many more there were, none of those formatted."""

    def __init__(self, problems: list[Problem], limit: int = MAX_PROBLEMS):
        more = sum(p.count for p in problems if isinstance(p, More))
        ordered = by_position([p for p in problems if not isinstance(p, More)])
        if len(ordered) > limit:
            more += len(ordered) - limit
            ordered = ordered[:limit]
        if more:
            file = ordered[-1].file if ordered else next(p.file for p in problems)
            ordered.append(More(file, 0, 0, f"and {more} more problem{'s' if more != 1 else ''} "
                                            f"(the first {len(ordered)} are listed)", count=more))
        self.problems = ordered
        super().__init__("\n".join(p.format(False) for p in self.problems))


def by_position(problems: list[Problem]) -> list[Problem]:
    """``problems`` in order of line and column in each file, the files in the order they
    first appear (a stable sort)."""
    first: dict[str, int] = {}
    for p in problems:
        first.setdefault(p.file, len(first))
    return sorted(problems, key=lambda p: (first[p.file], p.line, p.column))


def inherited(problems: list[Problem], path: Path) -> list[Problem]:
    """``problems`` of loading ``path`` with each problem in another file (a file it
    inherits through ``extends:``, at any depth) moved to ``path``'s ``extends:`` line,
    its message naming the inherited file:line:column (kept in ``origin``)."""
    fname = str(path)
    if all(p.file == fname or p.line < 1 for p in problems):
        return problems
    try:
        _, locs = _yaml_tree(path)
    except VariantError:
        return problems
    at = locs.get(("extends",))
    if at is None:
        return problems
    out = []
    for p in problems:
        if p.file != fname and p.line >= 1:
            p = Problem(fname, at.line, at.column,
                        f"in {p.file}:{p.line}:{p.column} (inherited through `extends:`): {p.message}",
                        (p.file, p.line, p.column))
        out.append(p)
    return out


@dataclass
class Loc:
    """Where a value came from: file, 1-based line/column, and for scalars the YAML style
    and the indentation of a block scalar (to place errors inside a DSL rule)."""
    file: str
    line: int
    column: int
    style: str | None = None
    indent: int = 0
    segments: tuple = ()  # folded scalars: (line, column, length) of each source line's text

    def inner(self, dsl_line: int, dsl_col: int) -> tuple[int, int]:
        """File position of (line, column) inside the scalar's text (both 1-based)."""
        if self.segments and dsl_line == 1:
            # plain or folded (>) scalars: YAML joined the source lines with spaces
            off = dsl_col - 1
            for line, col, length in self.segments:
                if off <= length:
                    return line, col + off
                off -= length + 1
            line, col, length = self.segments[-1]
            return line, col + length
        if self.style == "|":
            return self.line + dsl_line, self.indent + dsl_col
        if dsl_line == 1:
            return self.line, self.column + (1 if self.style in ("'", '"') else 0) + dsl_col - 1
        return self.line + dsl_line - 1, dsl_col


def resolve_name(name: str, base: Path | None = None) -> Path:
    """Path of a variant given a shipped name (``29``, ``house/29-hidden-trump``) or a
    path (absolute, or relative to ``base``/the working directory). Raises
    FileNotFoundError, whose message names the closest shipped variants."""
    candidates = []
    p = Path(name)
    if base is not None and not p.is_absolute():
        candidates.append(base / p)
    candidates.append(p)
    if not name.endswith((".yaml", ".yml")):
        candidates.append(VARIANTS_DIR / f"{name}.yaml")
        if base is not None:
            candidates.append(base / f"{name}.yaml")
    else:
        candidates.append(VARIANTS_DIR / name)
    for c in candidates:
        if c.is_file():
            return c.resolve()
    if p.exists():
        return p.resolve()  # a directory or a device: reported by the reader
    close = close_variants(name)
    hint = (f"; did you mean {', '.join(map(repr, close))}?" if close else
            f" (the shipped variants: {', '.join(shipped_variants())})")
    raise FileNotFoundError(f"no variant named {name!r}: no such file, nor a shipped variant{hint}")


def close_variants(name: str, n: int = 3) -> list[str]:
    """Up to ``n`` shipped names closest to ``name`` (difflib), by whole name or by the
    last part (``29-double`` is close to ``house/29-double``); best first."""
    stem = str(name)
    for suffix in (".yaml", ".yml"):
        stem = stem.removesuffix(suffix)
    keys: dict[str, str] = {}
    for full in shipped_variants():
        keys.setdefault(full, full)
        keys.setdefault(full.rsplit("/", 1)[-1], full)
    out: list[str] = []
    for key in difflib.get_close_matches(stem, keys, n=2 * n, cutoff=0.6):
        if keys[key] not in out:
            out.append(keys[key])
    return out[:n]


def find_variant(name: str | Path) -> Path:
    """The variant file of a shipped name (``29``, ``house/29-double``, ``304-solo``: the
    YAML files of the package data folder variants/) or of a path (absolute, or relative
    to the working directory), absolute and resolved.

    Raises VariantError (one Problem, no line) if it is neither, naming the closest
    shipped variants, or if the path is not a file.
    """
    try:
        path = resolve_name(str(name))
    except FileNotFoundError as e:
        raise VariantError([Problem(str(name), 0, 0, str(e))]) from None
    if not path.is_file():
        raise VariantError([Problem(str(path), 0, 0, "not a file")])
    return path


def shipped_variants() -> list[str]:
    """Names of the variants shipped under variants/ (``29``, ``house/29-double``, ...)."""
    return sorted(p.relative_to(VARIANTS_DIR).with_suffix("").as_posix() for p in VARIANTS_DIR.rglob("*.yaml"))


def _yaml_tree(path: Path, bounds: Bounds = BOUNDS):
    """Read one YAML file into (data, {path tuple: Loc}), within ``bounds``. Raises
    VariantError."""
    fname = str(path)
    try:
        if not path.is_file():
            raise VariantError([Problem(fname, 0, 0, "not a file" if path.exists() else "no such file")])
        with open(path, "rb") as f:
            raw = f.read(bounds.max_bytes + 1)
        if len(raw) > bounds.max_bytes:
            raise VariantError([Problem(fname, 0, 0, f"the file is larger than {bounds.max_bytes} bytes")])
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise VariantError([Problem(fname, 0, 0, f"the file is not UTF-8 text ({e.reason} at byte {e.start})")]) from None
    except OSError as e:
        raise VariantError([Problem(fname, 0, 0, f"cannot read the file: {e.strerror or e}")]) from None
    lines = text.splitlines()
    if len(lines) > bounds.max_lines:
        raise VariantError([Problem(fname, bounds.max_lines + 1, 1,
                                    f"the file has {len(lines)} lines; at most {bounds.max_lines}")])
    try:
        loader = _Loader(text, bounds)
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
        if loader.refs:     # before anything is built from them: nothing can expand
            raise VariantError(_anchor_problems(loader.refs, fname))
    except _TooBig as e:
        raise VariantError([Problem(fname, e.mark.line + 1, e.mark.column + 1, e.message)]) from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        msg = e.problem or str(e)
        if e.context:
            msg = f"{msg} ({e.context})"
        before = lines[line - 1][:col - 1] if 0 < line <= len(lines) else ""
        if msg.startswith("mapping values are not allowed") and "(" in before:
            # `: ` inside a rule (a quantifier, `when`) in a plain value
            msg += (" (a rule holding ': ' must be a block: put `|` after the key's colon and "
                    "the rule on the next lines, indented; a key holding ': ', such as a named "
                    "expression's typed parameters, goes in quotes: \"bonus(n: number)\": ...)")
        raise VariantError([Problem(fname, line, col, f"YAML: {msg}")]) from None
    except yaml.YAMLError as e:
        raise VariantError([Problem(fname, 1, 1, f"YAML: {e}")]) from None
    except RecursionError:
        raise VariantError([Problem(fname, 1, 1, "YAML: the file nests too deeply")]) from None
    if node is None:
        raise VariantError([Problem(fname, 1, 1, "the file is empty")])
    locs: dict[tuple, Loc] = {}
    problems: list[Problem] = []
    constructor = yaml.SafeLoader("")

    def loc_of(n) -> Loc:
        m = n.start_mark
        style = getattr(n, "style", None)
        indent = 0
        segments = ()
        if style in ("|", ">"):
            for k in range(m.line + 1, len(lines)):
                if lines[k].strip():
                    indent = len(lines[k]) - len(lines[k].lstrip(" "))
                    break
        if isinstance(n, yaml.ScalarNode) and style in (None, ">") and n.end_mark.line > m.line:
            segs = []
            first = m.line + (1 if style == ">" else 0)
            for k in range(first, min(n.end_mark.line + 1, len(lines))):
                src = lines[k]
                if k == m.line:
                    start = m.column
                else:
                    start = len(src) - len(src.lstrip(" "))
                end = n.end_mark.column if k == n.end_mark.line else len(src)
                piece = src[start:end].rstrip()
                if piece:
                    segs.append((k + 1, start + 1, len(piece)))
            segments = tuple(segs)
        return Loc(fname, m.line + 1, m.column + 1, style, indent, segments)

    def build(n, path):    # a tree: the file has no alias (_Loader), so no node is met twice
        locs[path] = loc_of(n)
        if isinstance(n, yaml.MappingNode):
            out = {}
            for k, v in n.value:
                if not isinstance(k, yaml.ScalarNode):
                    problems.append(Problem(fname, k.start_mark.line + 1, k.start_mark.column + 1,
                                            "a key must be a plain word"))
                    continue
                key = k.value
                if key in out:
                    problems.append(Problem(fname, k.start_mark.line + 1, k.start_mark.column + 1,
                                            f"duplicate key '{key}'"))
                    continue
                if key == "<<":
                    problems.append(Problem(fname, k.start_mark.line + 1, k.start_mark.column + 1,
                                            "YAML merge keys are not supported; use `extends:`"))
                    continue
                locs[path + (key, KEY)] = Loc(fname, k.start_mark.line + 1, k.start_mark.column + 1)
                out[key] = build(v, path + (key,))
            return out
        if isinstance(n, yaml.SequenceNode):
            return [build(v, path + (i,)) for i, v in enumerate(n.value)]
        try:
            value = constructor.construct_object(n, deep=True)
        except yaml.YAMLError as e:
            problems.append(Problem(fname, n.start_mark.line + 1, n.start_mark.column + 1, f"YAML: {e}"))
            return None
        if isinstance(value, float):
            problems.append(Problem(fname, n.start_mark.line + 1, n.start_mark.column + 1,
                                    f"{n.value!r}: numbers in a variant file are whole numbers"))
            return None
        return value

    try:
        data = build(node, ())
    except RecursionError:
        raise VariantError([Problem(fname, 1, 1, "YAML: the file nests too deeply")]) from None
    constructor.dispose()
    if problems:
        raise VariantError(problems)
    if not isinstance(data, dict):
        raise VariantError([Problem(fname, 1, 1, "a variant file must be a mapping of keys to values")])
    return data, locs


def merge(base, over, base_locs, over_locs, path=()):
    """Deep-merge ``over`` onto ``base`` (mappings merge, everything else is replaced;
    a null value removes the key). Locations follow the value that wins. Each mapping
    merged reads the locations once (grouped by the key under ``path``), so a file of
    thousands of keys merges in time linear in them."""
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        over_kids, base_kids = _children(over_locs, path), _children(base_locs, path)
        for k, v in over.items():
            if v is not None and k in base:
                out[k] = merge(base[k], v, base_locs, over_locs, path + (k,))
                continue
            if v is None:
                out.pop(k, None)         # errors about it point at the `null`
            else:
                out[k] = v
            for key, _ in base_kids.get(k, ()):
                base_locs.pop(key, None)
            base_locs.update(over_kids.get(k, ()))
        return out
    _copy_locs(over_locs, base_locs, path)
    return over


def _children(locs: dict, prefix: tuple) -> dict:
    """The entries of ``locs`` below ``prefix``, grouped by the key that follows it:
    {key: [(path, location), ...]}."""
    n = len(prefix)
    out = {}
    for k, v in locs.items():
        if len(k) > n and k[:n] == prefix:
            out.setdefault(k[n], []).append((k, v))
    return out


def _copy_locs(src, dst, prefix):
    n = len(prefix)
    for k in [k for k in dst if k[:n] == prefix]:
        del dst[k]
    for k, v in src.items():
        if k[:n] == prefix:
            dst[k] = v


MAX_ANCHOR_PROBLEMS = 20     # anchors and aliases named one by one; then one problem for the rest


class _TooBig(TaashError):
    """The file passes one of its `Bounds` at ``mark``: ``message`` says which (caught
    here, and reported as a VariantError)."""

    def __init__(self, message: str, mark):
        super().__init__(message)
        self.message, self.mark = message, mark


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader noting each anchor (&name) and alias (*name) as it composes
    the file: ``refs``, (what, mark) pairs, at most `MAX_ANCHOR_PROBLEMS` + 1; and
    counting the nodes and their nesting, raising `_TooBig` at the first node past
    ``bounds`` (composing stops there: the rest of the text is not read)."""

    def __init__(self, text, bounds: Bounds = BOUNDS):
        super().__init__(text)
        self.refs: list[tuple[str, yaml.Mark]] = []
        self.bounds = bounds
        self.nodes = 0
        self.depth = 0

    def compose_node(self, parent, index):
        ev = self.peek_event()
        if len(self.refs) <= MAX_ANCHOR_PROBLEMS:
            if isinstance(ev, yaml.AliasEvent):
                self.refs.append((f"alias *{ev.anchor}", ev.start_mark))
            elif getattr(ev, "anchor", None):
                self.refs.append((f"anchor &{ev.anchor}", ev.start_mark))
        self.nodes += 1
        if self.nodes > self.bounds.max_nodes:
            raise _TooBig(f"the file has more than {self.bounds.max_nodes} YAML values (keys, values "
                          "and list items); this one is past that", ev.start_mark)
        if self.depth >= self.bounds.max_depth:
            raise _TooBig(f"the file nests more than {self.bounds.max_depth} levels of mappings and "
                          "lists", ev.start_mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _anchor_problems(refs, fname: str) -> list[Problem]:
    """A problem for each anchor and alias of a file, each at its own line and column: a
    variant file writes its values out (an alias could expand without bound); past
    `MAX_ANCHOR_PROBLEMS`, one problem for the rest."""
    out = [Problem(fname, m.line + 1, m.column + 1,
                   f"YAML {what}: anchors and aliases are not supported (write the value out)")
           for what, m in refs[:MAX_ANCHOR_PROBLEMS]]
    if len(refs) > MAX_ANCHOR_PROBLEMS:
        m = refs[MAX_ANCHOR_PROBLEMS][1]
        out.append(Problem(fname, m.line + 1, m.column + 1, "YAML: more anchors and aliases from here"))
    return out


def read_tree(path: Path, bounds: Bounds = BOUNDS) -> tuple[dict, dict]:
    """One variant file's own (data, {path tuple: Loc}), within ``bounds``, without its
    `extends:` chain (nothing but ``path`` is read). Raises VariantError."""
    return _yaml_tree(Path(path), bounds)


def load_raw(path: Path, _chain=(), bounds: Bounds = BOUNDS) -> tuple[dict, dict]:
    """Load a file and its `extends:` chain into merged (data, locs), each file within
    ``bounds``. Raises VariantError."""
    path = Path(path).resolve()
    data, locs = _yaml_tree(path, bounds)
    if PARENT_RULES in data:
        at = locs.get((PARENT_RULES, KEY), Loc(str(path), 1, 1))
        raise VariantError([Problem(at.file, at.line, at.column,
                                    f"`{PARENT_RULES}` is made by `extends:` (the rules a file's `parent` "
                                    "names); a file does not write it")])
    parent = data.get("extends")
    if parent is None:
        return data, locs
    loc = locs.get(("extends",), Loc(str(path), 1, 1))
    if isinstance(parent, int) and not isinstance(parent, bool):
        raise VariantError([Problem(loc.file, loc.line, loc.column,
                                    f"`extends: {parent}`: YAML reads an unquoted number as a number, "
                                    f"not a name; write it in quotes: extends: \"{parent}\"")])
    if not isinstance(parent, str):
        raise VariantError([Problem(loc.file, loc.line, loc.column, "`extends:` takes a variant name or path")])
    try:
        ppath = resolve_name(parent, path.parent)
    except FileNotFoundError as e:
        raise VariantError([Problem(loc.file, loc.line, loc.column, str(e))]) from None
    if ppath.suffix not in (".yaml", ".yml"):
        raise VariantError([Problem(loc.file, loc.line, loc.column,
                                    "`extends:` takes a variant name or a .yaml file")])
    chain = _chain + (path,)
    if ppath in chain:
        names = " -> ".join(p.name for p in chain + (ppath,))
        raise VariantError([Problem(loc.file, loc.line, loc.column, f"`extends:` makes a cycle: {names}")])
    if len(chain) > MAX_EXTENDS:
        raise VariantError([Problem(loc.file, loc.line, loc.column, "`extends:` chain is too long")])
    pdata, plocs = load_raw(ppath, chain, bounds)
    pdata = dict(pdata)
    pdata.pop("extends", None)
    own = dict(data)
    own.pop("extends")
    # the parent's own inherited rules stay for the rules this file does not write
    inherited_rules = {dotted: (list(chain_), [plocs.get((PARENT_RULES, dotted, i)) for i in range(len(chain_))])
                       for dotted, chain_ in (pdata.get(PARENT_RULES) or {}).items()
                       if not _writes(own, dotted.split("."))}
    inherited_rules.update(_parent_rules(own, pdata, plocs))
    merged = merge(pdata, own, plocs, locs)
    for k in [k for k in plocs if k[:1] == (PARENT_RULES,)]:
        del plocs[k]
    merged.pop(PARENT_RULES, None)
    if inherited_rules:
        merged[PARENT_RULES] = {dotted: chain_ for dotted, (chain_, _) in inherited_rules.items()}
        for dotted, (_, chain_locs) in inherited_rules.items():
            for i, loc_ in enumerate(chain_locs):
                if loc_ is not None:
                    plocs[(PARENT_RULES, dotted, i)] = loc_
    return merged, plocs


def _writes(data: dict, path: list) -> bool:
    """Whether a file's ``data`` writes the value at ``path`` (or replaces a part of the
    path with a value that is not a mapping)."""
    node = data
    for k in path:
        if not isinstance(node, dict):
            return True
        if k not in node:
            return False
        node = node[k]
    return True


# The key of the merged data that keeps, for each rule a file writes with the name
# `parent` in it, the rule it replaces in the variant it extends: {"play.may_play":
# [the parent's text, the grandparent's when the parent's reads `parent` too, ...]}.
# Made by `extends:` only (a file that writes it is refused).
PARENT_RULES = "parent_rules"
_PARENT_WORD = re.compile(r'(?<![A-Za-z0-9_"])parent(?![A-Za-z0-9_])')


def uses_parent(text) -> bool:
    """Whether a rule's text names `parent` (outside comments and strings)."""
    if not isinstance(text, str):
        return False
    return any(_PARENT_WORD.search(re.sub(r'"[^"\n]*"', '""', line.split("#", 1)[0]))
               for line in text.splitlines())


def _parent_rules(own: dict, pdata: dict, plocs: dict) -> dict:
    """{dotted path: ([parent's rule, grandparent's...], [their Locs])} for each rule of
    ``own`` (one file's data) that names `parent`, where the merged parent ``pdata``
    has a rule at the same path (its locations in ``plocs``, read before the merge
    replaces them)."""
    out = {}
    stack = [((), own)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            stack.extend((path + (k,), v) for k, v in node.items() if k != PARENT_RULES)
            continue
        if not uses_parent(node):
            continue
        base = pdata
        for k in path:
            base = base.get(k) if isinstance(base, dict) else None
        if base is None or isinstance(base, (dict, list)):
            continue
        dotted = ".".join(map(str, path))
        chain_, locs_ = [base], [plocs.get(path)]
        if uses_parent(base):
            more = (pdata.get(PARENT_RULES) or {}).get(dotted, [])
            chain_ += list(more)
            locs_ += [plocs.get((PARENT_RULES, dotted, i)) for i in range(len(more))]
        out[dotted] = (chain_, locs_)
    return out


@functools.lru_cache(maxsize=1)
def schema_validator():
    """The jsonschema validator of grammar/variant.schema.json."""
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def locate(locs: dict, path: tuple, fallback_file: str) -> Loc:
    """The Loc of the deepest known node along ``path``."""
    path = tuple(path)
    while path not in locs and path:
        path = path[:-1]
    return locs.get(path) or Loc(fallback_file, 1, 1)


class Checks:
    """A variant file as it is checked, section by section (variant._load_variant calls
    each game mechanic's ``load`` in turn): ``data`` (merged, its presets applied),
    ``locs`` (path -> Loc), ``fname``, ``problems`` found so far, and the facts of the
    file that several mechanics read, set by the variant's build as it learns them
    (``deck``, ``players``, ``flow``, ``steps``: the flow's named steps, ``per_seat``,
    ``widow``, ``has_auction``, ``trump_mode``, ...)."""

    def __init__(self, data: dict, locs: dict, fname: str, problems: list):
        self.data, self.locs, self.fname, self.problems = data, locs, fname, problems
        self.structural = 0  # problems of the file's structure (not of a value): flow order

    def at(self, *p) -> Loc:
        """The Loc of path ``p`` (the deepest node known along it)."""
        return locate(self.locs, p, self.fname)

    def problem(self, p: tuple, message: str, value: bool = False) -> None:
        """Record a problem at path ``p``. ``value``: a problem of one value (a number out
        of range, an unknown name), not of the file's structure; the check of the flow's
        order runs only when the structure has no problem (variant._check_flow_order)."""
        loc = self.at(*p)
        self.problems.append(Problem(loc.file, loc.line, loc.column, message))
        if not value:
            self.structural += 1

    def step_index(self, step: str, nth: int = 0) -> int:
        """The index in the flow of the ``nth`` (0-based) step named ``step``."""
        return [i for i, s in enumerate(self.data["flow"]) if s == step][nth]


def schema_problems(data: dict, locs: dict, fname: str) -> list[Problem]:
    """Every JSON Schema violation, located at its node (at the key for a key's fault)."""
    out = []
    errors = sorted(schema_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    for err in errors:
        path = tuple(err.absolute_path)
        loc = None
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
            allowed = ", ".join(sorted(err.schema.get("properties", {})))
            for k in extra:     # each unknown key where it is written
                at = locs.get(path + (k, KEY)) or locate(locs, path + (k,), fname)
                where = ".".join(str(p) for p in path + (k,))
                near = difflib.get_close_matches(str(k), list(err.schema.get("properties", {})), 1)
                out.append(Problem(at.file, at.line, at.column, f"{where}: unknown key {k!r}"
                                   + (f"; did you mean {near[0]!r}?" if near else "")
                                   + (f" (allowed: {allowed})" if allowed else "")))
            if extra:
                continue
        elif err.validator == "required":
            missing = [k for k in err.validator_value if isinstance(err.instance, dict) and k not in err.instance]
            if missing and path + (missing[0],) in locs:  # removed with `null` in a child file
                loc = locs[path + (missing[0],)]
        elif err.validator == "uniqueItems" and isinstance(err.instance, list):
            # at the item written again, named: its first repeat in the list
            seen: list = []
            for j, item in enumerate(err.instance):
                if item in seen:
                    loc = locs.get(path + (j,))
                    if loc is not None:
                        where = ".".join(str(p) for p in path)
                        out.append(Problem(loc.file, loc.line, loc.column,
                                           f"{where}: {show(item)} is written twice (item {seen.index(item) + 1} "
                                           f"and item {j + 1})"))
                    break
                seen.append(item)
            if loc is not None:
                continue
        elif err.validator == "propertyNames" or (err.schema_path and "propertyNames" in err.schema_path):
            if isinstance(err.instance, str) and path + (err.instance, KEY) in locs:
                loc = locs[path + (err.instance, KEY)]
                path = path + (err.instance,)
        elif err.validator == "oneOf" and path[:1] == ("flow",) and isinstance(err.instance, dict) \
                and err.instance.get("points_to", "declarer") not in WIDOW_POINTS_TO:
            loc = locs.get(path + ("points_to",))  # a widow step's points_to: at the word
        loc = loc or locate(locs, path, fname)
        where = ".".join(str(p) for p in path) or "the file"
        msg = _schema_message(err, path)
        out.append(Problem(loc.file, loc.line, loc.column, f"{where}: {msg}"))
    return out


def without_unknown_keys(data: dict):
    """``data`` without the keys the schema does not know, when those are its only
    violations (so that the rest of the file can still be checked), else None."""
    errors = list(schema_validator().iter_errors(data))
    if not errors or any(e.validator != "additionalProperties" or not isinstance(e.instance, dict) for e in errors):
        return None
    cleaned = copy.deepcopy(data)
    for e in errors:
        node = cleaned
        for p in e.absolute_path:
            node = node[p]
        for k in set(e.instance) - set(e.schema.get("properties", {})):
            node.pop(k, None)
    return cleaned


def show(value) -> str:
    """A value as the author wrote it in YAML terms (true, null, "text"), not Python's."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return str(value)


WIDOW_POINTS_TO = ("declarer", "last_trick", "nobody")  # a widow step's points_to (widow.py)
_TYPE_WORDS = {"string": "text", "integer": "a whole number", "boolean": "true or false",
               "object": "a mapping (key: value lines)", "array": "a list", "null": "nothing"}


def _schema_message(err, path=()) -> str:
    v = err.validator
    inst = err.instance
    if v == "required":     # (an unknown key is worded where it is found: schema_problems)
        return err.message.replace("is a required property", "is required")
    if v == "type":
        want = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        words = " or ".join(_TYPE_WORDS.get(t, t) for t in want)
        if isinstance(inst, bool) and "string" in want:
            return (f"{show(inst)} should be {words}: YAML reads yes/no/on/off/true/false as true or "
                    "false; write it in quotes")
        if isinstance(inst, dict) and "string" in want:
            return ("a rule is text: to write a rule on several lines, put `|` after the colon and "
                    "indent the lines below")
        return f"{show(inst)} should be {words}"
    if v == "enum":
        allowed = ", ".join(show(x) for x in err.validator_value)
        hint = ""
        if isinstance(inst, int) and str(inst) in err.validator_value:
            hint = f" (write it in quotes: \"{inst}\")"
        return f"{show(inst)} is not one of {allowed}{hint}"
    if v == "pattern":
        return f"{show(inst)}: a name of lowercase letters, digits, '-' and '_', starting with a letter"
    if v in ("minimum", "maximum"):
        word = "at least" if v == "minimum" else "at most"
        return f"{show(inst)} should be {word} {err.validator_value}"
    if v == "minItems":
        return f"needs at least {err.validator_value} item{'s' if err.validator_value != 1 else ''}"
    if v == "uniqueItems":
        return "has an item twice"
    if v == "oneOf" and path and path[0] == "flow" and isinstance(inst, dict) and "widow" in inst \
            and inst.get("points_to", "declarer") not in WIDOW_POINTS_TO:
        return (f"points_to: {show(inst['points_to'])} is not one of "
                + ", ".join(map(show, WIDOW_POINTS_TO)) + " (whom the widow's points count for)")
    if v == "oneOf" and path and path[0] == "flow":
        return (f"{show(inst)} is not a flow step (the steps: {{deal: [packet sizes]}}, {{widow: N}}, "
                "auction, exchange, trump, call_partner, doubling, play)")
    if v == "oneOf" and tuple(path[:2]) == ("auction", "all_pass"):
        return (f"{show(inst)} is not one of throw_in, dealer, {{seat: RULE}} (what happens when every "
                "player passes)")
    if v == "oneOf" and path and path[0] == "options":
        return (f"{show(inst)} is not an option: give a whole number, true or false, or "
                "{default: ..., choices: [...], description: ...}")
    return err.message
