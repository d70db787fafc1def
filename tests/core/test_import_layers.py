"""The import layering ARCHITECTURE.md draws, enforced: every `import` in the source (at module level or inside
a function, where a lazy import would hide an arrow) is read with `ast`, and an arrow a layer may not draw fails
here, naming its file and line."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
PREFECT = {"prefect", "prefect_dask"}

# package -> the top-level names its modules may not import
FORBIDDEN: dict[str, set[str]] = {
    "sandbox": {"swarm", "tasks", "flows", "tests", *PREFECT},  # the sandbox stands alone
    "swarm": {"tasks", "flows", "tests", *PREFECT},  # the domain core: no Prefect, no tests or their doubles
    "tasks": {"flows", "tests"},  # thin Prefect adapters over the core
    "flows": {"tests"},
    "tests/doubles": {"swarm", "sandbox", "tasks", "flows"},  # the loopback server: the wire protocols only
}
# rooms of the core -> the other rooms they may import, as ARCHITECTURE.md draws them (any room may import the flat
# modules of swarm/, named "swarm" here, and itself); a room not listed, or an arrow not listed, fails the test.
ALLOWED_ROOMS: dict[str, set[str]] = {
    "swarm.mlebench": {"swarm.pipeline", "swarm.competitions", "swarm.journal"},
    "swarm.pipeline": {
        "swarm.agents",
        "swarm.layouts",
        "swarm.competitions",
        "swarm.evaluation",
        "swarm.ga",
        "swarm.journal",
        "swarm.llm",
        "swarm.offline_coder",
        "swarm.preview",
    },
    "swarm.offline_coder": {"swarm.llm", "swarm.competitions", "swarm.layouts"},
    "swarm.layouts": {
        "swarm.evaluation",
        "swarm.competitions",
    },  # each layout's split, the registry, the dispatcher
    "swarm.evaluation": {"swarm.competitions"},  # the harness's kit (no layout's name), scoring, review rules
    "swarm.competitions": set(),  # loading, metrics, grading, the metric library and its wording rules
    "swarm.agents": {"swarm.llm", "swarm.ga"},  # agent texts, dispatcher, experience pool, agent evolution
    "swarm.llm": set(),
    "swarm.ga": {"swarm.journal"},  # gene sections, fitness, the population (reads the journal)
    "swarm.journal": set(),
    "swarm.preview": set(),  # what a prompt shows of the data: the flat readers only
    "swarm": {"swarm.competitions"},  # cli.py only: the core's commands, the competitions' group
}


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute import in a file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def is_reader(module: str) -> bool:
    """Whether `module` is a reader: a file format's (`swarm.formats`), or a layout's detection and reading of
    its labelled examples (`swarm.layouts.<layout>.reader`, `.detect`; the offline coder embeds readers in
    solutions), or a package of `swarm.layouts` (its `__init__` imports nothing, so a reader never runs a split)."""
    parts = module.split(".")
    if parts[:2] == ["swarm", "formats"]:
        return True
    if parts[:2] != ["swarm", "layouts"] or len(parts) > 4:
        return False
    return len(parts) < 4 and (REPO / Path(*parts)).is_dir() or parts[-1] in ("reader", "detect")


def room(module: str) -> str:
    """`swarm.<package>` for a module in a package of the core, `swarm` for a flat module or a reader (which any
    room may import: see `is_reader`)."""
    parent = module.rsplit(".", 1)[0]
    if is_reader(module) or (is_reader(parent) and not (REPO / Path(*parent.split("."))).is_dir()):
        return "swarm"  # a reader, or a name imported from one
    parts = module.split(".")
    if len(parts) > 1 and (REPO / "swarm" / parts[1]).is_dir():
        return f"swarm.{parts[1]}"
    return "swarm"


def arrows(package: str) -> list[tuple[str, str, str]]:
    """(file:line, from, to) of every import out of `package`'s files."""
    found = []
    for path in sorted((REPO / package).rglob("*.py")):
        relative = path.relative_to(REPO)
        source = ".".join(relative.with_suffix("").parts)
        for line, module in imports(path):
            found.append((f"{relative}:{line}", source, module))
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_each_layer_imports_only_what_it_may(package: str) -> None:
    wrong = [
        f"{where} imports {module}"
        for where, _, module in arrows(package)
        if module.split(".")[0] in FORBIDDEN[package]
    ]
    assert not wrong, f"{package} may not import {sorted(FORBIDDEN[package])}:\n" + "\n".join(wrong)


def test_the_cores_rooms_import_only_downwards() -> None:
    wrong = []
    for where, source, module in arrows("swarm"):
        if module.split(".")[0] != "swarm" or module == "swarm":
            continue
        here, there = room(source), room(module)
        if here not in ALLOWED_ROOMS:
            wrong.append(f"{where}: {here} is a room ARCHITECTURE.md does not draw (add it to ALLOWED_ROOMS)")
        elif there not in (here, "swarm", *ALLOWED_ROOMS[here]):
            wrong.append(f"{where}: {here} imports {module}")
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_lazy_imports(tmp_path: Path) -> None:
    """An import inside a function is an arrow too (the check would miss a hidden cycle otherwise)."""
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from prefect import flow\n    import swarm.pipeline.steps\n")
    assert imports(module) == [(2, "prefect"), (2, "prefect.flow"), (3, "swarm.pipeline.steps")]


# Libraries a reader may import inside a function, where a file needs them (parquet tables, images, sound clips),
# so that an embedded reader loads without them (aifc left the standard library in Python 3.13).
OPTIONAL_IN_READERS = frozenset({"pyarrow", "PIL", "scipy", "soundfile", "aifc"})


def function_import_lines(path: Path) -> set[int]:
    """The lines of the imports made inside a function of a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return {
        node.lineno
        for function in functions
        for node in ast.walk(function)
        if isinstance(node, ast.Import | ast.ImportFrom)
    }


def reader_files() -> list[Path]:
    """Every reader module's file (see `is_reader`)."""
    found = []
    for path in sorted((REPO / "swarm").rglob("*.py")):
        module = ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
        if is_reader(module):
            found.append(path)
    return found


def test_readers_import_only_the_standard_library_numpy_pandas_and_other_readers() -> None:
    """Readers are embedded in solutions and imported by every room, so they import nothing else of ours."""
    files = reader_files()
    assert len(files) >= 20 and any(p.name == "reader.py" for p in files), files
    allowed = {*sys.stdlib_module_names, "numpy", "pandas"}
    wrong = []
    for path in files:
        lazy = function_import_lines(path)
        for line, module in imports(path):
            top = module.split(".")[0]
            if top == "swarm":
                ours_ok = is_reader(module) or is_reader(module.rsplit(".", 1)[0])
            else:
                ours_ok = top in allowed or (line in lazy and top in OPTIONAL_IN_READERS)
            if not ours_ok:
                wrong.append(f"{path.relative_to(REPO)}:{line} imports {module}")
    assert not wrong, "\n".join(wrong)


def test_the_layouts_packages_import_nothing() -> None:
    """Importing a reader runs its packages' `__init__`s: they import nothing when they run, so no split or registry
    loads (`swarm.layouts.LAYOUTS` loads the registry inside the package's `__getattr__`, on first use)."""
    inits = sorted((REPO / "swarm" / "layouts").rglob("__init__.py"))
    assert len(inits) > 10
    loaded = {str(p.relative_to(REPO)): module_level_imports(p) for p in inits}
    assert not {name: found for name, found in loaded.items() if found}
    lazy = [module for _, module in imports(REPO / "swarm" / "layouts" / "__init__.py")]
    assert lazy == ["swarm.layouts", "swarm.layouts.registry"], lazy


def module_level_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of the imports a module runs when it is imported (not those inside its functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    functions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
    nested = {id(n) for f in ast.walk(tree) if isinstance(f, functions) for n in ast.walk(f)}
    return [
        (node.lineno, getattr(node, "module", None) or node.names[0].name)
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in nested
    ]
