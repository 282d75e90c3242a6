"""The tables of names, assignable names and functions in docs/authoring.md, made from
the DSL registry (interpreter/dsl/names.py); tests/dsl/test_registry.py checks they are current.

``python -m taash.interpreter.dsl.guide`` prints them; ``python -m taash.interpreter.dsl.guide --write
docs/authoring.md`` replaces them in the guide, between the ``registry tables`` markers.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .names import ASSIGNABLE_ENTRIES, FUNCTION_ENTRIES, ME, NAME_ENTRIES

BEGIN = ("<!-- registry tables: made from interpreter/dsl/names.py by "
         "`python -m taash.interpreter.dsl.guide --write docs/authoring.md`; do not edit by hand -->")
END = "<!-- end of registry tables -->"


def guide_tables() -> str:
    """The Markdown tables: names (with their type), assignable names, functions."""
    out = ["Names the engine supplies:", "", "| name | type | value |", "|---|---|---|"]
    out += [f"| `{e.name}` | {e.type} | {e.doc} |" for e in NAME_ENTRIES]
    out += ["", "Names an effect may change (`=`, `+=`, `-=`):", "",
            "| name | type | example | what it changes |", "|---|---|---|---|"]
    out += [f"| `{e.name}` | {e.type} | `{e.form}` | {e.doc} |" for e in ASSIGNABLE_ENTRIES]
    out += ["", "Functions:", "", "| function | type | value |", "|---|---|---|"]
    out += [f"| `{e.signature}` | {e.type} | {e.doc} |" for e in FUNCTION_ENTRIES]
    out += ["", "Who `me` is: every rule is asked for one seat, `me` (and so `my_side`, `hand`,",
            "`my_side_tricks`, `higher(...)`):", "", "| rule | `me` |", "|---|---|"]
    out += [f"| `{hook}` | {who} |" for hook, who in ME.items()]
    return "\n".join(out)


def with_tables(guide: str) -> str:
    """``guide`` with the text between the markers replaced by ``guide_tables()``.
    Raises ValueError when the guide lacks the markers."""
    head, sep, rest = guide.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError("the guide has no registry table markers")
    return f"{head}{BEGIN}\n\n{guide_tables()}\n\n{END}{tail}"


def main(argv: list[str]) -> int:
    """Print the tables, or with ``--write GUIDE`` write them into the guide."""
    if len(argv) == 2 and argv[0] == "--write":
        p = Path(argv[1])
        p.write_text(with_tables(p.read_text()))
        return 0
    if argv:
        print("usage: python -m taash.interpreter.dsl.guide [--write docs/authoring.md]", file=sys.stderr)
        return 2
    print(guide_tables())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
