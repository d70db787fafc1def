"""Submissions whose id joins columns of the test table (issue 29, point 3): text normalization's
`en_sample_submission_2.csv` names each token `<sentence_id>_<token_id>`, and no table has an `id` column. The
harness finds the key columns, holds out whole sentences of `en_train.csv`, moves them to `en_test_2.csv` (no
`after`, no `class`, sentence ids that collide with the test's re-keyed), lists their joined ids in the sample and
scores `after` by accuracy; labels stay private."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition, load_competition_dir
from swarm.evaluation.harness import Harness
from swarm.layouts.composite.split import group_order
from swarm.layouts.holdout import Holdout, NoHoldout, build_holdout
from tests.competitions.archive_builders import make_zip
from tests.layouts.composite.miniatures import spelled, text_normalization_competition

TRAIN, TEST, SAMPLE = "en_train.csv", "en_test_2.csv", "en_sample_submission_2.csv"


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def joined(frame: pd.DataFrame) -> list[str]:
    return (frame["sentence_id"] + "_" + frame["token_id"]).tolist()


def test_whole_sentences_move_to_the_test_table_under_new_sentence_ids(tmp_path: Path) -> None:
    root = text_normalization_competition(tmp_path / "text-normalization")
    public = root / "prepared" / "public"
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2, seed=4)

    assert holdout.key_columns == ["sentence_id", "token_id"] and holdout.table == TRAIN
    assert holdout.split == "group:sentence_id" and holdout.rekeyed
    assert "labelled rows of en_train.csv (ids <sentence_id>_<token_id>)" in holdout.describe()
    view = holdout.public_dir
    original, train = read(public / TRAIN), read(view / TRAIN)
    test, sample = read(view / TEST), read(view / SAMPLE)
    test_before = read(public / TEST)
    # The view's train keeps whole sentences; the held-out ones are gone from it.
    assert list(train.columns) == list(original.columns) and holdout.n_train == len(train)
    kept = set(train["sentence_id"])
    assert all((original["sentence_id"] == s).sum() == (train["sentence_id"] == s).sum() for s in kept)
    # The test table holds its own rows and the held-out ones, with its columns only, every sentence (test and
    # held-out) under a fresh sentence id that no training sentence has.
    assert list(test.columns) == ["sentence_id", "token_id", "before"]
    assert holdout.fresh_ids and not set(test["sentence_id"]) & set(original["sentence_id"])
    moved = test[pd.Series(joined(test), index=test.index).isin(set(holdout.ids))]
    assert len(moved) == len(holdout.ids) == len(original) - len(train)
    assert len(test) == len(test_before) + len(moved)
    assert sorted(joined(moved)) == sorted(holdout.ids)
    assert moved["sentence_id"].nunique() >= 10 and len(kept) + moved["sentence_id"].nunique() == 60
    # A sentence's tokens stay together and in order; sentences are shuffled in among the test's.
    for _, tokens in test.groupby("sentence_id", sort=False):
        assert tokens["token_id"].astype(int).tolist() == list(range(len(tokens)))
        assert tokens.index.to_series().diff().dropna().eq(1).all()
    assert test["sentence_id"].tolist() != sorted(test["sentence_id"], key=int)
    # The sample lists exactly the test's and the held-out ids, in the test table's order.
    assert sample["id"].tolist() == joined(test)
    own_test = holdout.own_ids("test")  # each test row's fresh id -> its own
    assert set(own_test.values()) == set(joined(test_before)) and set(sample["id"]) == set(own_test) | set(
        holdout.ids
    )
    # labels.csv: each held-out id's `after`, private.
    labels = read(holdout.labels_path)
    assert list(labels.columns) == ["id", "after"] and sorted(labels["id"]) == sorted(holdout.ids)
    before = dict(zip(joined(moved), moved["before"], strict=True))
    spoken = [spelled(int(b)) if b.isdigit() else b for b in labels["id"].map(before)]
    assert labels["after"].tolist() == spoken
    assert oct(holdout.labels_path.stat().st_mode & 0o777) == "0o600"
    assert not {"after", "class"} & set(test.columns)


def test_a_perfect_submission_scores_1_and_a_wrong_one_lower(tmp_path: Path) -> None:
    root = text_normalization_competition(tmp_path / "text-normalization")
    competition = load_competition_dir(root)
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=1)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    sample = read(holdout.public_dir / SAMPLE)
    truth = dict(zip(*read(holdout.labels_path).to_dict("list").values(), strict=True))
    submission = tmp_path / "submission.csv"

    sample.assign(after=[truth.get(i, a) for i, a in zip(sample["id"], sample["after"], strict=True)]).to_csv(
        submission, index=False
    )
    perfect = harness.evaluate(submission, tmp_path / "test_rows.csv")
    assert perfect.score == 1.0, perfect.problem
    assert (
        read(tmp_path / "test_rows.csv")["id"].tolist() == read(competition.sample_submission)["id"].tolist()
    )
    # Every third held-out token gets another token's `after` (a label train has, so still a valid prediction).
    held = [i for i in sample["id"] if i in truth]
    wrong = {i: truth[held[(k + 1) % len(held)]] if k % 3 == 0 else truth[i] for k, i in enumerate(held)}
    sample.assign(after=[wrong.get(i, a) for i, a in zip(sample["id"], sample["after"], strict=True)]).to_csv(
        submission, index=False
    )
    worse = harness.evaluate(submission, tmp_path / "test_rows.csv")
    assert worse.score is not None and 0.5 < worse.score < 1.0, worse.problem


def test_an_explicit_split_wins_and_held_out_rows_are_still_rekeyed(tmp_path: Path) -> None:
    root = text_normalization_competition(tmp_path / "text-normalization")
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2, split="random")
    assert holdout.split == "random" and holdout.split_reason == "set by evaluation.split"
    test = read(holdout.public_dir / TEST)
    moved = test[pd.Series(joined(test), index=test.index).isin(set(holdout.ids))]
    assert sorted(joined(moved)) == sorted(holdout.ids) and len(moved) == len(holdout.ids)
    assert read(holdout.public_dir / SAMPLE)["id"].tolist() == joined(test)


def test_ids_no_columns_join_give_todays_refusal(tmp_path: Path) -> None:
    root = text_normalization_competition(tmp_path / "text-normalization")
    public = root / "prepared" / "public"
    sample = read(public / SAMPLE)
    sample.assign(id="t" + sample["id"]).to_csv(public / SAMPLE, index=False)  # `t0_0`: in no column
    with pytest.raises(NoHoldout, match="there is no train.csv of labelled rows"):
        build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2)


def test_zipped_tables_and_a_side_table_of_the_labelled_tokens(tmp_path: Path) -> None:
    """As MLE-bench ships it, every table zipped: the view extracts them, the harness splits the extracted
    CSVs and leaves the zips out (en_train.csv.zip holds every label). A side table with a row per labelled
    token (keyed by sentence_id and token_id) loses the held-out tokens' rows."""
    root = text_normalization_competition(tmp_path / "text-normalization")
    public = root / "prepared" / "public"
    read(public / TRAIN)[["sentence_id", "token_id", "class"]].to_csv(
        public / "token_classes.csv", index=False
    )
    for name in (TRAIN, TEST, SAMPLE):
        make_zip(public / f"{name}.zip", {name: (public / name).read_bytes()})
        (public / name).unlink()
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=2)

    view = holdout.public_dir
    assert holdout.key_columns == ["sentence_id", "token_id"] and not list(view.glob("*.zip"))
    assert holdout.hidden_side_files == ["token_classes.csv"]
    classes, train = read(view / "token_classes.csv"), read(view / TRAIN)
    assert joined(classes) == joined(train)


def test_a_holdout_saved_before_key_columns_loads(tmp_path: Path) -> None:
    root = text_normalization_competition(tmp_path / "text-normalization")
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2)
    saved = json.loads((holdout.root / "holdout.json").read_text())
    del saved["key_columns"]
    (holdout.root / "holdout.json").write_text(json.dumps(saved))
    assert Holdout.load(holdout.root).key_columns == []


def test_group_order_shuffles_whole_groups() -> None:
    values = pd.Series(["a", "a", "b", "c", "c", "c", "d"])
    order = group_order(values, np.random.default_rng(0))
    shuffled = values.iloc[order].tolist()
    assert sorted(order) == list(range(7))
    assert [k for k, _ in itertools.groupby(shuffled)] == list(dict.fromkeys(shuffled))


def test_a_side_table_keyed_by_the_sentence_follows_its_fresh_id(tmp_path: Path) -> None:
    """A table beside the test's naming each test sentence by `sentence_id` is rewritten with the fresh ids (as a
    side table keyed by the id is in the whole-table split); one naming them in another column keeps the ids."""
    root = text_normalization_competition(tmp_path / "text-normalization")
    public = root / "prepared" / "public"
    sentences = sorted(set(read(public / TEST)["sentence_id"]), key=int)
    pd.DataFrame({"sentence_id": sentences, "source": "news"}).to_csv(public / "en_sources.csv", index=False)
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2, seed=4)
    view = holdout.public_dir
    sources, test = read(view / "en_sources.csv"), read(view / TEST)
    own = holdout.own_ids("test")  # `<sentence>_<token>` in the view -> its own
    own_sentence = {i.split("_")[0]: o.split("_")[0] for i, o in own.items()}
    assert holdout.fresh_ids and set(sources["sentence_id"]) <= set(test["sentence_id"])
    assert sorted((own_sentence[s] for s in sources["sentence_id"]), key=int) == sentences

    pd.DataFrame({"about": sentences}).to_csv(public / "en_sources.csv", index=False)
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h2", fraction=0.2, seed=4)
    assert not holdout.fresh_ids and "en_sources.csv's about names the rows too" in holdout.describe_ids()
