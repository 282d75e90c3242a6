"""The kernel's tests need the ``fast`` extra (numba); without it they are skipped, saying so."""

from __future__ import annotations

import pytest

pytest.importorskip("numba", reason="the compiled kernel needs the fast extra: pip install 'taash[fast]'")


@pytest.fixture(scope="session")
def kernel_cache(tmp_path_factory):
    """One cache directory for the session's compiled kernels (each variant compiles once)."""
    return tmp_path_factory.mktemp("kernel-cache")
