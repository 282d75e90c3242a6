"""`taash proto --out DIR`: the wire contract of this install, written for other languages.

Writes DIR/taash/arena/v1/arena.proto, DIR/taash/arena/v1/messages.proto (the gRPC
service and its messages, docs/protocol.md) and DIR/observation.schema.json (the JSON
Schema of an observation), ready for ``protoc -I DIR``. The files are the package data
`taash.proto` (the repository's proto/ folder), so the core install has them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from taash.interpreter.loader import data_dir

from ..errors import UsageError

# the files of the contract, relative to the proto data folder and to DIR alike
FILES = ("taash/arena/v1/arena.proto", "taash/arena/v1/messages.proto", "observation.schema.json")


def write_contract(out: Path) -> list[Path]:
    """Copy the contract's `FILES` under ``out`` (made if missing, with its parents);
    the paths written. Raises OSError."""
    src = data_dir("proto")
    written = []
    for rel in FILES:
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / rel, target)
        written.append(target)
    return written


def cmd_proto(args) -> int:
    """Write the contract; print each file written."""
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {args.out}: not a folder")
    try:
        written = write_contract(out)
    except OSError as e:
        raise UsageError(f"cannot write the contract in {args.out}: {e.strerror or e}") from None
    for p in written:
        print(p)
    return 0


def add_commands(sub) -> None:
    """Register `taash proto` on the subparsers of `taash`."""
    p = sub.add_parser("proto", help="write the wire contract (.proto files, observation schema) for protoc -I DIR")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="the folder to write DIR/taash/arena/v1/*.proto and DIR/observation.schema.json in")
    p.set_defaults(fn=cmd_proto)
