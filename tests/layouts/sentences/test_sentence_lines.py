"""Sentences a line, a word taken out of each test sentence (billion-word-imputation): the layout found, the
harness drawing training sentences as test rows with a word taken out as prepare.py does (issue 29)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.layouts.holdout import NoHoldout, build_holdout
from swarm.layouts.sentences.reader import remove_inner_word, sentence_lines_file
from swarm.offline_coder.task import infer_task_from_dir
from tests.layouts.sentences.miniatures import BILLION_WORD_DESCRIPTION, billion_word


def test_a_word_is_taken_out_never_the_first_or_last() -> None:
    rng = np.random.default_rng(0)
    sentence = "a b c d e ."
    seen = set()
    for _ in range(200):
        shown = remove_inner_word(sentence, rng).split()
        assert len(shown) == 5 and shown[0] == "a" and shown[-1] == "."
        seen |= set("bcde") - set(shown)
    assert seen == set("bcde")  # every inner word is drawn
    assert remove_inner_word("too short", rng) == "too short"


def test_the_training_file_is_found_where_the_description_says_a_word_was_removed() -> None:
    names = ["description.md", "test_v2.txt", "train_v2.txt"]
    said = "For each sentence in the test set, we have removed exactly one word."
    assert sentence_lines_file(names, "test_v2.txt", said) == "train_v2.txt"
    assert sentence_lines_file(names, "test_v2.txt", "Predict the sentence.") is None
    assert (
        sentence_lines_file(names, "sample_submission.csv", said) is None
    )  # the sample is not the test table
    assert sentence_lines_file([*names, "train_extra.txt"], "test_v2.txt", said) is None  # which one?


def quoted_competition(root: Path, n_train: int = 60) -> Path:
    """A public dir as prepare.py writes it, unzipped: train_v2.txt (one with a quote), test_v2.txt."""
    public = root / "prepared" / "public"
    public.mkdir(parents=True)
    (root / "prepared" / "private").mkdir()
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "mean_levenshtein"}}))
    (public / "description.md").write_text(BILLION_WORD_DESCRIPTION)
    lines = [f'He said " word {k} " to them all .' for k in range(n_train)] + ["Two words", "Yes ."]
    (public / "train_v2.txt").write_text("\n".join(lines) + "\n")
    (public / "test_v2.txt").write_text(
        '"id","sentence"\n0,"The cat on the mat ."\n1,"A ""quoted"" word here ."\n'
    )
    return root


def test_the_harness_holds_out_sentences_with_a_word_taken_out(tmp_path: Path) -> None:
    root = quoted_competition(tmp_path / "bw")
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "harness", fraction=0.2, seed=5)
    view = holdout.public_dir
    assert holdout.split == "random" and len(holdout.ids) == 12  # a fifth of the 60 with more than two words
    kept = (view / "train_v2.txt").read_text().splitlines()
    original = (competition.public_dir / "train_v2.txt").read_text().splitlines()
    labels = pd.read_csv(holdout.labels_path, dtype=str, keep_default_na=False)
    assert sorted(kept + labels["sentence"].tolist()) == sorted(original)
    assert "Two words" in kept and "Yes ." in kept  # too short to draw

    raw = (view / "test_v2.txt").read_text().splitlines()
    assert raw[0] == '"id","sentence"'
    assert all(line.split(",", 1)[1].startswith('"') for line in raw[1:])  # rows as prepare.py writes them
    test = pd.read_csv(view / "test_v2.txt", dtype=str, keep_default_na=False)
    # every sentence under a fresh id: the test's numbers and as many more, ascending down the shuffled rows
    assert holdout.fresh_ids and test["id"].tolist() == [str(i) for i in range(14)]
    assert set(holdout.ids) <= set(test["id"])
    quoted = {v for v, own in holdout.own_ids("test").items() if own == "1"}.pop()  # the test's sentence 1
    assert test.loc[test["id"] == quoted, "sentence"].item() == 'A "quoted" word here .'
    shown = test.set_index("id")["sentence"]
    assert len(labels) > 0 and set(labels["id"]) == set(holdout.ids)
    for i, whole in zip(labels["id"], labels["sentence"], strict=True):
        words, short = whole.split(), shown[i].split()
        assert len(short) == len(words) - 1 and short[0] == words[0] and short[-1] == words[-1]
        assert any(words[:k] + words[k + 1 :] == short for k in range(1, len(words) - 1))
    assert not (view / "train_v2.txt.zip").exists()


def test_a_split_other_than_random_is_refused_in_one_sentence(tmp_path: Path) -> None:
    competition = load_competition(str(quoted_competition(tmp_path / "bw")), tmp_path / "cache")
    with pytest.raises(NoHoldout, match="draws at random only") as refused:
        build_holdout(competition, tmp_path / "harness", fraction=0.2, split="stratified")
    assert "\n" not in str(refused.value)


def test_the_offline_coder_reads_the_view(tmp_path: Path) -> None:
    root = billion_word(tmp_path / "bw")
    holdout = build_holdout(load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.2)
    task = infer_task_from_dir(str(holdout.public_dir))
    assert task["files"]["sentences"] == {"train": "train_v2.txt", "test": "test_v2.txt"}
    assert task["files"]["sample"] == "test_v2.txt"
    assert [t["name"] for t in task["targets"]] == ["sentence"]
    with open(holdout.public_dir / "test_v2.txt", newline="") as table:
        assert next(csv.reader(table)) == ["id", "sentence"]
