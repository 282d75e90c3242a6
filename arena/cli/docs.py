"""`taash docs`: the documentation that ships inside the package (the core install).

    taash docs                       # list the documents and worked examples
    taash docs engine                # print one (a name, ``engine.md``, or ``docs/engine.md``)
    taash docs rules §29.7           # one numbered point or section of it, as the CLI cites it
    taash docs protocol Limits       # a section by its heading
    taash docs examples/queen-hunt   # a worked example (``queen-hunt``, ``docs/examples/queen-hunt.yaml``)

The documents are the repository's ``docs/*.md`` and ``docs/examples/*.yaml``, shipped as
the package data ``taash.docs`` (pyproject.toml); in a checkout, the ``docs/`` folder
itself (``taash.interpreter.loader.data_dir``). Every citation the CLI prints, such as
a rulebook's "docs/rules.md §29.7", opens with ``taash docs rules §29.7``.
"""

from __future__ import annotations

import re
from pathlib import Path

from taash.interpreter.loader import data_dir

from ..errors import UsageError

# other names a reader may use for a document
ALIASES = {"guide": "authoring", "contract": "engine", "rulebook": "rules"}
# a numbered point of docs/rules.md: **29.7 Title.**, **304s.1 ...**, **CP.3 ...**, **G1 ...**
POINT = re.compile(r"^\*\*(§?[0-9A-Za-z]*[0-9][0-9A-Za-z]*(?:\.[0-9A-Za-z]+)*|[A-Z]+\.[0-9]+[a-z]?) ")
HEADING = re.compile(r"^(#+)\s+(.*)$")


def docs_dir() -> Path:
    """The folder of the shipped documents."""
    return data_dir("docs")


def documents() -> dict[str, Path]:
    """{name: path}: each ``docs/NAME.md`` by its stem, each worked example as
    ``examples/NAME``, sorted by name."""
    root = docs_dir()
    out = {p.stem: p for p in sorted(root.glob("*.md"))}
    out.update({f"examples/{p.stem}": p for p in sorted((root / "examples").glob("*.yaml"))})
    return out


def title_of(path: Path) -> str:
    """A document's first heading, or an example's ``title:``."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if path.suffix == ".md" and line.startswith("# "):
            return line[2:].strip()
        if path.suffix == ".yaml" and line.startswith("title:"):
            return line.partition(":")[2].strip().strip("\"'")
    return ""


def find(name: str) -> Path:
    """The document ``name`` as a reader or a citation writes it: ``rules``, ``rules.md``,
    ``docs/rules.md``, ``examples/queen-hunt``, ``queen-hunt``,
    ``docs/examples/queen-hunt.yaml``, or an alias (``guide``). Raises UsageError naming
    the documents."""
    docs = documents()
    key = name.strip().removeprefix("./").removeprefix("docs/")
    for suffix in (".md", ".yaml"):
        key = key.removesuffix(suffix)
    key = ALIASES.get(key, key)
    if key in docs:
        return docs[key]
    if f"examples/{key}" in docs:
        return docs[f"examples/{key}"]
    raise UsageError(f"docs: no document {name!r}; the documents: {', '.join(docs)} "
                     f"(and {', '.join(f'{a} = {b}' for a, b in ALIASES.items())})")


def section(text: str, wanted: str) -> str:
    """The part of a Markdown ``text`` that ``wanted`` names: a section mark (``§29``,
    ``§29.7``, ``29.7``), first as a numbered point (a paragraph starting ``**29.7 ``, to
    the next point or heading), else as a heading that carries the mark (to the next
    heading of its level or above); or a heading's words (``Limits``). Raises UsageError
    when nothing matches. Lines inside fenced code blocks (```) are never headings or
    points: a YAML comment there starts with ``#`` too."""
    lines = text.splitlines()
    fenced, inside = [], False
    for line in lines:
        if line.lstrip().startswith("```"):
            inside = not inside
            fenced.append(True)
        else:
            fenced.append(inside)

    def heading(k):
        return None if fenced[k] else HEADING.match(lines[k])

    def point(k):
        return None if fenced[k] else POINT.match(lines[k])

    mark = wanted.strip().removeprefix("§")
    for i in range(len(lines)):
        m = point(i)
        if m and m.group(1).removeprefix("§") == mark:
            end = i + 1
            while end < len(lines) and not point(end) and not heading(end):
                end += 1
            return "\n".join(lines[i:end]).rstrip() + "\n"
    words = wanted.strip().lower()
    for i in range(len(lines)):
        h = heading(i)
        if not h:
            continue
        title = h.group(2).strip()
        tokens = title.split()
        if f"§{mark}" in tokens or title.lower() == words or title.lower().startswith(words + " "):
            level = len(h.group(1))
            end = i + 1
            while end < len(lines):
                h2 = heading(end)
                if h2 and len(h2.group(1)) <= level:
                    break
                end += 1
            return "\n".join(lines[i:end]).rstrip() + "\n"
    raise UsageError(f"docs: no section {wanted!r} in this document (a mark such as §29.7, or a heading's words)")


def cmd_docs(args) -> int:
    if not args.name:
        docs = documents()
        width = max(len(n) for n in docs)
        for name, path in docs.items():
            print(f"{name:{width}}  {title_of(path)}")
        print(f"\n`taash docs NAME` prints one; `taash docs NAME §29.7` (or a heading's words) one section of it. "
              f"Aliases: {', '.join(f'{a} = {b}' for a, b in ALIASES.items())}.")
        return 0
    path = find(args.name)
    text = path.read_text(encoding="utf-8")
    if args.section:
        text = section(text, " ".join(args.section))
    if args.path:
        print(path)
        return 0
    print(text, end="" if text.endswith("\n") else "\n")
    return 0


def add_commands(sub) -> None:
    """Register `taash docs` on the subparsers of `taash`."""
    d = sub.add_parser("docs", help="list and print the documentation shipped with taash (guide, engine, "
                                    "protocol, learning, records, rules, examples)")
    d.add_argument("name", nargs="?", metavar="NAME", help="a document (rules, engine, docs/learning.md, "
                                                         "examples/queen-hunt, ...); none: list them")
    d.add_argument("section", nargs="*", metavar="SECTION", help="a section: §29.7, or a heading's words")
    d.add_argument("--path", action="store_true", help="print the file's path instead (to copy an example)")
    d.set_defaults(fn=cmd_docs)
