"""The sources the offline coder pastes into solutions (swarm/offline_coder/embed.py): each module after those it
imports, without its imports of ours, and no two pasted modules defining the same top-level name (pasted modules
share one namespace, so a clash silently replaces one module's function with the other's)."""

from __future__ import annotations

import ast
import inspect
from collections import defaultdict
from types import ModuleType

import pytest

from swarm.layouts.registry import READ_BY_CODER
from swarm.offline_coder import inference
from swarm.offline_coder.embed import embedded_source, module_body, with_dependencies
from swarm.offline_coder.render import render_preamble

EMBEDDED = with_dependencies([inference, *(layout.reader for layout in READ_BY_CODER)])


def top_level_names(module: ModuleType) -> set[str]:
    """The names a module's top-level statements define."""
    names: set[str] = set()
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def clashes(modules: list[ModuleType]) -> dict[str, list[str]]:
    """name -> the modules defining it, for every name more than one of `modules` defines."""
    where = defaultdict(list)
    for module in modules:
        for name in top_level_names(module):
            where[name].append(module.__name__)
    return {name: found for name, found in where.items() if len(found) > 1}


def test_every_registered_reader_and_the_coders_inference_are_pasted_in_order() -> None:
    names = [module.__name__ for module in EMBEDDED]
    assert {layout.reader.__name__ for layout in READ_BY_CODER} <= set(names)
    for module in EMBEDDED:  # a module after every module it imports
        for imported in with_dependencies([module])[:-1]:
            assert names.index(imported.__name__) < names.index(module.__name__)


def test_no_two_pasted_modules_define_the_same_name() -> None:
    assert not clashes(EMBEDDED)


def test_the_clash_check_finds_a_clash() -> None:
    from swarm.layouts.masks import reader as masks
    from swarm.layouts.pixels import reader as pixels

    assert clashes([masks, masks]) and "find_masks" in clashes([masks, masks])
    assert not clashes([masks, pixels])


@pytest.mark.parametrize("module", EMBEDDED, ids=lambda m: m.__name__)
def test_a_pasted_body_keeps_no_docstring_and_no_import_of_ours(module: ModuleType) -> None:
    body = module_body(module)
    tree = ast.parse(body)
    ours = [
        n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("swarm")
    ]
    assert not ours and "globals()" not in body
    assert not (
        tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Constant)
    )


def test_the_run_time_inference_source_defines_every_layouts_reader_functions() -> None:
    code = render_preamble(None)
    namespace: dict = {}
    exec(compile(code.split("_TASK = ")[0], "solution", "exec"), namespace)  # up to the task's inference
    for layout in READ_BY_CODER:
        assert namespace[layout.find.__name__].__code__.co_filename == "solution"
        assert namespace[layout.read.__name__].__code__.co_filename == "solution"
    assert [entry[0] for entry in namespace["LAYOUT_READERS"]] == [layout.name for layout in READ_BY_CODER]


def test_an_embedded_source_heads_each_module_with_its_name() -> None:
    from swarm.layouts.levels import reader as levels

    source = embedded_source([levels])
    assert source.index("# --- swarm.layouts.boxes.reader") < source.index(
        "# --- swarm.layouts.levels.reader"
    )
