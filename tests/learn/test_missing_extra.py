"""Without the learn extra's libraries, each module of taash.learn raises an ImportError
that names the extra to install, with the library's own error as its cause. The missing
library is simulated in a fresh interpreter (``sys.modules[name] = None`` makes its
import fail as if it were not installed)."""

import subprocess
import sys

import pytest

PROBE = """
import sys
sys.modules[{missing!r}] = None
try:
    import {module}
except ImportError as e:
    print(type(e).__name__, type(e.__cause__).__name__, e, sep="|")
else:
    print("imported")
"""


@pytest.mark.parametrize("module, missing", [
    ("taash.learn.pettingzoo", "numpy"),
    ("taash.learn.pettingzoo", "pettingzoo"),
    ("taash.learn.encoding", "numpy"),
    ("taash.learn.kernelplay", "numpy"),
    ("taash.learn.policy", "numpy"),
    ("taash.learn.train", "numpy"),
    ("taash.learn.openspiel", "pyspiel"),
    ("taash.learn.single", "gymnasium"),
    ("taash.learn.picture", "PIL"),
    ("taash.learn.ppo", "torch"),
    ("taash.learn.ppo", "sb3_contrib"),
])
def test_a_missing_library_names_the_extra(module, missing):
    extra = "train" if module == "taash.learn.ppo" else "learn"
    out = subprocess.run([sys.executable, "-c", PROBE.format(module=module, missing=missing)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    kind, cause, message = out.stdout.strip().split("|")
    assert kind == "ImportError"
    assert cause in ("ImportError", "ModuleNotFoundError")
    assert f"({missing} is not installed)" in message
    assert message.endswith(f"pip install 'taash[{extra}]'") and f"needs the {extra} extra" in message
    assert "Traceback" not in out.stderr
