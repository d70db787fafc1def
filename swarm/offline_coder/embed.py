"""Our modules' source pasted into a solution, so that it reads its data with the rules the coder used.

A solution runs without the swarm package: each module it needs is pasted whole (without its docstring and its
imports of our modules), after the modules it imports, so a name it imports is defined above it. Only readers
(`swarm/formats/`, `swarm/layouts/<layout>/reader.py`) and the offline coder's own task inference are pasted; they
import nothing else of ours (tests/core/test_import_layers.py). Pasted modules share one namespace, so their
top-level names must not clash (tests/offline/test_embed.py).
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterable
from types import ModuleType

from swarm.pyparse import parse_python

HEADER_WIDTH = 100  # the width of the summary in the comment heading a pasted module


def _our_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    """The module-level `from swarm... import` statements of a parsed module."""
    return [
        node
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        and node.level == 0
        and (node.module or "").split(".")[0] == "swarm"
    ]


def imported_modules(module: ModuleType) -> list[ModuleType]:
    """The modules of ours that `module` imports names from, in the order it imports them."""
    tree = parse_python(inspect.getsource(module))
    return [importlib.import_module(str(node.module)) for node in _our_imports(tree)]


def module_body(module: ModuleType) -> str:
    """`module`'s source without its docstring and its imports of our modules."""
    source = inspect.getsource(module)
    tree = parse_python(source)
    dropped: set[int] = set()
    first = tree.body[0] if tree.body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        dropped.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    for node in _our_imports(tree):
        dropped.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    lines = source.splitlines(keepends=True)
    return "".join(line for number, line in enumerate(lines, 1) if number not in dropped)


def with_dependencies(modules: Iterable[ModuleType]) -> list[ModuleType]:
    """`modules` and every module of ours they import, each once, a module after those it imports."""
    ordered: list[ModuleType] = []

    def visit(module: ModuleType, path: tuple[str, ...]) -> None:
        if module in ordered:
            return
        if module.__name__ in path:
            raise ValueError(f"embedded modules import each other: {' -> '.join((*path, module.__name__))}")
        for imported in imported_modules(module):
            visit(imported, (*path, module.__name__))
        ordered.append(module)

    for module in modules:
        visit(module, ())
    return ordered


def embedded_source(modules: Iterable[ModuleType]) -> str:
    """The pasted source of `modules` and what they import, each headed by a comment naming it."""
    parts = []
    for module in with_dependencies(modules):
        summary = (inspect.getdoc(module) or "").split("\n")[0]
        summary = summary if len(summary) <= HEADER_WIDTH else summary[: HEADER_WIDTH - 3].rstrip() + "..."
        parts.append(f"\n\n# --- {module.__name__}: {summary}\n" + module_body(module).strip("\n") + "\n")
    return "".join(parts)
