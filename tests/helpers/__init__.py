"""Helpers shared by the tests, imported as ``tests.helpers.X`` (``tests`` is a package, so
pytest puts the project root, not ``tests/``, on ``sys.path``; see tests/conftest.py).

- ``rules``, ``rules2``: hand-built deals and play helpers for tests/rules/.
- ``props``: oracles written from docs/rules.md for tests/engine/test_properties.py.
- ``arena_util``: `taash arena serve` and bots as real processes, for tests/arena/, tests/ladder/.
- ``fault_bot``: a misbehaving bot, run as its own process (``python -m tests.helpers.fault_bot``).
- ``hostile``: raw gRPC clients of the arena (many streams, floods, hellos, a late bot, an
  unread stream), each run as its own process (``python -m tests.helpers.hostile``).
"""

import signal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The project's root directory (the one holding pyproject.toml)."""


def sigint_default() -> None:
    """A ``preexec_fn`` for a child a test will stop with SIGINT (Ctrl-C): SIGINT back to
    its default action. A shell runs a background job with SIGINT ignored (no job
    control), the child inherits that, and Python then sets no KeyboardInterrupt handler:
    the test's Ctrl-C would be lost when the tests themselves run in the background."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
