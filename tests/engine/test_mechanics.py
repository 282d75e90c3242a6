"""The one list of mechanics (interpreter/mechanics.py): what each mechanic declares is
what the engine does with it, and a mechanic is wired in by its module and one line of
the list (docs/architecture.md, "Adding a mechanic")."""

import ast
import dataclasses
import json
import re
from pathlib import Path

import pytest

from taash.interpreter import Match, load_variant
from taash.interpreter.engine import FIELDS, State
from taash.interpreter.mechanic import COPY_KINDS, Mechanic
from taash.interpreter.mechanics import MECHANICS
from taash.interpreter.variant import HOOKS, Variant

ROOT = Path(__file__).resolve().parents[2]
INTERPRETER = ROOT / "interpreter"
# the engine's own parts of an observation, before and after the mechanics' parts
HEAD = ["variant", "seat", "players", "dealer", "deal", "phase", "to_act", "hand", "hand_sizes",
        "sitting_out", "history"]
TAIL = ["legal_actions"]


def imports_of(path: Path) -> set[str]:
    """The interpreter modules ``path`` imports (relative imports, by module name)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(a.name for a in node.names)
    return out


def test_the_list_is_of_mechanics_each_named_once():
    names = [m.name for m in MECHANICS]
    assert names == ["auction", "bids", "trump", "partner", "widow", "play", "declarations", "scoring",
                     "variables"]
    assert all(isinstance(m, Mechanic) for m in MECHANICS)


def test_no_two_mechanics_declare_one_thing():
    """A State field, a flow step's phase, a rule (hook), a flow step's words: each is one
    mechanic's, and no mechanic's field is one of the engine's own."""
    for what in ("fields", "phases", "hooks", "step_words", "follow", "action_kinds"):
        seen = {}
        for m in MECHANICS:
            for key in getattr(m, what):
                assert key not in seen, f"{what} {key!r} of {m.name} and of {seen[key]}"
                seen[key] = m.name
    engine_own = set(FIELDS["match"]) | set(FIELDS["deal"])
    assert not engine_own & {f for m in MECHANICS for f in m.fields}
    v = load_variant("304-solo")
    assert set(v.phases) == {step for m in MECHANICS for step in m.phases}
    assert v.phases["play"].legal is v.play_legal and v.phases["exchange"] is next(m for m in MECHANICS if m.name == "widow").phases["exchange"]
    assert set(HOOKS) == {hook for m in MECHANICS for hook in m.hooks}


def test_a_bad_field_declaration_is_refused():
    with pytest.raises(ValueError, match="copied as 'deep'"):
        Mechanic("x", fields={"cards": "deep"})
    assert COPY_KINDS == ("=", "list", "lists", "set", "dict")


@pytest.mark.parametrize("name", ["29", "304-solo", "56", "house/29-dealer-keeps"])
def test_each_start_sets_its_own_fields_and_no_other(name):
    """`Mechanic.start` sets exactly the fields the mechanic declares (so `State.copy`,
    which copies the declared fields, copies all it sets)."""
    st = Match(load_variant(name), seed=3).new_deal()

    class Recorder:
        def __init__(self):
            object.__setattr__(self, "written", set())

        def __getattr__(self, k):
            return getattr(st, k)

        def __setattr__(self, k, x):
            self.written.add(k)

    for m in MECHANICS:
        if m.start is None:
            assert not m.fields
            continue
        r = Recorder()
        m.start(r, None)
        assert r.written == set(m.fields), m.name


def test_the_observation_is_the_mechanics_parts_in_the_list_order():
    """An observation is the engine's head, each mechanic's part in the list's order, and
    the legal actions; proto/observation.schema.json lists the same keys in that order
    (a mechanic's part of the schema)."""
    st = Match(load_variant("304-solo"), seed=2).new_deal()
    keys = list(HEAD)
    for m in MECHANICS:
        if m.view is not None:
            keys += list(m.view(st, 0, []))
    keys += TAIL
    assert list(st.observation(0)) == keys
    schema = json.loads((ROOT / "proto" / "observation.schema.json").read_text())
    assert list(schema["properties"]) == keys
    assert list(json.loads(st.observation_json(0))) == keys


def test_the_widow_touches_its_module_and_the_list():
    """The bar of docs/architecture.md, "Adding a mechanic", counted on the widow: no
    interpreter module but the list imports widow.py, and none but widow.py names the
    widow's State fields, its Variant fields, its action kinds (as an attribute or a
    string), its phase or its resampling's words."""
    importers = sorted(p.name for p in INTERPRETER.rglob("*.py") if "widow" in imports_of(p))
    assert importers == ["mechanics.py"]
    from taash.interpreter import widow
    m = widow.MECHANIC
    own = list(m.fields) + [f.name for f in dataclasses.fields(m.variant)]
    assert own == ["widow_left", "taken", "discarded", "set_aside",
                   "widow_set_aside", "widow_points_to", "done_action", "take_text", "discard_text",
                   "take_ids", "discard_ids"]
    assert list(m.action_kinds) == ["take", "discard", "done"]
    fields, kinds = "|".join(own), "|".join(m.action_kinds)
    # a field as an attribute or a string; a kind compared with an action's (``kind ==
    # "take"``, ``text in ("take", ...)``); the phase; whom the widow's points count for
    named = re.compile(rf"(\.({fields})\b|[\"']({fields})[\"']|\b(kind|text)\b\s*(==|!=|in|not in)\s*"
                       rf"[^#]*[\"']({kinds})[\"']|\bExchange\b|\bpoints_to\()")
    where = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
             for p in sorted(INTERPRETER.rglob("*.py")) if p.name != "widow.py"
             for i, line in enumerate(p.read_text().splitlines(), 1) if named.search(line)]
    assert where == []


def test_each_variant_field_is_declared_once():
    """A Variant's fields are the engine's own (declared on `Variant`) and each
    mechanic's (`Mechanic.variant`, a base of Variant), none declared twice; a mechanic's
    per-card actions (`Mechanic.card_actions`) are fields of its own."""
    seen = {f: "variant.py" for f in Variant.__annotations__}
    for m in MECHANICS:
        if m.variant is None:
            assert not m.tables and not m.card_actions, m.name
            continue
        assert m.variant in Variant.__mro__
        own = [f.name for f in dataclasses.fields(m.variant)]
        for f in own:
            assert f not in seen, f"{f} of {m.name} and of {seen[f]}"
            seen[f] = m.name
        assert set(m.card_actions.values()) <= set(own), m.name
    assert set(seen) == {f.name for f in dataclasses.fields(Variant)}
    v = load_variant("304-solo")
    assert [a.kind for a in v.card_actions["take"]] == ["take"] * v.deck.size
    # the slots' order (Mechanic.tables): 32 plays, pass, double, redouble, expose, done,
    # the bids, trump S, trump-card C, call C, take C, discard C
    assert v.deck.size == 32 and v.done_action.id == 36
    assert v.take_ids == list(range(v.call_ids[-1] + 1, v.call_ids[-1] + 33)) == [a.id for a in v.take_text]
    assert v.discard_ids[0] == v.take_ids[-1] + 1 and v.discard_ids[-1] == len(v.actions) - 1 - sum(
        len(decl.answer_actions) + (4 if decl.per_suit else 1) for decl in v.declarations)


def test_a_state_copy_copies_every_declared_field():
    st = Match(load_variant("304-solo"), seed=5).new_deal()
    while st.phase != "play":
        st.apply_id(st.legal_ids()[0])
    cp = st.copy()
    for group in FIELDS.values():
        for f, kind in group.items():
            a, b = getattr(st, f), getattr(cp, f)
            assert a == b, f
            if kind != "=":
                assert a is not b or not isinstance(a, (list, set, dict)), f
    assert isinstance(cp, State)
    # the variant's own class says so (engine.state_class), and is the one State(v) makes
    assert type(cp) is type(st) is type(State(st.v)) is not State
    assert type(st).__name__ == type(st).__qualname__ == "State[304-solo]"


def test_the_schema_is_the_engines_part_and_each_mechanics():
    """grammar/variant.schema.json is `schema.variant_schema()` as written (`make docs`):
    the engine's part, and each mechanic's sections and flow steps (`Mechanic.schema`)."""
    from taash.interpreter.schema import schema_text, variant_schema
    assert (ROOT / "grammar" / "variant.schema.json").read_text() == schema_text()
    schema = variant_schema()
    widow = next(m for m in MECHANICS if m.name == "widow")
    assert "properties" not in widow.schema and widow.schema["steps"] == ["exchange"]
    flow = schema["properties"]["flow"]["items"]["oneOf"]
    assert "exchange" in flow[0]["enum"]
    assert [o["required"] for o in flow[1:]] == [["deal"], ["widow"], ["declare"]]
    core = json.loads((ROOT / "grammar" / "variant.core.schema.json").read_text())
    assert "exchange" not in json.dumps(core) and "widow" not in core["properties"]
    assert schema["required"] == ["name", "players", "deck", "flow", "play", "scoring", "match"]


def test_resampling_names_no_mechanic_but_the_play():
    """information.py (resampling, `State.from_observation`) reads no observation key
    and compares no action kind of a mechanic but the play's (the tricks), scoring's
    and the variables' (the match around the deal): trump's face-down card, the widow's
    exchange and a called partner are their modules' (`follow`, `known_deal`...)."""
    st = Match(load_variant("304-solo"), seed=2).new_deal()
    own = {m.name: set(m.action_kinds) | (set(m.view(st, 0, [])) if m.view else set()) for m in MECHANICS}
    others = set().union(*(names for name, names in own.items()
                           if name not in ("play", "scoring", "variables")))
    assert {"trump-card", "exposed_card", "called_card", "take", "set_aside"} <= others
    src = (INTERPRETER / "information.py").read_text()
    read = set(re.findall(r"obs(?:ervation)?(?:\.get\(|\[)\s*[\"'](\w+)[\"']", src))
    compared = set(re.findall(r"\b(?:kind|text)\b\s*(?:==|!=|in|not in)\s*[^#\n]*?[\"']([\w-]+)[\"']", src))
    compared |= set(re.findall(r"startswith\([\"']([\w-]+)[\"']", src))
    assert read == {"seat", "hand", "history", "dealer", "deal", "score", "variables"}
    assert compared <= {"play"} and not (read | compared) & others
