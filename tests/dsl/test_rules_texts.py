"""docs/rules/*.md are the rulebooks of the shipped variants as `taash rules` prints them;
regenerate with `make docs` when a variant changes."""

import pytest

from taash.interpreter import load_variant, shipped_variants
from taash.interpreter.rulebook import render

from tests.helpers import ROOT

DOCS = ROOT / "docs" / "rules"


@pytest.mark.parametrize("name", shipped_variants())
def test_rules_text_is_current(name):
    path = DOCS / f"{name}.md"
    assert path.is_file(), f"missing {path}: run `make docs`"
    assert path.read_text() == render(load_variant(name)), f"{path} is stale: run `make docs`"
