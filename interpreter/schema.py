"""The variant file's JSON Schema, made of the engine's part and each mechanic's.

grammar/variant.core.schema.json holds the engine's part (the file's name, players, the
deck, options, the flow with its `deal:` steps, presets...); each mechanic declares its
own (`Mechanic.schema`: the top-level sections it reads, those required, its named flow
steps and the objects of its flow steps: widow.py's `exchange` and `widow: N`).
`variant_schema()` joins them in the list's order (interpreter/mechanics.py).
grammar/variant.schema.json, which the loader checks every file with (and an editor may
read), is its output, written by ``python -m taash.interpreter.schema --write
grammar/variant.schema.json`` (``make docs``); tests/engine/test_mechanics.py holds the
two equal.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

from .loader import data_dir
from .mechanics import MECHANICS

CORE_PATH = data_dir("grammar") / "variant.core.schema.json"


def variant_schema() -> dict:
    """The variant file's schema (a JSON Schema, draft 2020-12, as a dict): the engine's
    part with each mechanic's sections added to its properties (and to ``required``),
    its named steps to the flow's step names, its step objects to the flow's steps.
    Raises ValueError when two parts declare one section or step."""
    schema = json.loads(CORE_PATH.read_text(encoding="utf-8"))
    props, required = schema["properties"], schema["required"]
    steps = schema["properties"]["flow"]["items"]["oneOf"]
    names = steps[0]["enum"]
    for m in MECHANICS:
        part = copy.deepcopy(m.schema)
        for key, sub in part.get("properties", {}).items():
            if key in props:
                raise ValueError(f"mechanic {m.name}: the section {key!r} is declared twice")
            props[key] = sub
        required += part.get("required", [])
        for step in part.get("steps", []):
            if step in names:
                raise ValueError(f"mechanic {m.name}: the flow step {step!r} is declared twice")
            names.append(step)
        steps += part.get("step_objects", [])
    return schema


def schema_text() -> str:
    """`variant_schema()` as grammar/variant.schema.json holds it."""
    return json.dumps(variant_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    """Print the schema, or with ``--write PATH`` write it there."""
    if len(argv) == 2 and argv[0] == "--write":
        Path(argv[1]).write_text(schema_text(), encoding="utf-8")
        return 0
    if argv:
        print("usage: python -m taash.interpreter.schema [--write grammar/variant.schema.json]",
              file=sys.stderr)
        return 2
    sys.stdout.write(schema_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
