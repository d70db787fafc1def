"""Golden copies of the offline coder's rendered solutions, so that a change of its templates that changes a
solution by one character is seen.

For the bundled titanic and every miniature of tests/evaluation/census_miniatures.py, the task is inferred as the
coder infers it in a run (the competition's public dir and the run's metric as hints), and a solution rendered
for each genome of `genomes_for` (together they make every choice genome.py offers, and the GPU setup), plus
the solutions that infer their task at run time (no task). Each solution is compared with its golden copy under
tests/offline/golden/, kept small and readable:

- `solutions/<competition>.json`: per genome, the genome, whether the task had a GPU, the files holding the
  solution's parts, and the sha256 of the whole solution;
- `preambles/<competition>[.gpu].txt`: the preamble, each embedded module body (a reader the solution carries)
  replaced by a one-line marker naming the module and the sha256 of its body;
- `sections/<SECTION>/<choice>.txt`: a gene section's text, stored once (a section depends only on its choice).

After an intended change of the rendered solutions, regenerate the golden files and review their diff:

    SWARM_UPDATE_GOLDEN=1 python -m pytest tests/offline/test_rendered_solutions.py
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import random
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from swarm.competitions import load_competition
from swarm.layouts.registry import READ_BY_CODER
from swarm.offline_coder import inference
from swarm.offline_coder.client import task_from_hints
from swarm.offline_coder.embed import module_body, with_dependencies
from swarm.offline_coder.genome import (
    CLASSIFICATION_OBJECTIVES,
    FAMILIES,
    FEATURE_SETS,
    OPTIMIZER_LADDER,
    REG_PRESETS,
    REGRESSION_OBJECTIVES,
    Genome,
    draft_genome,
    is_regression,
    objectives,
    optimizer_choice,
    regularization_choice,
    safe_genome,
)
from swarm.offline_coder.render import render_solution
from swarm.offline_coder.sections import split_code
from swarm.protocol import GENE_SECTIONS
from tests.evaluation.census_miniatures import METRICS, MINIATURES, PROGRAMS

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("SWARM_UPDATE_GOLDEN") == "1"
NO_TASK = "no-task"  # the golden name of the solutions that infer their task at run time
COMPETITIONS = ("titanic", *sorted(MINIATURES))
# Modules whose bodies a preamble may embed (every registered layout's reader, the coder's inference, and what
# they import); in the golden preambles each body is a marker line.
EMBEDDED: tuple[ModuleType, ...] = tuple(
    with_dependencies([inference, *(layout.reader for layout in READ_BY_CODER)])
)


def _tricks(validation: str, transform: str, seed_bag: int) -> dict[str, Any]:
    return {"validation": validation, "folds": 5, "target_transform": transform, "seed_bag": seed_bag}


def genomes_for(task: dict[str, Any] | None) -> dict[str, tuple[Genome, int]]:
    """The genomes rendered for `task`, each with the GPUs its solution has: the draft of a fixed seed, the
    safe genome a debug step writes, and one genome per other model family, which between them make every
    objective, feature set, optimizer step, regularization preset, validation, target transform and seed bag."""
    objective = objectives(task)
    log1p = "log1p" if is_regression(task) else "none"
    gpus = 0 if task is None else 1  # a solution without a task dict has no GPU setup

    def genome(features: str, family: str, loss: str, step: int, preset: str, tricks: dict) -> Genome:
        return {
            "DATA": {"features": features},
            "MODEL": {"family": family},
            "LOSS": {"objective": loss},
            "OPTIMIZER": optimizer_choice(step),
            "REGULARIZATION": regularization_choice(preset),
            "INITIALIZATION": {"seed": 7},
            "TRAINING_TRICKS": tricks,
        }

    second = objective[1 % len(objective)]  # huber for regression, balanced where it is offered
    return {
        "draft": (draft_genome(task, random.Random(0)), 0),
        "safe": (safe_genome(task), 0),
        "lgbm-gpu": (genome("rich", "lgbm", objective[-1], 3, "light", _tricks("kfold", log1p, 3)), gpus),
        "blend": (genome("freq", "blend", objective[0], 2, "strong", _tricks("holdout", log1p, 3)), 0),
        "rf": (genome("minimal", "rf", second, 1, "medium", _tricks("kfold", "none", 1)), 0),
        "extratrees": (
            genome("basic", "extratrees", objective[0], 0, "light", _tricks("holdout", "none", 3)),
            0,
        ),
        "linear": (genome("rich", "linear", objective[-1], 0, "strong", _tricks("kfold", "none", 1)), 0),
    }


def _body(module: ModuleType) -> str:
    """What a preamble embeds of a module (swarm/offline_coder/embed.py)."""
    return module_body(module).strip("\n")


def _sha(text: str, length: int = 64) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:length]


def marked_preamble(preamble: str) -> str:
    """The preamble with each embedded module body replaced by a line naming the module and its body's hash."""
    for module in EMBEDDED:
        body = _body(module)
        preamble = preamble.replace(
            body, f"\n# <golden: body of {module.__name__}, sha256 {_sha(body, 16)}>\n"
        )
    return preamble


def section_path(section: str, choice: dict[str, Any]) -> str:
    """The golden file of a section's text, named by its choice."""
    name = ",".join(f"{key}={value}" for key, value in sorted(choice.items()))
    return f"sections/{section}/{name}.txt"


def golden_parts(name: str, task: dict[str, Any] | None) -> dict[str, str]:
    """The golden files of `name`'s solutions for `task`: path -> text."""
    manifest, files = {}, {}
    for genome_name, (genome, gpus) in genomes_for(task).items():
        gpu_task = task if task is None or not gpus else {**task, "gpus": gpus}
        code = render_solution(gpu_task, genome)
        split = split_code(code)
        assert list(split.sections) == list(GENE_SECTIONS), f"{genome_name}: sections {list(split.sections)}"
        preamble = f"preambles/{name}{'.gpu' if gpus else ''}.txt"
        files[preamble] = marked_preamble(split.preamble)
        for section in GENE_SECTIONS:
            files[section_path(section, genome[section])] = split.sections[section]
        manifest[genome_name] = {"preamble": preamble, "gpus": gpus, "sha256": _sha(code), "genome": genome}
    files[f"solutions/{name}.json"] = manifest_text(manifest)
    return files


def manifest_text(manifest: dict[str, Any]) -> str:
    """A manifest as JSON, a line per genome: its preamble, GPUs, the whole solution's hash and its choices (the
    file of each section's text is `section_path` of the choice)."""
    lines = [f"{json.dumps(name)}: {json.dumps(entry)}" for name, entry in sorted(manifest.items())]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _diff(path: str, expected: str, got: str) -> str:
    lines = difflib.unified_diff(
        expected.splitlines(keepends=True), got.splitlines(keepends=True), f"golden/{path}", "rendered", n=2
    )
    return "".join(list(lines)[:60])


def check_against_golden(name: str, task: dict[str, Any] | None) -> None:
    """Compare the rendered solutions of `name` with their golden files (or write them: SWARM_UPDATE_GOLDEN=1)."""
    files = golden_parts(name, task)
    for path, text in files.items():
        golden = GOLDEN / path
        if UPDATE:
            golden.parent.mkdir(parents=True, exist_ok=True)
            if not golden.is_file() or golden.read_text(encoding="utf-8") != text:
                golden.write_text(text, encoding="utf-8")
            continue
        assert golden.is_file(), f"golden/{path} is missing; regenerate with SWARM_UPDATE_GOLDEN=1"
        expected = golden.read_text(encoding="utf-8")
        assert expected == text, (
            f"{name}'s rendered solutions differ from golden/{path} (if intended, regenerate with "
            f"SWARM_UPDATE_GOLDEN=1 and review the diff):\n{_diff(path, expected, text)}"
        )


def competition_task(competition_id: str, root: Path) -> dict[str, Any]:
    """The task the coder infers for the competition built under `root`: its public dir, the run's metric."""
    if competition_id == "titanic":
        competition = load_competition("titanic", root / "cache")
    else:
        built = MINIATURES[competition_id](root / competition_id)
        competition = load_competition(str(built), root / "cache", metric=METRICS.get(competition_id))
    metric = competition.metric.name if competition.metric is not None else None
    task = task_from_hints({"input_dir": str(competition.public_dir), "metric": metric})
    assert task is not None and task["targets"], task
    return task


@pytest.mark.parametrize("competition_id", COMPETITIONS)
def test_rendered_solutions_match_their_golden_copies(tmp_path: Path, competition_id: str) -> None:
    program = PROGRAMS.get(competition_id)
    if program and shutil.which(program) is None:
        pytest.skip(f"{competition_id}'s miniature needs {program} on PATH")
    check_against_golden(competition_id, competition_task(competition_id, tmp_path))


def test_solutions_that_infer_their_task_at_run_time_match_their_golden_copies() -> None:
    check_against_golden(NO_TASK, None)


def _manifests() -> dict[str, dict[str, Any]]:
    return {path.stem: json.loads(path.read_text()) for path in sorted((GOLDEN / "solutions").glob("*.json"))}


def test_the_golden_genomes_make_every_choice() -> None:
    entries = [entry for manifest in _manifests().values() for entry in manifest.values()]

    def made(section: str, key: str) -> set:
        return {entry["genome"][section][key] for entry in entries}

    assert made("MODEL", "family") == set(FAMILIES)
    assert made("LOSS", "objective") == set(REGRESSION_OBJECTIVES + CLASSIFICATION_OBJECTIVES)
    assert made("DATA", "features") == set(FEATURE_SETS)
    assert made("OPTIMIZER", "step") == set(range(len(OPTIMIZER_LADDER)))
    assert made("REGULARIZATION", "preset") == set(REG_PRESETS)
    assert made("TRAINING_TRICKS", "validation") == {"holdout", "kfold"}
    assert made("TRAINING_TRICKS", "target_transform") == {"none", "log1p"}
    assert made("TRAINING_TRICKS", "seed_bag") == {1, 3}
    assert {entry["gpus"] for entry in entries} == {0, 1}


def test_every_golden_file_belongs_to_a_rendered_solution() -> None:
    """Golden files no manifest names (or manifests of no competition) are stale: removed by an update."""
    manifests = _manifests()
    assert set(manifests) - {NO_TASK, *COMPETITIONS} == set(), "manifests of competitions no longer rendered"
    named = {f"solutions/{name}.json" for name in manifests}
    for manifest in manifests.values():
        for entry in manifest.values():
            named |= {entry["preamble"], *(section_path(s, c) for s, c in entry["genome"].items())}
    stale = sorted(str(p.relative_to(GOLDEN)) for p in GOLDEN.rglob("*") if p.is_file())
    stale = [path for path in stale if path not in named]
    if UPDATE:
        for path in stale:
            (GOLDEN / path).unlink()
        return
    assert stale == [], f"golden files no solution uses: {stale[:10]}; regenerate with SWARM_UPDATE_GOLDEN=1"
