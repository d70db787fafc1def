"""No import cycle between the modules of swarm/, sandbox/, tasks/ and flows/: every `import` in their source (at
module level or inside a function, where a lazy import would hide the cycle) is read with `ast` as an arrow from
the importing module to the imported one, and a cycle of arrows fails here, named `a -> b -> a`.

What an import is an arrow to: `import a.b` and `from a.b import name` point at `a.b`, or at the submodule
`a.b.name` where that is a module file of ours; a package is its `__init__.py`, named by the package (so
`from pkg import CONSTANT` points at `pkg`, and `pkg/__init__.py` importing `pkg.table` points at `pkg.table`).
The parents' `__init__.py` that Python runs first are not counted: a package re-exporting its submodules would be
a cycle with each of them otherwise. Imports under `if TYPE_CHECKING:` are left out: they do not run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).parents[2]
ROOTS = ("swarm", "sandbox", "tasks", "flows")
# Cycles outside this test's reach to fix, each as `cycles` writes it; a cycle fixed must leave the list too.
KNOWN_CYCLES: frozenset[str] = frozenset()


def module_files(repo: Path, roots: tuple[str, ...]) -> dict[str, Path]:
    """Dotted module name -> its file, for every .py under the roots (a package named by its directory)."""
    found = {}
    for root in roots:
        for path in sorted((repo / root).rglob("*.py")):
            parts = path.relative_to(repo).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_statements(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under `node`, at any depth, but those in the body of `if TYPE_CHECKING:`."""
    if isinstance(node, ast.If) and _type_checking(node.test):
        children: list[ast.AST] = list(node.orelse)
    else:
        children = list(ast.iter_child_nodes(node))
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
    for child in children:
        yield from import_statements(child)


def _ours(name: str, modules: dict[str, Path]) -> str | None:
    """`name`, or its longest prefix that is one of `modules`; None for a module not ours."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _from_base(statement: ast.ImportFrom, module: str, modules: dict[str, Path]) -> str:
    """The module a `from ... import` reads from, relative imports resolved against `module`'s package."""
    if not statement.level:
        return statement.module or ""
    package = module.split(".")
    if modules[module].name != "__init__.py":
        package = package[:-1]
    package = package[: len(package) - (statement.level - 1)]
    return ".".join([*package, *([statement.module] if statement.module else [])])


def imported_modules(
    statement: ast.Import | ast.ImportFrom, module: str, modules: dict[str, Path]
) -> set[str]:
    """The modules of ours that one import statement in `module` points at."""
    if isinstance(statement, ast.Import):
        names = [alias.name for alias in statement.names]
    else:
        base = _from_base(statement, module, modules)
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in statement.names]
    return {target for name in names if (target := _ours(name, modules)) and target != module}


def import_graph(repo: Path, roots: tuple[str, ...]) -> dict[str, set[str]]:
    """module -> the modules of ours it imports."""
    modules = module_files(repo, roots)
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        graph[module] = set()
        for statement in import_statements(tree):
            graph[module] |= imported_modules(statement, module, modules)
    return graph


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def cycles(graph: dict[str, set[str]]) -> list[str]:
    """Every cycle of `graph` once, as `a -> b -> a` from its first module in sorted order: a walk from each
    module through the later ones that can lead back to it."""
    reach = {module: _reachable(graph, module) for module in graph}
    found = []
    for start in sorted(graph):
        paths = [[start]]
        while paths:
            path = paths.pop()
            for nxt in sorted(graph[path[-1]]):
                if nxt == start:
                    found.append(" -> ".join([*path, start]))
                elif nxt > start and nxt not in path and start in reach[nxt]:
                    paths.append([*path, nxt])
    return sorted(found)


def test_no_import_cycle_between_modules() -> None:
    found = set(cycles(import_graph(REPO, ROOTS)))
    assert not found - KNOWN_CYCLES, "import cycles:\n" + "\n".join(sorted(found - KNOWN_CYCLES))
    assert not KNOWN_CYCLES - found, "fixed, remove from KNOWN_CYCLES:\n" + "\n".join(
        sorted(KNOWN_CYCLES - found)
    )


def write_tree(root: Path, files: dict[str, str]) -> None:
    for name, source in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(source, encoding="utf-8")


def test_a_cycle_through_a_lazy_import_is_found_and_a_type_checking_one_is_not(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\nimport pkg.c\n",
            "pkg/b.py": "def f():\n    from pkg.a import g\n",
            "pkg/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n",
        },
    )
    graph = import_graph(tmp_path, ("pkg",))
    assert graph == {"pkg": set(), "pkg.a": {"pkg.b", "pkg.c"}, "pkg.b": {"pkg.a"}, "pkg.c": set()}
    assert cycles(graph) == ["pkg.a -> pkg.b -> pkg.a"]


def test_a_name_read_from_a_package_points_at_its_init(tmp_path: Path) -> None:
    """The library's shape: the package re-exports its table, the table imports the families; a family reading
    a name from the package (not from its base module) closes a cycle through the `__init__.py`."""
    files = {
        "lib/__init__.py": "from lib.table import TABLE\n",
        "lib/table.py": "from lib import family\nTABLE = family.ENTRIES\n",
        "lib/base.py": "",
        "lib/family.py": "from lib.base import *\nfrom . import base\nENTRIES = ()\n",
    }
    write_tree(tmp_path, files)
    assert cycles(import_graph(tmp_path, ("lib",))) == []
    write_tree(tmp_path, {"lib/family.py": "from lib import TABLE\nENTRIES = ()\n"})
    assert cycles(import_graph(tmp_path, ("lib",))) == ["lib -> lib.table -> lib.family -> lib"]


def test_every_cycle_is_named_once() -> None:
    graph = {"a": {"b", "c"}, "b": {"a", "c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == ["a -> b -> a", "a -> b -> c -> a", "a -> c -> a"]
