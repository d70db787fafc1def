"""Tokens that pandas reads as missing by default ("NA", "None", "null", "N/A", "nan") are words to speak in text
normalization: the harness's split keeps them in labels.csv and the view. MLE-bench's grader reads both sides with
pandas' defaults and compares them as text (`astype(str)`: every such token and a blank are 'nan'), so a blank
`after` is scored, not refused: right where the answer is such a token, one wrong token elsewhere. A blank in a
column of classes whose answers and sample hold no such token is still refused."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import Competition, grade_submission, load_competition_dir
from swarm.competitions.submission_check import check_submission
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import Holdout, build_holdout
from tests.layouts.composite.miniatures import MISSING_WORDS, text_normalization_competition

TRAIN, TEST, SAMPLE = "en_train.csv", "en_test_2.csv", "en_sample_submission_2.csv"


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def split(tmp_path: Path, missing_words: bool = True) -> tuple[Harness, Holdout, Competition]:
    """The miniature (60 sentences, `after` a closed set of about 60 answers) split by the harness."""
    root = text_normalization_competition(tmp_path / "text-normalization", missing_words=missing_words)
    competition = load_competition_dir(root)
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=4)
    return Harness(holdout, competition.metric, competition.sample_submission), holdout, competition


def perfect(holdout: Holdout) -> pd.DataFrame:
    """The view's sample with every held-out token's true `after` (the test tokens keep the sample's)."""
    sample = read(holdout.public_dir / SAMPLE)
    truth = dict(zip(*read(holdout.labels_path)[["id", "after"]].to_dict("list").values(), strict=True))
    return sample.assign(after=[truth.get(i, a) for i, a in zip(sample["id"], sample["after"], strict=True)])


def test_the_split_keeps_the_words_in_the_labels_and_the_view(tmp_path: Path) -> None:
    _, holdout, _ = split(tmp_path)
    view, labels = holdout.public_dir, read(holdout.labels_path)
    test = read(view / TEST).assign(id=lambda t: t["sentence_id"] + "_" + t["token_id"])
    held = test[test["id"].isin(set(holdout.ids))].merge(labels, on="id")
    spoken = held[held["before"].isin(MISSING_WORDS)]
    assert len(spoken) >= 2 and (spoken["after"] == spoken["before"]).all()
    assert set(MISSING_WORDS) <= set(test["before"]) and set(MISSING_WORDS) <= set(
        read(view / SAMPLE)["after"]
    )
    train = read(view / TRAIN)
    words = train[train["before"].isin(MISSING_WORDS)]
    assert set(words["before"]) == set(MISSING_WORDS) and (words["after"] == words["before"]).all()


def test_a_blank_after_is_scored_as_a_missing_token_not_a_refused_file(tmp_path: Path) -> None:
    harness, holdout, competition = split(tmp_path)
    submission, rows = tmp_path / "submission.csv", tmp_path / "test_rows.csv"
    right = perfect(holdout)
    right.to_csv(submission, index=False)
    scored = harness.evaluate(submission, rows)
    assert scored.score == 1.0 and scored.note is None, scored.problem
    # Left blank: a held-out token whose answer is a word pandas reads as missing (right: both read as missing),
    # one whose answer is any other word (wrong), and a test token.
    labels = read(holdout.labels_path)
    word = labels.loc[labels["after"].isin(MISSING_WORDS), "id"].iloc[0]
    other = labels.loc[~labels["after"].isin(MISSING_WORDS), "id"].iloc[0]
    test_id = next(i for i in right["id"] if i not in set(holdout.ids))
    right.assign(after=right["after"].where(~right["id"].isin([word, other, test_id]), "")).to_csv(
        submission, index=False
    )
    scored = harness.evaluate(submission, rows)
    assert scored.problem is None
    assert scored.score == pytest.approx(1 - 1 / len(labels), abs=1e-6)
    assert scored.note is not None and "2 in 'after'" in scored.note and "scored, not refused" in scored.note
    # The test rows, checked against the competition's sample (which holds the words too), pass with the blank.
    spec = competition.metric
    assert read(rows)["after"].eq("").sum() == 1
    assert check_submission(rows, competition.sample_submission, spec.id_column, metric=spec) is None


def test_a_blank_class_is_still_refused_where_no_answer_reads_as_missing(tmp_path: Path) -> None:
    harness, holdout, competition = split(tmp_path, missing_words=False)
    right = perfect(holdout)
    held = next(i for i in right["id"] if i in set(holdout.ids))
    submission = tmp_path / "submission.csv"
    right.assign(after=right["after"].where(right["id"] != held, "")).to_csv(submission, index=False)
    scored = harness.evaluate(submission, tmp_path / "test_rows.csv")
    assert scored.score is None and "column 'after' has 1 missing/NaN value(s)" in str(scored.problem)
    rows = tmp_path / "test_rows.csv"
    test_rows = read(rows)
    test_rows.assign(after=test_rows["after"].where(test_rows.index != 0, "")).to_csv(rows, index=False)
    spec = competition.metric
    assert "1 missing/NaN" in str(
        check_submission(rows, competition.sample_submission, spec.id_column, metric=spec)
    )


def test_the_grader_scores_a_blank_after_as_a_missing_token(tmp_path: Path) -> None:
    root = text_normalization_competition(tmp_path / "text-normalization", missing_words=True)
    competition = load_competition_dir(root)
    answers = read(root / "prepared" / "private" / "answers.csv")
    assert set(MISSING_WORDS) <= set(answers["after"])
    submission = tmp_path / "submission.csv"
    word = answers.index[answers["after"].isin(MISSING_WORDS)][0]
    other = answers.index[~answers["after"].isin(MISSING_WORDS)][0]
    # A blank for a missing word, and another missing word ('null' for 'NA'): both read as missing, both right.
    spelled = answers["after"].where(answers.index != word, "")
    second = answers.index[answers["after"].isin(MISSING_WORDS) & (answers["after"] != "null")][1]
    spelled = spelled.where(answers.index != second, "null")
    answers.assign(after=spelled).to_csv(submission, index=False)
    report = grade_submission(competition, submission)
    assert report.valid and report.score == 1.0, report.reason
    assert report.note is not None and "1 in 'after'" in report.note
    # A blank for any other word is one wrong token.
    answers.assign(after=spelled.where(answers.index != other, "")).to_csv(submission, index=False)
    report = grade_submission(competition, submission)
    assert report.valid and report.score == pytest.approx(1 - 1 / len(answers), abs=1e-6), report.reason
