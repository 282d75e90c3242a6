"""`taash docs`: the documents shipped in the package, listed, printed, cut to a section;
every citation the CLI prints opens that way; README paths resolve without a checkout."""

from __future__ import annotations

import re

import pytest

from taash.arena.cli import main
from taash.interpreter import shipped_variants

from tests.helpers import ROOT

CITATION = re.compile(r"docs/([a-z-]+)\.md((?:,? §[0-9A-Za-z.]*[0-9A-Za-z])*)")


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_list_names_every_document_and_example(capsys):
    code, out, _ = run(capsys, "docs")
    assert code == 0
    names = {line.split()[0] for line in out.splitlines() if line and not line.startswith("`")}
    want = {p.stem for p in (ROOT / "docs").glob("*.md")} | {f"examples/{p.stem}" for p in
                                                            (ROOT / "docs" / "examples").glob("*.yaml")}
    assert names == want
    assert {"authoring", "engine", "protocol", "learning", "records", "rules", "examples/queen-hunt"} <= names
    assert "rules                      The rules taash implements" in out


@pytest.mark.parametrize("name", ["engine", "engine.md", "docs/engine.md", "contract"])
def test_a_document_by_any_of_its_names(capsys, name):
    code, out, _ = run(capsys, "docs", name)
    assert code == 0 and out == (ROOT / "docs" / "engine.md").read_text(encoding="utf-8")


def test_an_example(capsys):
    for name in ("examples/queen-hunt", "queen-hunt", "docs/examples/queen-hunt.yaml"):
        code, out, _ = run(capsys, "docs", name)
        assert code == 0 and out == (ROOT / "docs" / "examples" / "queen-hunt.yaml").read_text(encoding="utf-8")


def test_a_numbered_point_is_its_paragraph(capsys):
    """§29.7 of docs/rules.md: from "**29.7 Royals.**" to the line before "**29.8"."""
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    start = text.index("**29.7 Royals.**")
    want = text[start:text.index("**29.8 ", start)].rstrip() + "\n"
    for mark in ("§29.7", "29.7"):
        code, out, _ = run(capsys, "docs", "rules", mark)
        assert code == 0 and out == want


def test_a_section_mark_is_its_heading_to_the_next(capsys):
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    start = text.index("## §304s Solo 304 with a widow")
    want = text[start:text.index("\n## ", start + 1)].rstrip() + "\n"
    code, out, _ = run(capsys, "docs", "rules", "§304s")
    assert code == 0 and out == want
    code, out, _ = run(capsys, "docs", "protocol", "Limits")
    assert code == 0 and out.startswith("## Limits\n") and "\n## " not in out


def test_a_comment_in_a_code_block_is_no_heading(capsys):
    """The guide's section on a hand size by deal shows a YAML file whose first line is a
    comment (``# Judgement ...``): the section runs on to the next heading of its level,
    past the code block, not to that comment."""
    text = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
    start = text.index("### A hand size that changes by deal")
    want = text[start:min(text.index("\n### ", start + 1), text.index("\n## ", start + 1))].rstrip() + "\n"
    code, out, _ = run(capsys, "docs", "authoring", "A hand size that changes by deal")
    assert code == 0 and out == want
    assert "\n```yaml\n# " in out and out.count("```") % 2 == 0


def test_unknown_documents_and_sections_are_one_clear_error(capsys):
    code, _, err = run(capsys, "docs", "nope")
    assert code == 2 and err.startswith("taash: error: docs: no document 'nope'; the documents: architecture, ")
    nowhere = "\u00a7" + "99.9"      # a mark no section has (written so, it cites nothing)
    code, _, err = run(capsys, "docs", "rules", nowhere)
    assert code == 2 and f"no section '{nowhere}'" in err


def test_every_citation_the_rulebooks_print_opens(capsys):
    """Each citation "docs/NAME.md" and its section marks in `taash rules V` of every
    shipped variant (each mark of a list) opens with `taash docs NAME MARK`."""
    seen = 0
    for v in shipped_variants():
        code, out, _ = run(capsys, "rules", v)
        assert code == 0
        for doc, marks in CITATION.findall(out):
            assert run(capsys, "docs", doc)[0] == 0
            for mark in re.findall(r"§[0-9A-Za-z.]*[0-9A-Za-z]", marks):
                code, text, err = run(capsys, "docs", doc, mark)
                assert code == 0, (v, doc, mark, err)
                assert mark.removeprefix("§") in text.splitlines()[0]
                seen += 1
    assert seen >= len(shipped_variants())


def test_readme_paths_resolve_outside_a_checkout(tmp_path, monkeypatch, capsys):
    """In a folder with no variants/ or docs/ (as after `pip install taash`), the README's
    `taash check variants/29.yaml ...` and `taash rules docs/examples/queen-hunt.yaml`
    read the shipped files."""
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "check", "variants/29.yaml", "variants/house/29-double.yaml")
    assert code == 0 and out == "variants/29.yaml: ok\nvariants/house/29-double.yaml: ok\n"
    code, out, _ = run(capsys, "rules", "docs/examples/queen-hunt.yaml")
    assert code == 0 and out.startswith("# Queen hunt")
    code, _, err = run(capsys, "check", "variants/nope.yaml")
    assert code == 1 and "variants/nope.yaml" in err
