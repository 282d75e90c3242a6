"""The arena's open files: the soft limit raised at start as far as the hard limit allows
(`raise_open_files`), and the connections the server may hold within it
(`connection_cap`: docs/protocol.md, "Limits")."""

from __future__ import annotations

import resource

# open files kept apart from the connections: the store's database and its WAL, record
# files being written, the variant checker's children, logs, gRPC's own descriptors
RESERVED_FILES = 256


def raise_open_files() -> tuple[int, int, int]:
    """Raise this process's soft limit of open files (RLIMIT_NOFILE) to its hard limit.
    Returns (the soft limit before, after, the hard limit); when the system refuses,
    the limit stays as it was."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if want > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        except (ValueError, OSError):
            want = soft
    return soft, max(soft, want), hard


def connection_cap(open_files: int, asked: int = 0, files_each: int = 1) -> int:
    """The connections the server accepts at once: ``asked`` (a flag; 0: none asked),
    at most the open files less `RESERVED_FILES`, ``files_each`` a connection (3 through
    the front door: the client's, the relay's and gRPC's end of it), and at least 1."""
    room = max(1, (open_files - RESERVED_FILES) // files_each)
    return min(asked, room) if asked > 0 else room
