"""Parsing Python source with `ast`, one thread at a time.

CPython 3.11 up to 3.11.7 keeps the AST converter's recursion depth in state shared by every thread, so two
threads parsing at once (a run's parallel steps checking a model's code and rendering the offline coder's) can
fail with "SystemError: AST constructor recursion depth mismatch" (python/cpython gh-106905). A lock around
`ast.parse` is the whole fix; parsing a solution takes milliseconds.
"""

from __future__ import annotations

import ast
import threading

_PARSING = threading.Lock()


def parse_python(source: str) -> ast.Module:
    """`ast.parse(source)`, never in two threads at once."""
    with _PARSING:
        return ast.parse(source)
