"""The kernel's cache on disk when it is damaged or cannot be used: the kernel is compiled
again, or the engine plays and says why; never a crash (each case in a fresh process,
as a user meets it: the compiled modules of a process are kept for its life)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest


pytestmark = pytest.mark.slow

_PROBE = """
import sys, warnings
from taash.interpreter import Match, load_variant
from taash.kernel import KernelFallback, kernel_for
with warnings.catch_warnings(record=True) as said:
    warnings.simplefilter("always")
    k = kernel_for(load_variant("29"), cache_dir=sys.argv[1])
told = [str(w.message) for w in said if issubclass(w.category, KernelFallback)]
if k is None:
    print("ENGINE", told)
else:
    st = Match(load_variant("29"), seed=4).new_deal()
    while st.phase != "play":
        st.apply_id(st.legal_ids()[0])
    print("KERNEL", k.legal(k.state(st)) == st.legal_ids(), told)
"""


def probe(cache) -> str:
    out = subprocess.run([sys.executable, "-c", _PROBE, str(cache)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """A cache holding 29's kernel, compiled by a fresh process (this one may hold the
    module already, made from another cache, and would write no machine code here)."""
    cache = tmp_path_factory.mktemp("kernel-29")
    assert probe(cache) == "KERNEL True []"
    return cache


@pytest.mark.parametrize("damage", ["cut", "empty-index", "module-cut"])
def test_a_damaged_cache_is_compiled_again(compiled, tmp_path, damage):
    cache = tmp_path / "cache"
    shutil.copytree(compiled, cache)
    mods = [p for p in cache.glob("taash_kernel_*.py")]
    data = list(cache.glob("__pycache__/*.nbc"))
    index = list(cache.glob("__pycache__/*.nbi"))
    assert mods and data and index
    if damage == "cut":
        for p in data:
            p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])
    elif damage == "empty-index":
        for p in index:
            p.write_bytes(b"")
    else:
        for p in mods:
            p.write_text(p.read_text()[: len(p.read_text()) // 2])
    assert probe(cache) == "KERNEL True []"
    assert probe(cache) == "KERNEL True []"      # repaired on disk: read from it again


def test_a_cache_that_is_not_a_directory_plays_on_the_engine(tmp_path):
    file = tmp_path / "a-file"
    file.write_text("not a directory")
    out = probe(file)
    assert out.startswith("ENGINE") and "cache directory" in out and str(file) in out


def test_the_search_bots_play_on_the_engine_with_an_unusable_cache(tmp_path):
    """`taash simulate` with the search bot and a cache home that is a file: the bots play
    on the engine, said once in one line; no fault."""
    file = tmp_path / "a-file"
    file.write_text("not a directory")
    env = dict(os.environ, XDG_CACHE_HOME=str(file))
    out = subprocess.run([sys.executable, "-m", "taash", "simulate", "29", "--bots", "search,random,search,random",
                          "--deals", "1", "--seed", "1"], capture_output=True, text=True, timeout=600, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    said = [line for line in out.stderr.splitlines() if "KernelFallback" in line]
    assert len(said) == 1 and said[0].startswith("taash: KernelFallback: 29: ") and "cannot be used" in said[0]
    assert "kernel_for(" not in out.stderr and "fault" not in out.stdout + out.stderr
