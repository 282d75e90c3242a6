"""The import graph of the installed package `taash`, read from the source (nothing is run).

    python -m tests.imports            # print the import circles; exit 1 if there is one
    python -m tests.imports --edges    # print every edge: importer -> imported
    python -m tests.imports --local    # imports of taash modules inside functions

Modules are named as installed (`taash.interpreter.engine` for interpreter/engine.py), from
the package directories in pyproject.toml. Every import statement counts, at module level
or inside a function, except imports of modules outside taash (the standard library and
third-party libraries, optional extras included). `from .x import y` counts as an edge to
`x.y` when that is a module of taash, else to `x`. Generated protocol modules (`*_pb2*.py`)
are left out.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Installed module name -> source file, for every .py file of the package directories
    that pyproject.toml maps (``[tool.setuptools.package-dir]``)."""
    conf = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    out: dict[str, Path] = {}
    for pkg, folder in conf["package-dir"].items():
        base = root / folder
        if not (base / "__init__.py").is_file():
            continue  # a data folder
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base)
            if "__pycache__" in rel.parts or path.name.endswith(("_pb2.py", "_pb2_grpc.py")):
                continue
            if any(not (base.joinpath(*rel.parts[:i]) / "__init__.py").is_file() for i in range(1, len(rel.parts))):
                continue  # not inside a package
            parts = [pkg, *rel.with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def edges(mods: dict[str, Path]) -> dict[str, set[str]]:
    """importer -> the taash modules it imports (see the module docstring)."""
    names = set(mods)

    def known(name: str) -> str | None:
        while name:
            if name in names:
                return name
            name = name.rpartition(".")[0]
        return None

    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str | None] = []
            if isinstance(node, ast.Import):
                targets = [known(a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")
                    up = up[: len(up) - (node.level - 1)]
                    base = ".".join(up + ([base] if base else []))
                for a in node.names:
                    full = f"{base}.{a.name}" if base else a.name
                    targets.append(full if full in names else known(base))
            graph[mod].update(t for t in targets if t and t != mod)
    return graph


def local_imports(mods: dict[str, Path]) -> list[str]:
    """``FILE:LINE: module`` for each import of a taash module inside a function (or a class
    body), outside the command line (`taash.arena.cli`, imported by nothing, may load its
    commands' modules when they run). Imports of other libraries, optional extras
    included, are not listed."""
    out = []
    for mod, path in mods.items():
        if mod == "taash.arena.cli" or mod.startswith("taash.arena.cli."):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        top = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top:
                if isinstance(node, ast.ImportFrom):
                    name = "." * node.level + (node.module or "")
                    ours = node.level > 0 or name.split(".")[0] == "taash"
                else:
                    name = ", ".join(a.name for a in node.names)
                    ours = any(a.name.split(".")[0] == "taash" for a in node.names)
                if ours:
                    out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    return out


def private_imports(mods: dict[str, Path], root: Path = ROOT) -> list[str]:
    """``FILE:LINE: module.name`` for each private name (one underscore first, not a
    dunder) that a module imports from another taash module (``from .x import _y``,
    ``from taash.x import _y``, a relative import of the package itself included), at
    module level or inside a function."""
    out = []
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[: len(up) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            elif base.split(".")[0] != "taash":
                continue
            for a in node.names:
                if a.name.startswith("_") and not a.name.startswith("__") and base != mod:
                    out.append(f"{path.relative_to(root)}:{node.lineno}: {base}.{a.name}")
    return out


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph) + 100))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def main(argv: list[str]) -> int:
    graph = edges(modules())
    if "--edges" in argv:
        for a in sorted(graph):
            for b in sorted(graph[a]):
                print(f"{a} -> {b}")
        return 0
    if "--local" in argv:
        found = local_imports(modules())
        print("\n".join(found + [f"{len(found)} imports of taash modules inside functions"]))
        return 1 if found else 0
    found = circles(graph)
    for c in found:
        print(f"circle of {len(c)}: {', '.join(c)}")
    print(f"{len(found)} import circles among {len(graph)} modules")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
