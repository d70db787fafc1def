"""Shapes real competitions take that the miniatures do not: a test set of one row (every miniature whose ids
can be found on both sides), and, on a generated plain table, hundreds of classes, a class one training row has
and another only the test has, and class labels that pandas reads as missing ("NA", "None", "null", ...). Each
must split and pass the offline coder's preflight; the harness's record of the classes and its held-out labels
must hold every class as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from swarm.competitions.validation import CLOSED_LABEL_SET
from tests.conformance.checks import build_miniature, layout_found, split_variant
from tests.conformance.generated import class_table
from tests.conformance.ids import Unrepresentable
from tests.conformance.test_id_forms import rewritable
from tests.conformance.variants import NA_WORDS, one_test_row, read_rows
from tests.evaluation.census_miniatures import METRICS
from tests.layouts.test_registry import census_layouts


@pytest.mark.parametrize("competition_id", rewritable())
def test_a_test_set_of_one_row_splits(tmp_path: Path, competition_id: str) -> None:
    root = build_miniature(competition_id, tmp_path)
    try:
        one_test_row(root, METRICS.get(competition_id))
    except Unrepresentable as exc:
        pytest.skip(f"{competition_id}: {exc}")
    split = split_variant(root, tmp_path, competition_id=competition_id)
    assert layout_found(split, tmp_path) == census_layouts()[competition_id]


def held_labels(split) -> list[str]:
    rows = read_rows(split.holdout.labels_path)
    return [row[rows[0].index("label")] for row in rows[1:]]


@pytest.mark.parametrize("count", [150, 300])
def test_hundreds_of_classes_split_with_every_class_recorded(tmp_path: Path, count: int) -> None:
    """Up to 200 classes the harness records them all (a prediction outside them is invalid); past that the
    label is an open set, as the grader takes it (swarm.competitions.validation.CLOSED_LABEL_SET)."""
    classes = [f"species_{k:03d}" for k in range(count)]
    split = split_variant(class_table(tmp_path / "c", classes, per_class=3), tmp_path)
    recorded = split.holdout.classes["label"]
    assert (sorted(recorded) == classes) if count <= CLOSED_LABEL_SET else recorded is None
    assert set(held_labels(split)) <= set(classes)
    assert [target["name"] for target in split.task["targets"]] == ["label"]


def test_a_class_of_one_training_row_and_one_only_the_test_has_split(tmp_path: Path) -> None:
    classes = ["oak", "elm", "ash", "yew", "fir", "lone"]
    root = class_table(tmp_path / "c", classes, rare=("lone",), only_in_test=("unseen",))
    split = split_variant(root, tmp_path)
    assert sorted(split.holdout.classes["label"] or []) == sorted(classes)
    assert "unseen" not in held_labels(split)


def test_class_labels_pandas_reads_as_missing_are_held_out_as_words(tmp_path: Path) -> None:
    split = split_variant(class_table(tmp_path / "c", list(NA_WORDS)), tmp_path)
    assert sorted(split.holdout.classes["label"] or []) == sorted(NA_WORDS)
    labels = held_labels(split)
    assert labels and set(labels) <= set(NA_WORDS), labels
    view = read_rows(split.holdout.public_dir / "train.csv")
    assert {row[view[0].index("label")] for row in view[1:]} <= set(NA_WORDS)
