"""DESIGN.md, "Layout": `interpreter` imports neither gRPC nor protobuf nor the arena, and
names no game (tools/generic_check.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT.parent / "shared" / "tools" / "generic_check.py"


def test_interpreter_imports_no_grpc_protobuf_or_arena():
    code = ("import sys, interpreter, interpreter.records, interpreter.rulebook;"
            "from interpreter import load_variant, State;"
            "st = State(load_variant('28'), seed=1); st.observation(0);"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('grpc', 'google', 'arena'));"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == ""


def test_interpreter_names_no_game():
    if not CHECK.is_file():
        import pytest
        pytest.skip(f"{CHECK} not found")
    out = subprocess.run([sys.executable, str(CHECK), str(ROOT / "interpreter")], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
