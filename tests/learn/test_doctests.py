"""The documented examples of taash.learn's docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("pyspiel")


@pytest.mark.parametrize("name", ["encoding", "pettingzoo", "openspiel", "policy", "train", "rewards", "single", "vector",
                                  "picture"])
def test_docstring_examples_run(name):
    mod = importlib.import_module(f"taash.learn.{name}")
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0
