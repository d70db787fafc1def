"""The offline coder reads text normalization's layout (issue 29, point 3): `en_train.csv`, `en_test_2.csv` and
`en_sample_submission_2.csv`, whose ids join the test table's `sentence_id` and `token_id`. It finds the tables and
the key columns, and gives each test row its joined id, so that its predictions are written per sample id."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from swarm.offline_coder.task import find_data_files, infer_task_from_dir, missing_tables, read_examples
from tests.layouts.composite.miniatures import text_normalization_competition


def test_the_tables_and_key_columns_are_found(tmp_path: Path) -> None:
    public = text_normalization_competition(tmp_path / "tn") / "prepared" / "public"
    assert missing_tables(str(public)) == []
    files = find_data_files(str(public))
    assert files == {
        "train": None,
        "train_files": None,
        "test": None,
        "sample": "en_sample_submission_2.csv",
        "composite": {"train": "en_train.csv", "test": "en_test_2.csv", "keys": ["sentence_id", "token_id"]},
    }
    task = infer_task_from_dir(str(public))
    assert task["id_col"] == "id" and task["metric"] == "accuracy" and task["files"] == files
    assert [t["name"] for t in task["targets"]] == ["after"] and task["targets"][0]["task"] == "multiclass"
    sample = pd.read_csv(public / files["sample"])
    _, test = read_examples(str(public), files, sample)
    assert test["id"].tolist() == sample["id"].tolist()


def test_ids_no_columns_join_leave_the_labelled_table_missing(tmp_path: Path) -> None:
    public = text_normalization_competition(tmp_path / "tn") / "prepared" / "public"
    sample = pd.read_csv(public / "en_sample_submission_2.csv", dtype=str)
    sample.assign(id="t" + sample["id"]).to_csv(public / "en_sample_submission_2.csv", index=False)
    assert missing_tables(str(public)) == [
        "train.csv (or train_labels.csv, labels.csv, train.json records, a train parquet table, training files labelled by their names "
        "or folders, target images, label sets in text lines, COCO-style JSON labels, training sentences a line where "
        "a word was taken out of each test sentence, a mask file in each example folder, a labels table in each "
        "example folder, or a log of events whose later ones the sample asks for)"
    ]
