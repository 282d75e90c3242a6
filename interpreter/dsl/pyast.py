"""Python's ``ast`` module, one thread at a time.

CPython 3.11 keeps the depth of its conversions between its C syntax tree and Python's
``ast`` objects (``ast.parse``; ``compile`` of an ``ast`` tree) in the interpreter's
state, which every thread shares (added by python/cpython#95185; see #106905): two
threads converting at once can raise ``SystemError: AST constructor recursion depth
mismatch``. taash makes rules' code on more than one thread of a process (a variant
loaded while a kernel is made in the background, `taash.kernel.warm`), so every such
conversion in the package goes through this module, under one lock. Text parsed here is
the engine's own (its templates, the source it unparsed from a checked tree), never a
variant's.
"""

from __future__ import annotations

import ast
import threading

__all__ = ["compile_tree", "parse"]

# held for each conversion (microseconds to milliseconds); re-entrant so that a caller
# already holding it may convert again
_LOCK = threading.RLock()


def parse(text: str, mode: str = "exec") -> ast.AST:
    """``ast.parse(text, mode=mode)`` under the lock. Raises SyntaxError as it does."""
    with _LOCK:
        return ast.parse(text, mode=mode)


def compile_tree(tree: ast.AST, filename: str, mode: str = "exec"):
    """``compile(tree, filename, mode)`` of an ``ast`` tree under the lock: the code
    object."""
    with _LOCK:
        return compile(tree, filename, mode)
