"""The engine's documented examples run: docs/engine.md and the docstrings of interpreter/."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import taash.interpreter as interpreter

ROOT = Path(__file__).resolve().parents[2]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def test_engine_md_examples_run():
    res = doctest.testfile(str(ROOT / "docs" / "engine.md"), module_relative=False, optionflags=FLAGS)
    assert res.attempted >= 15, "docs/engine.md lost its examples"
    assert res.failed == 0


@pytest.mark.parametrize("name", sorted(m.name for m in pkgutil.iter_modules(interpreter.__path__)))
def test_docstring_examples_run(name):
    mod = importlib.import_module(f"taash.interpreter.{name}")
    res = doctest.testmod(mod, optionflags=FLAGS)
    assert res.failed == 0
