"""The import layering ARCHITECTURE.md draws, enforced: every `import` in the source (at module level or inside
a function, where a lazy import would hide an arrow) is read with `ast`, and an arrow a layer may not draw fails
here, naming its file and line."""

from __future__ import annotations

import ast
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
        "swarm.competitions",
        "swarm.evaluation",
        "swarm.ga",
        "swarm.journal",
        "swarm.llm",
        "swarm.offline_coder",
        "swarm.preview",
    },
    "swarm.offline_coder": {"swarm.llm", "swarm.competitions"},
    "swarm.evaluation": {"swarm.competitions"},
    "swarm.competitions": set(),  # loading, metrics, grading, the metric library and its wording rules
    "swarm.agents": {"swarm.llm", "swarm.ga"},  # agent texts, dispatcher, experience pool, agent evolution
    "swarm.llm": set(),
    "swarm.ga": {"swarm.journal"},  # gene sections, fitness, the population (reads the journal)
    "swarm.journal": set(),
    "swarm.preview": set(),  # what a prompt shows of the data: the flat readers only
    "swarm": {"swarm.agents", "swarm.ga", "swarm.journal", "swarm.llm", "swarm.competitions"},
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


def room(module: str) -> str:
    """`swarm.<package>` for a module in a package of the core, else `swarm` (a flat module)."""
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
