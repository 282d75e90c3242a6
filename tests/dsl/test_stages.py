"""The DSL's layout (interpreter/dsl/): one module per stage, each importing only the
stages before it, nothing of the engine, and no module inside a function; `Compiler` keeps
the methods the variant's loader calls, with their signatures."""

import inspect

from taash.interpreter.dsl import Compiler
from tests.imports import edges, local_imports, modules

DSL = "taash.interpreter.dsl"


def test_each_stage_imports_only_the_stages_before_it():
    graph = edges(modules())
    stages = {m: sorted(graph[m]) for m in graph if m.startswith(DSL + ".")}
    assert stages == {
        f"{DSL}.names": ["taash.interpreter.errors"],
        f"{DSL}.guide": [f"{DSL}.names"],
        f"{DSL}.parse": ["taash.interpreter.errors", "taash.interpreter.loader"],
        f"{DSL}.check": [f"{DSL}.names", f"{DSL}.parse"],
        f"{DSL}.pyast": [],
        f"{DSL}.lower": [f"{DSL}.check", f"{DSL}.names", f"{DSL}.pyast"],
        f"{DSL}.runtime": [f"{DSL}.names"],
        f"{DSL}.fastpath": [f"{DSL}.lower", f"{DSL}.names", f"{DSL}.pyast", f"{DSL}.runtime"],
        f"{DSL}.compiler": [f"{DSL}.check", f"{DSL}.fastpath", f"{DSL}.lower", f"{DSL}.runtime"],
    }


def test_the_dsl_reaches_nothing_of_the_engine():
    graph = edges(modules())
    seen, todo = set(), [DSL]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(graph[m])
    outside = sorted(m for m in seen if not m.startswith(DSL))
    assert outside == ["taash.interpreter.errors", "taash.interpreter.loader"]


def test_no_module_of_the_dsl_imports_inside_a_function():
    assert [line for line in local_imports(modules()) if line.startswith("interpreter/dsl/")] == []


def test_the_compiler_keeps_the_signatures_the_loader_calls():
    signatures = {m: str(inspect.signature(getattr(Compiler, m)))
                  for m in ("__init__", "add", "check_defines", "build", "build_play_legal",
                            "build_auction_legal", "build_play_step")}
    assert signatures == {
        "__init__": "(self, deck, players: 'int', tricks: 'int', min_bid: 'int', max_bid: 'int', "
                    "declarations=(), options=None, answers=(), denominations=None, "
                    "score_unit: 'str' = 'side', defines=None, variables=(), partnership: 'str' = 'fixed', "
                    "not_assignable=frozenset())",
        "add": "(self, hook: 'str', text: 'str', kind: 'str', extra_names: 'str | tuple | None' = None, "
               "parents=()) -> 'str'",
        "check_defines": "(self) -> 'dict[str, str]'",
        "build": "(self) -> 'dict[str, Compiled]'",
        "build_play_legal": "(self, may_play: 'str', checks, expose=None, face_down: 'bool' = False, "
                            "dedupe: 'bool' = False)",
        "build_auction_legal": "(self, may_pass: 'str', may_bid: 'str', may_equal, may_double, may_redouble, "
                               "numbers, pass_id: 'int', double_id: 'int', redouble_id: 'int') -> 'Compiled'",
        "build_play_step": "(self, plain_play: 'bool', apply_id, card_played, end_trick, actions, "
                           "plain_trump: 'bool' = False, tricks: 'int' = 0, last_trick: 'int' = 0, "
                           "after_trick=None, after_card=None) -> 'Compiled'",
    }
