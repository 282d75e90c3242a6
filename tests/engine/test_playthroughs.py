"""Golden playthroughs (tests/playthroughs/): for each shipped variant, one deal written out
decision by decision (seat, observation summary, legal actions, action) and its result,
from the engine at main 893837c. The engine must play the same from the same cards.

On a mismatch the test prints a unified diff (golden -> engine now). If a rule or the
engine's contract changed on purpose, regenerate and review the diff:

    python -m tests.playthroughs --update      (make playthroughs)
"""

from __future__ import annotations

import pytest

from taash.interpreter import shipped_variants

from tests.playthroughs import diff, parse_header, path_for


@pytest.mark.parametrize("name", shipped_variants())
def test_playthrough_is_unchanged(name):
    path = path_for(name)
    assert path.is_file(), f"no golden playthrough for {name}: python -m tests.playthroughs --update {name}"
    assert parse_header(path.read_text())[0] == name
    d = diff(path)
    assert not d, f"the engine no longer plays {path.name} as recorded:\n{d}"


def test_a_changed_action_shows_as_a_diff(tmp_path):
    """The comparison can fail: a golden file with one action changed differs, and the
    diff names that line."""
    src = path_for("29").read_text().splitlines(True)
    k = next(i for i, ln in enumerate(src) if ln.startswith("  > play "))
    src[k] = "  > play XX\n"
    p = tmp_path / "29.txt"
    p.write_text("".join(src))
    d = diff(p)
    assert "\n-  > play XX\n" in d and d.count("\n-  > ") == 1, d
