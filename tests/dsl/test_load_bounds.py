"""The bounds on reading an untrusted variant file (loader.Bounds) and on the problems a
VariantError keeps: each refused file gets one problem at the place it passed the bound,
worked out by hand from the text below (lines and columns 1-based)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taash.interpreter import VariantError, load_variant
from taash.interpreter.loader import VARIANTS_DIR, Bounds, More, Problem, format_problems

BASE = (VARIANTS_DIR / "28.yaml").read_text()
BASE_LINES = len(BASE.splitlines())


def problems_of(path: Path, **kw) -> list[Problem]:
    with pytest.raises(VariantError) as info:
        load_variant(path, **kw)
    return info.value.problems


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "sent.yaml"
    p.write_text(text)
    return p


def test_lines_past_the_bound_are_refused_at_the_first_line_too_many(tmp_path):
    path = write(tmp_path, BASE + "# a comment\n" * 30)
    [pr] = problems_of(path, bounds=Bounds(max_lines=BASE_LINES + 29))
    assert (pr.line, pr.column) == (BASE_LINES + 30, 1)
    assert pr.message == f"the file has {BASE_LINES + 30} lines; at most {BASE_LINES + 29}"
    load_variant(path, bounds=Bounds(max_lines=BASE_LINES + 30))     # one more line allowed: it loads


def test_bytes_past_the_bound_are_refused(tmp_path):
    path = write(tmp_path, BASE)
    [pr] = problems_of(path, bounds=Bounds(max_bytes=len(BASE.encode()) - 1))
    assert (pr.line, pr.message) == (0, f"the file is larger than {len(BASE.encode()) - 1} bytes")


def test_the_node_past_the_bound_is_named_and_nothing_after_it_is_read(tmp_path):
    # nodes: the mapping 1, key a 2, the list 3, its items 4 5 6: the item `3` is the sixth,
    # at column 11; the unclosed quote on line 2 is a YAML error that is never reached
    path = write(tmp_path, 'a: [1, 2, 3]\nb: "unclosed\n')
    [pr] = problems_of(path, bounds=Bounds(max_nodes=5))
    assert (pr.line, pr.column) == (1, 11)
    assert pr.message.startswith("the file has more than 5 YAML values")
    [pr] = problems_of(path)    # under the default bounds: the quote still open at the end (line 3)
    assert (pr.line, pr.column) == (3, 1) and pr.message.startswith("YAML: found unexpected end of stream")


def test_nesting_past_the_bound_is_refused_at_the_first_node_too_deep(tmp_path):
    # depth: the mapping 1, the lists 2 3 4, the scalar 1 at 5 (column 7)
    path = write(tmp_path, "a: [[[1]]]\n")
    [pr] = problems_of(path, bounds=Bounds(max_depth=4))
    assert (pr.line, pr.column) == (1, 7)
    assert pr.message == "the file nests more than 4 levels of mappings and lists"


def test_a_megabyte_of_open_brackets_stops_at_the_default_depth(tmp_path):
    path = write(tmp_path, "a: " + "[" * (1 << 20 - 8))
    [pr] = problems_of(path)
    # the mapping (level 1) and 63 lists (levels 2 to 64) are within 64 levels: the 64th
    # list, the 64th `[` after `a: ` (column 3 + 64 = 67), is past it
    assert (pr.line, pr.column) == (1, 67)
    assert "nests more than 64 levels" in pr.message


def test_problems_past_the_limit_are_counted_not_kept(tmp_path):
    # 150 unknown keys after the 28's text, one a line: each is a problem of its own
    path = write(tmp_path, BASE + "".join(f"extra{i}: {i}\n" for i in range(150)))
    prs = problems_of(path)
    assert len(prs) == 101
    assert [p.line for p in prs[:100]] == list(range(BASE_LINES + 1, BASE_LINES + 101))
    assert isinstance(prs[-1], More) and prs[-1].count == 50
    assert prs[-1].message == "and 50 more problems (the first 100 are listed)"
    prs = problems_of(path, max_problems=3)
    assert [p.line for p in prs] == [BASE_LINES + 1, BASE_LINES + 2, BASE_LINES + 3, 0]
    assert prs[-1].message == "and 147 more problems (the first 3 are listed)"


def test_a_count_of_more_problems_is_kept_last_when_problems_are_gathered_again(tmp_path):
    f = str(tmp_path / "x.yaml")
    err = VariantError([Problem(f, line, 1, "p") for line in range(10, 0, -1)], limit=4)
    again = VariantError(err.problems + [Problem(f, 20, 1, "q")], limit=4)
    assert [p.line for p in again.problems] == [1, 2, 3, 4, 0]
    assert again.problems[-1].count == 7        # the 6 counted before, and one more dropped


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(1, 30)), max_size=20))
def test_format_problems_reads_as_each_problem_formatted_alone(tmp_path_factory, places):
    d = tmp_path_factory.mktemp("fmt")
    path = d / "v.yaml"
    path.write_text("".join(f"line {i}: text\n" for i in range(1, 11)))
    prs = [Problem(str(path), line, col, "m") for line, col in places]
    assert format_problems(prs) == "\n".join(p.format() for p in prs)


def test_taash_check_counts_the_problems_it_does_not_list(tmp_path, capsys):
    from taash.arena.cli import main
    path = write(tmp_path, BASE + "".join(f"extra{i}: {i}\n" for i in range(150)))
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-2] == f"{path}: error: and 50 more problems (the first 100 are listed)"
    assert err[-1] == "150 problems in 1 of 1 file"
