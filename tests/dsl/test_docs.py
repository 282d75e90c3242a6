"""Every ```yaml example of docs/authoring.md loads, and the README's commands exist."""

import re

import pytest

from taash.interpreter import Match, load_variant

from tests.helpers import ROOT

GUIDE = (ROOT / "docs" / "authoring.md").read_text()
EXAMPLES = re.findall(r"```yaml\n(.*?)```", GUIDE, re.S)


def test_guide_has_examples():
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize("i", range(len(EXAMPLES)))
def test_guide_example_loads_and_plays(tmp_path, i):
    p = tmp_path / f"example-{i}.yaml"
    p.write_text(EXAMPLES[i])
    v = load_variant(p)
    st = Match(v, seed=i).new_deal()
    n = 0
    while not st.is_terminal:
        st.apply(st.legal_actions()[0])
        n += 1
    # every card is played, after the calls of the auction and trump where there are
    assert n >= v.tricks * v.players


def test_guide_option_example_changes_the_match_end(tmp_path):
    src = next(e for e in EXAMPLES if "options:" in e)
    p = tmp_path / "opt.yaml"
    p.write_text(src)
    assert load_variant(p).options == {"game": 6}
    assert load_variant(p, {"game": 4}).options == {"game": 4}


def test_readme_starts_with_the_two_commands():
    head = (ROOT / "README.md").read_text().splitlines()[:5]
    assert any("make run" in line for line in head)
    assert any("make test" in line for line in head)


def _schema_keys(node, out):
    if isinstance(node, dict):
        for k, v in node.get("properties", {}).items():
            out.add(k)
            _schema_keys(v, out)
        for v in node.values():
            if isinstance(v, (dict, list)):
                _schema_keys(v, out)
    elif isinstance(node, list):
        for v in node:
            _schema_keys(v, out)
    return out


def test_guide_documents_every_key_name_and_function():
    import json

    from taash.interpreter.dsl import FUNCTIONS, HOOK_NAMES, NAMES
    schema = json.loads((ROOT / "grammar" / "variant.schema.json").read_text())
    keys = _schema_keys(schema, set()) - {"default", "choices"}
    names = set(NAMES) | set(FUNCTIONS) | {n for d in HOOK_NAMES.values() for n in d}
    missing = sorted(k for k in keys | names if f"`{k}" not in GUIDE and f"{k}:" not in GUIDE
                     and f"{k}(" not in GUIDE)
    assert missing == []


def test_guide_preset_example_switches_with_an_option(tmp_path):
    src = next(e for e in EXAMPLES if "presets:" in e)
    p = tmp_path / "presets.yaml"
    p.write_text(src)
    assert ">= 12" not in load_variant(p).sources["match.ends"]   # the rule, not its name (r12)
    assert ">= 12" in load_variant(p, {"long_match": True}).sources["match.ends"]


def test_guide_says_one_thing_about_a_flow_without_an_auction():
    # "The flow" once said every flow needs an auction, which the checker, the section "A
    # flow without an auction" and variants/court-piece.yaml contradict
    flow = GUIDE.split("\n### The flow\n", 1)[1].split("\n### ", 1)[0]
    assert "cannot be written" not in flow and "exactly one `auction`" not in flow
    assert "The `auction` step is optional" in flow
    assert not load_variant("court-piece").has_auction
