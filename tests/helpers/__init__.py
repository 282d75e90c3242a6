"""Helpers shared by the tests, imported as ``tests.helpers.X`` (``tests`` is a package, so
pytest puts the project root, not ``tests/``, on ``sys.path``; see tests/conftest.py).

- ``rules``, ``rules2``: hand-built deals and play helpers for tests/rules/.
- ``props``: oracles written from docs/rules.md for tests/engine/test_properties.py.
- ``arena_util``: `taash arena serve` and bots as real processes, for tests/arena/, tests/ladder/.
- ``fault_bot``: a misbehaving bot, run as its own process (``python -m tests.helpers.fault_bot``).
- ``readline``: a child's next line of output, with a timeout (here).
- ``hostile``: raw gRPC clients of the arena (many streams, floods, hellos, a late bot, an
  unread stream), each run as its own process (``python -m tests.helpers.hostile``).
"""

import signal
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The project's root directory (the one holding pyproject.toml)."""


def sigint_default() -> None:
    """A ``preexec_fn`` for a child a test will stop with SIGINT (Ctrl-C): SIGINT back to
    its default action. A shell runs a background job with SIGINT ignored (no job
    control), the child inherits that, and Python then sets no KeyboardInterrupt handler:
    the test's Ctrl-C would be lost when the tests themselves run in the background."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def readline(stream, timeout_s: float = 60.0) -> str:
    """``stream.readline()`` of a child's pipe, waiting at most ``timeout_s`` seconds: a
    child that is stuck, or dead while another process (its own child) holds the pipe
    open, fails the test with AssertionError rather than hanging it. The line ("" at end
    of output) is read on a thread; after a timeout that thread is left blocked until
    the pipe closes (the test stops the child), so the stream is not read again."""
    got: list = []

    def read():
        try:
            got.append(stream.readline())
        except BaseException as e:      # a closed stream: raised in the test's thread below
            got.append(e)
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout_s)
    if not got:
        raise AssertionError(f"no line of output from the child in {timeout_s:g} s")
    if isinstance(got[0], BaseException):
        raise got[0]
    return got[0]
