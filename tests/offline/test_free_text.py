"""Free-text targets in the offline coder (issue 29, point 7): text normalization's `after` has hundreds of
thousands of distinct answers, which no classifier over every answer can learn in a step. Over OPEN_CLASSES
distinct text answers the coder looks each row's answer up by the column that names it best (`before`), and a
value never seen answers itself where most answers repeat their value."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pandas as pd
import pytest

from swarm.offline_coder import OfflineClient
from swarm.offline_coder.inference import OPEN_CLASSES, infer_task_from_frames
from tests.layouts.composite.miniatures import (
    MISSING_WORDS,
    free_text_normalization_layout,
    text_normalization_competition,
)
from tests.offline.solution_runs import ask


def tables(root: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, str]:
    public = root / "prepared" / "public"

    def read(name: str) -> pd.DataFrame:
        with zipfile.ZipFile(public / f"{name}.zip") as archive:
            return pd.read_csv(archive.open(name))

    description = (public / "description.md").read_text()
    return read("en_train.csv"), read("en_test_2.csv"), read("en_sample_submission_2.csv"), description


def test_over_the_open_class_count_a_text_target_is_looked_up_by_its_best_column(tmp_path: Path) -> None:
    train, test, sample, description = tables(free_text_normalization_layout(tmp_path / "c"))
    assert train["after"].nunique() > OPEN_CLASSES
    (target,) = infer_task_from_frames(train, test, sample, description)["targets"]
    assert target["task"] == "lookup" and target["source"] == "before" and target["identity"] is True


def test_a_closed_set_of_text_answers_is_still_classified(tmp_path: Path) -> None:
    root = text_normalization_competition(tmp_path / "c", n_train=200, n_test=40, zipped=True)
    train, test, sample, description = tables(root)
    assert train["after"].nunique() <= OPEN_CLASSES
    (target,) = infer_task_from_frames(train, test, sample, description)["targets"]
    assert target["task"] == "multiclass" and "source" not in target


def test_answers_that_do_not_repeat_their_value_fall_back_to_the_most_common_answer() -> None:
    n = 600
    train = pd.DataFrame(
        {"id": range(n), "word": [f"w{i % 300}" for i in range(n)], "code": [f"c{i % 300}" for i in range(n)]}
    )
    test = pd.DataFrame({"id": range(1000, 1010), "word": "w1"})
    sample = pd.DataFrame({"id": range(1000, 1010), "code": "c0"})
    (target,) = infer_task_from_frames(train, test, sample)["targets"]
    assert target["task"] == "lookup" and target["source"] == "word" and target["identity"] is False


def test_answers_of_their_own_row_are_free_text_and_a_labels_table_is_found_by_its_columns(
    tmp_path: Path,
) -> None:
    """AI4Code: the labels in `train_orders.csv` (not a name the coder knew), one cell order per notebook: the
    coder reads the table that holds the sample's columns, and, as no column names an order, delivers the
    sample's own (the lookup has no source)."""
    from swarm.offline_coder.task import find_data_files, infer_task_from_dir

    public = tmp_path / "public"
    public.mkdir()
    orders = [" ".join(f"{i:02d}{k}" for k in "abc"[:: 1 if i % 2 else -1]) for i in range(30)]
    pd.DataFrame({"id": [f"n{i}" for i in range(30)], "cell_order": orders}).to_csv(
        public / "train_orders.csv", index=False
    )
    pd.DataFrame({"id": ["t1", "t2"], "cell_order": ["x y", "z w"]}).to_csv(
        public / "sample_submission.csv", index=False
    )
    assert find_data_files(str(public))["train"] == "train_orders.csv"
    (target,) = infer_task_from_dir(str(public))["targets"]
    assert target["task"] == "lookup" and target["source"] is None


@pytest.mark.slow
@pytest.mark.parametrize("numbers", [30, 600], ids=["classes", "free-text"])
def test_words_pandas_reads_as_missing_are_spoken_as_themselves(tmp_path: Path, tools, numbers: int) -> None:
    """The tokens "NA", "None", "null", "N/A" and "nan" in train and test: the solution reads them as text (not
    NaN) and delivers each as its own `after`, not a blank, whether `after` is classified or looked up."""
    root = text_normalization_competition(
        tmp_path / "c", n_train=200 if numbers < 100 else 500, n_test=40, numbers=numbers, missing_words=True
    )
    public = root / "prepared" / "public"
    comp = type("Comp", (), {"input_dir": public})()  # what `ask` hands the coder
    result = tools.run(
        tools.code_of(ask(OfflineClient(seed=0), "draft", comp, seed=3)), public, tmp_path / "run"
    )
    assert result.returncode == 0, result.output[-3000:]
    written = pd.read_csv(result.workdir / "submission" / "submission.csv", dtype=str, keep_default_na=False)
    test = pd.read_csv(public / "en_test_2.csv", dtype=str, keep_default_na=False)
    before = dict(zip(test["sentence_id"] + "_" + test["token_id"], test["before"], strict=True))
    spoken = written.assign(before=written["id"].map(before))
    words = spoken[spoken["before"].isin(MISSING_WORDS)]
    sample = pd.read_csv(public / "en_sample_submission_2.csv", dtype=str, keep_default_na=False)
    assert written["id"].tolist() == sample["id"].tolist() and not written["after"].eq("").any()
    assert set(words["before"]) == set(MISSING_WORDS)
    assert words["after"].tolist() == words["before"].tolist()
