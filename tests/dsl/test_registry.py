"""The DSL registry (interpreter/dsl/names.py) and the compiler built on it (interpreter/dsl/):
the authoring guide lists exactly the registry's names, every State field an entry reads
exists (a renamed field fails at load, naming the entry), and the compiler's pipeline
(typed tree, constants folded, ast made from registry entries only) keeps its guarantees."""

import ast
import re
import sys
from pathlib import Path

import pytest

from taash.interpreter import load_variant, shipped_variants
from taash.interpreter import dsl, engine
from taash.interpreter.dsl import guide, names
from taash.interpreter.cards import Deck

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "authoring.md").read_text()


def guide_tables() -> list[tuple[tuple[str, ...], list[str]]]:
    """[(header cells, [first cell of each row])] of the tables between the markers."""
    part = GUIDE.split(guide.BEGIN, 1)[1].split(guide.END, 1)[0]
    tables = []
    for line in part.splitlines():
        if not line.startswith("|"):
            continue
        cells = tuple(c.strip() for c in line.strip("|").split("|"))
        if line.startswith("|---"):
            continue
        if not cells[0].startswith("`"):
            tables.append((cells, []))
        else:
            tables[-1][1].append(cells[0])
    return tables


def listed(cell: str) -> str:
    """The name in a first cell: `name` or `name(args)`."""
    m = re.fullmatch(r"`([a-z_]+)(\(.*\))?`", cell)
    assert m, f"not a name in backquotes: {cell!r}"
    return m.group(1)


# -- the guide lists exactly the registry -----------------------------------------------------
def test_guide_lists_exactly_the_registry_names_assignables_and_functions():
    tables = dict(guide_tables())
    assert list(tables) == [("name", "type", "value"), ("name", "type", "example", "what it changes"),
                            ("function", "type", "value"), ("rule", "`me`")]
    names_, assignable, functions = ([listed(c) for c in rows] for rows in list(tables.values())[:3])
    assert [c.strip("`") for c in list(tables.values())[3]] == list(names.ME)  # who `me` is
    every_name = [e.name for e in names.NAME_ENTRIES]
    assert sorted(names_) == sorted(every_name) and len(names_) == len(set(names_))
    assert sorted(assignable) == ["declarer", "redeal", "score", "side", "sits_out", "target", "trump"] == sorted(names.ASSIGNABLE)
    assert sorted(functions) == sorted(names.FUNCTIONS) and len(functions) == len(set(functions))
    # a few that must be there, by the rules language itself (docs/authoring.md examples)
    assert {"hand", "led", "trump", "number", "made", "winner"} <= set(names_)
    assert {"in_suit", "holds", "max"} <= set(functions)
    # the compiler's tables are these same entries
    assert set(dsl.NAMES) | {n for d in dsl.HOOK_NAMES.values() for n in d} == set(every_name)
    assert dsl.FUNCTIONS is names.FUNCTIONS and dsl.LVALUES is names.ASSIGNABLE


def test_guide_tables_are_current():
    assert guide.with_tables(GUIDE) == GUIDE, \
        "docs/authoring.md tables are stale: run `python -m taash.interpreter.dsl.guide --write docs/authoring.md`"


def test_guide_without_markers_is_refused():
    with pytest.raises(ValueError):
        guide.with_tables("# a guide without tables\n")


def test_hook_names_belong_to_real_hooks():
    from taash.interpreter.variant import HOOKS
    assert set(names.HOOK_NAMES) - set(HOOKS) == {"declare.suit"}
    assert names.HOOK_NAMES["auction.may_bid"]["number"].type == names.INT
    assert names.HOOK_NAMES["scoring.effect"]["made"].type == names.BOOL


# -- every field an entry reads is a State attribute ----------------------------------------
def test_every_field_the_registry_reads_is_a_state_attribute():
    names.check_state(engine.State)
    have = names.state_attributes(engine.State)
    for what, f in names.reads_by_entry():
        assert f in have, (what, f)
    # the data names real fields: a few worked out from the entries' meaning
    assert names.NAMES["hand"].reads == ("hands",)
    assert names.NAMES["declarer_side"].reads == ("side", "declarer")
    assert names.FUNCTIONS["points"].reads == ("side_points",)
    assert names.ASSIGNABLE["score"].writes == ("scores",)


def _state_with(renamed: dict):
    """A class like State whose slots have the fields of ``renamed`` renamed."""
    slots = tuple(renamed.get(f, f) for f in engine.State.__slots__)
    extra = {k: getattr(engine.State, k) for _, k in names.reads_by_entry()
             if k not in engine.State.__slots__}  # methods and properties
    return type("State", (), {"__slots__": slots, **extra})


def test_a_copy_of_state_passes_the_check():
    names.check_state(_state_with({}))


def test_a_renamed_state_field_is_a_clear_error_naming_the_entries():
    with pytest.raises(names.RegistryError) as e:
        names.check_state(_state_with({"hands": "hand_cards"}))
    msg = str(e.value)
    assert "name 'hand' reads State.hands" in msg
    assert "function 'holds' reads State.hands" in msg
    assert "interpreter/dsl/names.py" in msg
    assert "State.dealer" not in msg          # only what is missing


def test_a_renamed_method_is_caught_too():
    Fake = type("State", (), {"__slots__": engine.State.__slots__, "is_terminal": engine.State.is_terminal})
    with pytest.raises(names.RegistryError, match=r"name 'my_side_tricks' reads State.known_side_tricks"):
        names.check_state(Fake)


def test_a_renamed_field_fails_at_load_not_when_a_rule_runs():
    """The engine checks its State, whose fields the mechanics declare, against the
    registry as its module loads: with the play's field `tricks_done` renamed in its one
    declaration (play.py's MECHANIC), that check fails, naming the entry that reads the
    field."""
    from taash.interpreter import play
    assert Path(play.__file__).read_text().count('"tricks_done"') == 1   # the field's one declaration
    assert "tricks_done" in play.MECHANIC.fields
    assert "\ncheck_state(State)" in Path(sys.modules[engine.State.__module__].__file__).read_text()
    renamed = tuple("tricks_over" if f == "tricks_done" else f for f in engine.State.__slots__)
    methods = {k: x for k, x in vars(engine.State).items() if not k.startswith("__") and k not in renamed
               and k != "tricks_done"}
    Fake = type("State", (), {"__slots__": renamed, **methods})
    with pytest.raises(names.RegistryError, match=r"name 'trick' reads State.tricks_done"):
        names.check_state(Fake)
    assert load_variant("29").players == 4


def test_an_entry_whose_code_disagrees_with_its_data_is_refused(monkeypatch):
    bad = names.Name("oops", names.SEAT, ("dealer",), lambda c: names.field("declarer"), "x", "x")
    monkeypatch.setattr(names, "NAME_ENTRIES", names.NAME_ENTRIES + (bad,))
    with pytest.raises(names.RegistryError,
                       match=r"name 'oops' names State fields \['dealer'\] but its code uses \['declarer'\]"):
        names.check_registry()


def test_an_entry_naming_an_unknown_global_is_refused(monkeypatch):
    bad = names.Function("f", (names.INT,), names.INT, (), lambda c, a: names.call("eval", a),
                         lambda a: "f", "f")
    monkeypatch.setattr(names, "FUNCTION_ENTRIES", names.FUNCTION_ENTRIES + (bad,))
    with pytest.raises(names.RegistryError, match=r"function 'f' names \['eval'\]"):
        names.check_registry()


# -- the compiler: typed tree, folding, ast from the registry only ---------------------------
DECK = Deck(["S", "H", "D", "C"], ["J", "9", "A", "T", "K", "Q", "8", "7"])


def compiler(**kw):
    return dsl.Compiler(DECK, 4, 8, 16, 28, **kw)


def compiled(text: str, kind: str = names.BOOL, hook: str = "auction.may_bid", **kw):
    c = compiler(**kw)
    fn = c.add(hook, text, kind)
    return c.build()[fn], c.consts[fn]


def returned(rule: dsl.Compiled) -> ast.expr:
    assert isinstance(rule.node.body[0], ast.Return)
    return rule.node.body[0].value


def test_typed_tree_has_types_and_folded_constants():
    c = compiler()
    tree = c.value(c.parse("players * 2 + max(1, 3)", "expr_rule").children[0])
    assert (tree.op, tree.type, tree.const) == ("binop", names.INT, 4 * 2 + 3)
    left, right = tree.kids
    assert (left.type, left.const, right.const) == (names.INT, 8, 3)
    hand = c.value(c.parse("count(hand)", "expr_rule").children[0])
    assert (hand.op, hand.type, hand.const, hand.kids[0].info.name) == ("call", names.INT, dsl.NOT_CONSTANT, "hand")


def test_constants_are_folded_into_the_code():
    rule, const = compiled("players * 2 + max(1, 3) - min_bid", names.INT)
    assert const == 4 * 2 + 3 - 16
    assert isinstance(returned(rule), ast.Constant) and returned(rule).value == -5
    assert rule.fn(None, 0, None, None) == -5


def test_folding_keeps_the_live_part_only():
    # `true and number > 20`: the constant part drops out; `x if true else y` is x
    rule, const = compiled("true and number > 20")
    assert const is dsl.NOT_CONSTANT
    assert ast.unparse(returned(rule)) == "x > 20"
    rule, _ = compiled("(number if players == 4 else 0) > 20")
    assert ast.unparse(returned(rule)) == "x > 20"
    assert rule.fn(None, 0, 21, None) is True and rule.fn(None, 0, 20, None) is False


def test_cheap_forms_stay_cheap():
    rule, _ = compiled("hand", names.CARDS, hook="play.may_play")
    assert ast.unparse(returned(rule)) == "s.hands[me]"
    rule, _ = compiled("not (number < high_bid)")
    assert ast.unparse(returned(rule)) == "x >= s.bid"
    rule, _ = compiled("number // 2 > 3")             # a constant divisor needs no guard
    assert ast.unparse(returned(rule)) == "x // 2 > 3"


def test_division_by_a_variable_zero_is_zero():
    rule, _ = compiled("number // high_bid == 0")
    class S:
        bid = 0
    assert rule.fn(S, 0, 7, None) is True        # 7 // 0 is 0 (docs/authoring.md)
    S.bid = 2
    assert rule.fn(S, 0, 7, None) is False       # 7 // 2 is 3


def test_variant_text_never_becomes_code():
    c = compiler(options={"game": 6})
    fn = c.add("scoring.effect", "evil_name = game + 1\nwhen made: score[declarer_side] += evil_name",
               "effect")
    src = c.build()[fn].source
    assert "evil_name" not in src and "game" not in src
    assert "_v0 = 7" in src                      # the option folded, the local renamed


def test_verify_refuses_what_the_compiler_never_makes():
    def module(src):
        m = ast.parse(src)
        ast.fix_missing_locations(m)
        return m
    dsl.verify(module("def r0(s, me, x, y):\n    return s.hands[me]\n"))

    def indexed(row):       # `return ROW[me]`, ROW a constant as the compiler's fold makes it
        m = module("def r0(s, me, x, y):\n    return ROW[me]\n")
        m.body[0].body[0].value.value = ast.Constant(row)
        return m
    dsl.verify(indexed((4, 12, -1)))    # a card-table row (fastpath._Params)
    for row in (("a", 1), (1, (2,)), (1.5,), frozenset({1})):
        with pytest.raises(AssertionError):
            dsl.verify(indexed(row))
    for bad in ("def r0(s, me, x, y):\n    while True:\n        pass\n",
                "def r0(s, me, x, y):\n    return open('f')\n",
                "def r0(s, me, x, y):\n    return s.__class__\n",
                "def r0(s, me, x, y):\n    return (lambda: 1)()\n",
                "def r0(s, me, x, y):\n    return 1.5\n"):
        with pytest.raises(AssertionError):
            dsl.verify(module(bad))


def test_inlined_card_table_rows_are_constants():
    # 29's pair: holds("K", trump) and holds("Q", trump): the rows of K and Q folded to
    # tuples of card ids (spades, hearts, diamonds, clubs, then -1 for no suit)
    src = load_variant("29").play_legal_source
    assert "_CARD" not in src
    assert "(4, 12, 20, 28, -1)[s.trump] in _hand" in src and "(5, 13, 21, 29, -1)[s.trump] in _hand" in src


@pytest.mark.parametrize("name", shipped_variants())
def test_every_shipped_rule_reads_only_registry_fields(name):
    v = load_variant(name)
    fields = {f for _, f in names.reads_by_entry()}
    for hook, src in v.sources.items():
        tree = ast.parse(src)
        used = names.state_fields(tree)
        assert used <= fields, (hook, used - fields)
        stores = {n.value.attr if isinstance(n, ast.Subscript) else n.attr
                  for n in ast.walk(tree) if isinstance(n, (ast.Attribute, ast.Subscript))
                  and isinstance(n.ctx, ast.Store)}
        writable = {f for e in names.ASSIGNABLE_ENTRIES for f in e.writes} | {names.VARIABLE_FIELD}
        assert stores <= writable, (hook, stores)
        if not hook.endswith("effect") and hook != "play.after_trick":
            assert not stores, hook                # only effects write


def test_compiled_names_read_the_state_as_the_rules_say():
    v = load_variant("29")
    st = engine.State(v, dealer=2, seed=3)
    c = dsl.Compiler(v.deck, v.players, v.tricks, v.min_bid, v.max_bid)
    rules = {n: c.add("play.may_play", n, kind) for n, kind in
             [("eldest", names.SEAT), ("trick", names.INT), ("leading", names.BOOL),
              ("hand", names.CARDS), ("max_bid", names.INT), ("deals_played", names.INT)]}
    built = c.build()
    me = st.to_act
    assert built[rules["eldest"]].fn(st, me, None, None) == 3      # the seat after dealer 2
    assert built[rules["trick"]].fn(st, me, None, None) == 1       # 1-based, none done yet
    assert built[rules["leading"]].fn(st, me, None, None) is True  # nothing led yet
    assert built[rules["hand"]].fn(st, me, None, None) == st.hands[me]
    assert built[rules["max_bid"]].fn(st, me, None, None) == 29    # docs/rules.md §29.4
    assert built[rules["deals_played"]].fn(st, me, None, None) == 0


def test_rulebook_words_come_from_the_registry():
    from taash.interpreter.rulebook import rule_words
    assert rule_words("count(in_suit(hand, trump)) > 0") == \
        "the number of cards in hand of trump is more than 0"
    assert rule_words("not made", effect=False) == "the contract is not made"
    assert rule_words("side[partner] = defenders_side", effect=True) == \
        "- the side of the partner becomes the defenders' side"
    assert names.FUNCTIONS["count"].words(["any card in hand"]) == "the number of cards in hand"


def test_functions_of_constants_fold_so_the_checker_sees_them():
    # the jack of spades is a spade (deck S H D C): always true, so no code is left
    rule, const = compiled('suit("JS") == "S"')
    assert const is True and isinstance(returned(rule), ast.Constant)
    with pytest.raises(dsl.DSLError, match="can never be satisfied"):
        compiled('suit("JS") == "H" and number > 16')
    assert compiled("abs(2 - 5) * 2", names.INT)[1] == 6
    assert compiled('rank("9C") == "9" and suit(none) == none')[1] is True


def test_max_and_min_of_a_list_are_0_when_empty():
    rule, _ = compiled("max(score) - min(score)", names.INT)
    class S:
        scores = [3, -2, 1]
    assert rule.fn(S, 0, None, None) == 3 - (-2)
    S.scores = []
    assert rule.fn(S, 0, None, None) == 0


def test_may_bid_reads_only_the_bid_number():
    """The engine asks auction.may_bid once per bid number for all its denominations
    (engine.Auction.legal), which is right only while the rule has no name for the
    denomination: every hook name of auction.may_bid is the bid's number (x)."""
    from taash.interpreter.dsl import HOOK_NAMES
    entries = HOOK_NAMES["auction.may_bid"]
    assert sorted(entries) == ["number"]
    assert "y" not in ast.unparse(entries["number"].build(None))
