"""The registry of layouts (swarm/layouts/registry.py) against the census (deployments/MLEBENCH_LAYOUTS.md) and
its miniatures of MLE-bench's competitions: every registered layout names a census row whose competition has a
miniature, the harness finds in each miniature the layout its row names (no earlier one, and none for a plain
labelled table), and where the offline coder reads the layout itself, the coder finds the same one in the same dir
(one detector, one order)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.evaluation.holdout_record import SplitRequest
from swarm.layouts.holdout import harness_probe
from swarm.layouts.registry import LAYOUTS, READ_BY_CODER, find_layout
from swarm.offline_coder.task import find_data_files
from tests.evaluation.census_miniatures import CENSUS, METRICS, MINIATURES, PROGRAMS

PLAIN = "table"  # the census's word for the plain labelled table


def census_layouts() -> dict[str, str]:
    """competition -> the census's "layout" cell (a registered layout's name, `table`, or "—")."""
    lines = CENSUS.read_text(encoding="utf-8").splitlines()
    header = next(line for line in lines if line.startswith("| competition |"))
    names = [cell.strip() for cell in header.strip("|").split("|")]
    column = names.index("layout")
    start = lines.index(header) + 2
    rows = {}
    for line in lines[start:]:
        if not line.startswith("| "):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0]] = cells[column].strip("`")
    return rows


def found_by_harness(tmp_path: Path, competition_id: str) -> tuple[str, str]:
    """(the layout the harness finds in the miniature, or PLAIN; the miniature's public dir)."""
    program = PROGRAMS.get(competition_id)
    if program and shutil.which(program) is None:
        pytest.skip(f"{competition_id}'s miniature needs {program} on PATH")
    root = MINIATURES[competition_id](tmp_path / competition_id)
    competition = load_competition(str(root), tmp_path / "cache", metric=METRICS.get(competition_id))
    assert competition.metric is not None
    sample = pd.read_csv(competition.sample_submission, dtype=str, keep_default_na=False)
    request = SplitRequest(competition, competition.metric, tmp_path / "harness", sample, 0.2, "auto", 0)
    found = find_layout(harness_probe(request))
    return (found[0].name if found else PLAIN), str(competition.public_dir)


def test_the_census_names_a_layout_for_every_competition_and_a_miniature_for_every_layout() -> None:
    rows = census_layouts()
    assert len(rows) == 75, "the census has a row for each of MLE-bench's 75 competitions"
    names = [layout.name for layout in LAYOUTS]
    assert len(names) == len(set(names))
    assert set(rows.values()) <= {*names, PLAIN, "—"}, sorted(set(rows.values()) - {*names, PLAIN, "—"})
    with_miniature = {rows[c] for c in MINIATURES if c in rows and c not in PROGRAMS}
    assert set(names) <= with_miniature, f"no census row with a miniature names {set(names) - with_miniature}"


def test_every_layout_has_its_folder_and_its_reader_with_its_one_detector() -> None:
    folders = Path(__file__).parents[2] / "swarm" / "layouts"
    for layout in LAYOUTS:
        assert (folders / layout.name).is_dir(), layout.name
    assert READ_BY_CODER == LAYOUTS  # the coder reads every layout, by the detector the harness splits it by
    for layout in READ_BY_CODER:
        assert layout.reader is not None and layout.read is not None and layout.labelled is not None
        assert layout.find is getattr(layout.reader, f"find_{layout.name}")


def test_the_package_gives_the_registry_yet_a_reader_imports_no_split() -> None:
    import swarm.layouts

    assert swarm.layouts.LAYOUTS is LAYOUTS
    code = (
        "import sys, swarm.layouts.keyed.reader, swarm.layouts.bson.reader; "
        "print(sorted(m for m in sys.modules if m.endswith(('.split', '.registry'))))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]", loaded


@pytest.mark.parametrize("competition_id", sorted(MINIATURES))
def test_the_harness_finds_in_each_miniature_the_layout_its_census_row_names(
    tmp_path: Path, competition_id: str
) -> None:
    found, _ = found_by_harness(tmp_path, competition_id)
    assert found == census_layouts()[competition_id]


@pytest.mark.parametrize("layout", sorted(layout.name for layout in READ_BY_CODER))
def test_the_offline_coder_finds_the_layout_the_harness_splits(tmp_path: Path, layout: str) -> None:
    rows = census_layouts()
    competition_id = next(c for c in sorted(MINIATURES) if rows.get(c) == layout and c not in PROGRAMS)
    found, public = found_by_harness(tmp_path, competition_id)
    files = find_data_files(public)
    coder = [other.name for other in READ_BY_CODER if files.get(other.name)]
    assert found == layout and coder == [layout], json.dumps(files, default=str)


@pytest.mark.parametrize(
    "competition_id",
    [
        "spooky-author-identification",
        "dogs-vs-cats-redux-kernels-edition",
        "random-acts-of-pizza",
        "hotel-id-2021-fgvc8",
    ],
)
def test_in_a_plain_labelled_table_neither_side_finds_a_layout(tmp_path: Path, competition_id: str) -> None:
    found, public = found_by_harness(tmp_path, competition_id)
    files = find_data_files(public)
    assert found == PLAIN == census_layouts()[competition_id]
    assert not [layout.name for layout in READ_BY_CODER if files.get(layout.name)]
    assert files["train"] or files["train_files"]
