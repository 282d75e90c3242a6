"""The layout's invariants (docs/architecture.md, "Layout"): no import circle in the package
and no import of a taash module inside a function (but in the command line); `taash.interpreter`
imports neither gRPC nor protobuf nor the arena, and its code names no game and no one game's
rule; nothing imports the command line."""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

from tests.imports import circles, edges, local_imports, modules, private_imports

ROOT = Path(__file__).resolve().parents[1]

# a game's name or one game's rule, as an identifier or a string in code (docstrings and
# comments may cite a rule: "§28.7")
GAME_WORDS = re.compile(r"(twenty|fifty|royal|marriage|\bnoes\b|\bcot\b)", re.I)
GAME_NUMBERS = {"28", "29", "56", "304"}
CITATION = re.compile(r"§\s*\d+[a-z]?(\.\d+)*|docs/rules\.md")


def game_names(source: str) -> list[tuple[int, str]]:
    """(line, token) for each identifier, string literal (not a docstring) or number in
    ``source`` that names a game or one game's rule."""
    hits = []
    prev = None
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING:
            is_doc = prev is None or prev.type in (tokenize.INDENT, tokenize.NEWLINE, tokenize.DEDENT, tokenize.NL)
            text = CITATION.sub("", tok.string)
            if not is_doc and (GAME_WORDS.search(text) or text.strip("'\"rbuf") in GAME_NUMBERS):
                hits.append((tok.start[0], tok.string[:60]))
        elif tok.type == tokenize.NAME and GAME_WORDS.search(tok.string):
            hits.append((tok.start[0], tok.string))
        elif tok.type == tokenize.NUMBER and tok.string in GAME_NUMBERS:
            hits.append((tok.start[0], tok.string))
        if tok.type not in (tokenize.COMMENT, tokenize.NL):
            prev = tok
    return hits


def test_game_names_are_found():
    src = 'def f(x):\n    """The 29 rule: §29.6."""\n    royal = x\n    return royal + 28 if x == "NOES" else "a"\n'
    assert game_names(src) == [(3, "royal"), (4, "royal"), (4, "28"), (4, '"NOES"')]
    assert game_names('x = "see docs/rules.md §304s.2"\n# 304 in a comment\ny = 29.5\n') == []


def test_interpreter_imports_no_grpc_protobuf_or_arena():
    code = ("import sys, taash, taash.interpreter.records, taash.interpreter.rulebook;"
            "from taash import load_variant, State;"
            "st = State(load_variant('28'), seed=1); st.observation(0);"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('grpc', 'google', 'aiohttp', 'ray') "
            "or m.startswith('taash.arena'));"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == ""


def test_interpreter_names_no_game():
    hits = [f"{p.relative_to(ROOT)}:{line}: {what}" for p in sorted((ROOT / "interpreter").rglob("*.py"))
            for line, what in game_names(p.read_text(encoding="utf-8"))]
    assert hits == []


def test_the_import_graph_is_read():
    """The graph the next tests judge: a known edge of each kind is in it (a relative
    import, an absolute one, `from . import module`)."""
    graph = edges(modules())
    assert "taash.interpreter.variant" in graph["taash.interpreter.engine"]
    assert "taash.interpreter" in graph["taash"]
    assert "taash.interpreter.auction" in graph["taash.interpreter.mechanics"]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_another_modules_private_name():
    """A name with one underscore first is its module's own: no other taash module
    imports it (docs/architecture.md, "Layout")."""
    assert private_imports(modules()) == []


def test_a_private_import_is_found(tmp_path):
    pkg = tmp_path / "interpreter"
    pkg.mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.setuptools.package-dir]\n"taash.interpreter" = "interpreter"\n')
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("_x = 1\n__version__ = 2\n")
    (pkg / "b.py").write_text("from .a import _x, __version__\nfrom os import _exit\n")
    found = private_imports(modules(tmp_path), tmp_path)
    assert [f.rsplit(": ", 1)[1] for f in found] == ["taash.interpreter.a._x"]


def test_no_import_circle():
    assert circles(edges(modules())) == []


def test_no_import_of_a_taash_module_inside_a_function():
    assert local_imports(modules()) == []


def test_nothing_imports_the_command_line():
    """Only ``python -m taash`` (taash/__main__.py, run and never imported) starts it."""
    graph = edges(modules())
    cli = "taash.arena.cli"
    importers = sorted(a for a, bs in graph.items() for b in bs
                       if (b == cli or b.startswith(cli + ".")) and not (a == cli or a.startswith(cli + ".")))
    assert importers == ["taash.__main__"]


def test_python_m_taash_is_the_command_line():
    out = subprocess.run([sys.executable, "-m", "taash", "variants"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert {"29", "304-solo", "house/29-double"} <= set(out.stdout.split())


def test_nothing_in_the_engine_or_the_arena_imports_learn():
    """taash.learn (the learning environments, the ``learn`` extra) is imported by nobody in
    taash.interpreter or taash.arena: the bot registry loads its policy bot by spec only."""
    graph = edges(modules())
    assert "taash.learn.encoding" in graph["taash.learn.pettingzoo"]     # the graph sees taash.learn
    importers = sorted(a for a, bs in graph.items() for b in bs
                       if (b == "taash.learn" or b.startswith("taash.learn."))
                       and a.startswith(("taash.interpreter", "taash.arena")))
    assert importers == []


def ast_conversions(source: str) -> list[int]:
    """The lines of ``source`` that call ``ast.parse`` or the builtin ``compile``: the
    conversions between C and Python syntax trees, which CPython 3.11 does not make safe
    from two threads at once (taash.interpreter.dsl.pyast)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if (isinstance(f, ast.Attribute) and f.attr == "parse" and isinstance(f.value, ast.Name) and f.value.id == "ast") \
                or (isinstance(f, ast.Name) and f.id == "compile"):
            lines.append(node.lineno)
    return lines


def test_ast_conversions_are_found():
    assert ast_conversions("import ast\nt = ast.parse('x')\nc = compile(t, 'f', 'exec')\nre.compile('x')\n") == [2, 3]


def test_every_ast_conversion_holds_the_lock():
    """Only taash.interpreter.dsl.pyast calls ``ast.parse`` or ``compile``: the rest of the
    package converts through it, under its lock (a kernel is made on a thread beside the
    caller's variant loading)."""
    hits = [f"{path.relative_to(ROOT)}:{line}" for name, path in modules().items()
            if name != "taash.interpreter.dsl.pyast" for line in ast_conversions(path.read_text())]
    assert hits == []
