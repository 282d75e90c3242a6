"""Helpers shared by the tests, imported as ``tests.helpers.X`` (``tests`` is a package, so
pytest puts the project root, not ``tests/``, on ``sys.path``; see tests/conftest.py).

- ``rules``, ``rules2``: hand-built deals and play helpers for tests/rules/.
- ``props``: oracles written from docs/rules.md for tests/engine/test_properties.py.
- ``arena_util``: `taash arena serve` and bots as real processes, for tests/arena/, tests/ladder/.
- ``fault_bot``: a misbehaving bot, run as its own process (``python -m tests.helpers.fault_bot``).
- ``hostile``: raw gRPC clients of the arena (many streams, floods, hellos, a late bot, an
  unread stream), each run as its own process (``python -m tests.helpers.hostile``).
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The project's root directory (the one holding pyproject.toml)."""
