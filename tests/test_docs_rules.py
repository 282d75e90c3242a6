"""The repository stands alone: every §-citation in the code, the variant files, the docs
and the tests names a section or a point of docs/rules.md, and no file names the working
notes kept outside the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"

# a citation: §0.10, §29b.4, §304s.2, §H, §G5, §CP.3 (a trailing full stop is the sentence's)
CITED = re.compile(r"§\s*([0-9]+[a-z]?(?:\.[0-9]+)*|[A-Z]+[0-9]*(?:\.[0-9]+)*)")
# in docs/rules.md a section is a heading "## §29b Title", a point starts a line "**29b.4 ..."
HEADING = re.compile(r"^## §(\S+)", re.M)
POINT = re.compile(r"^\*\*([0-9]+[a-z]?\.[0-9]+|[A-Z]+\.[0-9]+|G[0-9]+)\b", re.M)

# sections of books, not of docs/rules.md: (file, section)
OTHER_BOOKS = {
    ("arena/bots/search.py", "4.2"),  # Glasserman, "Monte Carlo Methods in Financial Engineering"
    ("interpreter/information.py", "II.3"),  # Devroye, "Non-Uniform Random Variate Generation"
    ("arena/bots/ismcts.py", "IV"),  # Cowling, Powley and Whitehouse, "Information Set MCTS"
}

CITING = ("interpreter", "arena", "variants", "docs", "tests", "taash", "bench", "grammar", "README.md")
# the working notes outside the repository, by the names they had there
OUTSIDE = re.compile(r"RULES\.md|DESIGN\.md|\.\./shared|protocols/bhoos")


def tracked(*paths: str) -> list[Path]:
    """The text files git tracks under ``paths`` (relative to the repository's root)."""
    out = subprocess.run(["git", "ls-files", "-z", "--", *paths], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    files = []
    for name in out.split("\0"):
        path = ROOT / name
        if name and path.is_file() and path.suffix not in {".png", ".jpg", ".svg", ".ico", ".sqlite3"}:
            files.append(path)
    return files


def read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return ""


def sections() -> set[str]:
    """The section and point names of docs/rules.md: {"0", "0.1", ..., "29b.4", "H", "G5"}."""
    text = RULES.read_text(encoding="utf-8")
    return set(HEADING.findall(text)) | set(POINT.findall(text))


def test_sections_are_found():
    names = sections()
    # worked out from the page: every point of the common ground, the house rules, the golden cases
    assert {f"0.{i}" for i in range(1, 11)} <= names
    assert {"0", "56", "29", "28", "304", "304s", "29b", "CP", "H", "G"} <= names
    assert {f"G{i}" for i in range(1, 11)} <= names
    assert {"29b.9", "304s.5", "28.11", "56.8", "304.12", "29.10"} <= names


def test_every_citation_names_a_section():
    names = sections()
    missing = []
    for path in tracked(*CITING):
        rel = path.relative_to(ROOT).as_posix()
        for n, line in enumerate(read(path).splitlines(), 1):
            for m in CITED.finditer(line):
                name = m.group(1).rstrip(".")
                if (rel, name) not in OTHER_BOOKS and name not in names:
                    missing.append(f"{rel}:{n}: §{name}")
    assert missing == []


def test_citation_pattern():
    found = [m.group(1).rstrip(".") for m in CITED.finditer("§0.10. §29b.4, §304s.2 §H §G5 (§28.5-28.8)")]
    assert found == ["0.10", "29b.4", "304s.2", "H", "G5", "28.5"]


def test_no_file_names_the_notes_outside():
    found = []
    for path in tracked("."):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "tests/test_docs_rules.py":
            continue
        for n, line in enumerate(read(path).splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{rel}:{n}: {line.strip()[:80]}")
    assert found == []
