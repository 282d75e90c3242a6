"""The engine reads in order, load -> compile -> Variant -> play (docs/engine.md): building
a variant imports neither the engine nor anything that plays a deal, no game mechanic
imports the Variant or the engine, and no engine module imports a module of taash inside
a function (the import graph of tests/imports.py, read from the source)."""

from __future__ import annotations

from tests.imports import edges, local_imports, modules

PKG = "taash.interpreter"
MECHANICS = ("auction", "trump", "widow", "partner", "declarations", "play", "scoring", "variables")
# the DSL's registry checks a State's fields against its names inside a function: that
# import belongs to the DSL's own layout, not to the order checked here
DSL = {f"{PKG}.names"}


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        m = todo.pop()
        for n in graph.get(m, ()):
            if n not in seen and n not in DSL:
                seen.add(n)
                todo.append(n)
    return seen


def test_building_a_variant_imports_no_engine():
    graph = edges(modules())
    below = reachable(graph, f"{PKG}.variant")
    assert {f"{PKG}.{m}" for m in MECHANICS} <= below
    assert not below & {f"{PKG}.{m}" for m in ("engine", "information", "records", "playout", "rulebook")}


def test_no_mechanic_imports_the_variant_or_the_engine():
    graph = edges(modules())
    for m in MECHANICS:
        assert not reachable(graph, f"{PKG}.{m}") & {f"{PKG}.variant", f"{PKG}.engine"}, m


def test_no_engine_module_imports_inside_a_function():
    local = [line for line in local_imports(modules()) if line.startswith("interpreter/")]
    assert local == []
