"""The test suite, by component:

    tests/engine/   the engine's API, properties, records, the `taash` command line
    tests/dsl/      the variant language: loading, broken files, fuzzing, rulebooks, docs
    tests/rules/    docs/rules.md case by case, per game and house rule
    tests/arena/    the gRPC arena, bots, faults
    tests/ladder/   the ladder
    tests/learn/    the learning environments (PettingZoo, OpenSpiel), the policy bot
    tests/kernel/   the compiled kernel against the engine (skipped without numba)
    tests/playthroughs/, tests/records/   golden games and old records (the engine's contract)
    tests/helpers/  helpers shared by the tests

``tests`` and its folders are packages (``__init__.py``), so pytest's default import mode
puts the project root on ``sys.path`` and test modules are ``tests.<component>.<name>``:
two folders may hold test files of the same name, and helpers are imported as
``from tests.helpers.rules import ...``. No test file edits ``sys.path``.

Tests marked ``@pytest.mark.slow`` (marker registered in pyproject.toml) run with the rest
under ``make test``; ``.venv/bin/python -m pytest -m "not slow"`` is the quick run.
"""
