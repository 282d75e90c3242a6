"""Flow sizes written as rules on the options (docs/authoring.md, "Sizes that depend on
the options"): a packet of `deal:` and a `widow:` size worked out as the file loads.

Worked by hand on the guide's example (304-solo, 3 players, 32 cards): short false deals
5 + 5 to each seat and 2 to the widow (30 + 2); short true 5 + 4 and 5 (27 + 5).
"""

from __future__ import annotations

import re

import pytest

from taash.interpreter import Match, load_variant
from taash.interpreter.variant import check_files

from tests.dsl.test_broken_files import check
from tests.helpers import ROOT

GUIDE = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
SIZES = re.search(r"```yaml\n(extends: \"304-solo\"\nname: sizes-example\n.*?)```", GUIDE, re.S).group(1)


def write(tmp_path, text):
    p = tmp_path / "sizes.yaml"
    p.write_text(text)
    return p


@pytest.mark.parametrize("short,per_seat,widow", [(False, 10, 2), (True, 9, 5)])
def test_the_sizes_follow_the_option(tmp_path, short, per_seat, widow):
    v = load_variant(write(tmp_path, SIZES), {"short": short})
    assert (v.cards_per_seat, v.widow_size, v.tricks) == (per_seat, widow, per_seat)
    st = Match(v, seed=1).new_deal()
    assert len(st.widow) == widow and sum(len(d) for d in st.dealt) == 3 * per_seat


# lines of SIZES: 8 `  - deal: [5, "4 if short else 5"]`, 9 `  - widow: "5 if short else 2"`
BROKEN = {
    "a name that is no option": (SIZES.replace("5 if short else 2", "5 if shrt else 2"), {}, 9, 18,
                                 "'shrt' is not an option; a preset's condition or a flow's size may use only options"),
    "a size of 0": (SIZES.replace("5 if short else 2", "5 if short else 0"), {}, 9, 12,
                    "flow.1.widow: a size must be a number of 1 or more from the options, not 0"),
    "a size from the deal": (SIZES.replace("4 if short else 5", "5 - deals_played"), {}, 8, 20,
                             "'deals_played' is not an option"),
    "one option value deals too few cards": (
        SIZES.replace("5 if short else 2", "4 if short else 2"), {"short": True}, 8, 3,
        "the flow deals 9 cards to each of 3 players and 4 to the widow (31), but the deck has 32"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_file(tmp_path, case):
    text, options, line, column, fragment = BROKEN[case]
    check(write(tmp_path, text), line, column, fragment, options=options)


def test_check_tries_every_option_value(tmp_path):
    """The default (short false) loads; `check` finds the combination that does not."""
    p = write(tmp_path, SIZES.replace("5 if short else 2", "4 if short else 2"))
    load_variant(p)
    found = check_files([p])
    assert [x.message for x in found] == [
        "with --set short=true: the flow deals 9 cards to each of 3 players and 4 to the widow "
        "(31), but the deck has 32"]
