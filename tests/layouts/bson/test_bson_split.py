"""BSON documents a product (cdiscount-image-classification-challenge): the harness streams train.bson, moving
drawn documents into test.bson with a test document's fields (no category), their pictures byte for byte, and out
of train_example.bson; every document of the view's test.bson, test and held-out alike, gets a fresh `_id` of the
test ids' format (issue 30, point 2) that the harness maps back; guesses from ids, order and sizes find the held-out
documents no better than chance; where the disk has no room for the view's copies it refuses in one sentence."""

from __future__ import annotations

import json
import os
import shutil
import struct
from collections import namedtuple
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.competitions.grading import score_submission
from swarm.evaluation.fresh_ids import draw_fresh_ids, draw_fresh_numbers
from swarm.evaluation.harness import Harness
from swarm.layouts.bson.reader import documents, encode, scalars, without_fields
from swarm.layouts.bson.split import field_names, kind_of, select_fields, with_value
from swarm.layouts.holdout import NoHoldout, build_holdout
from tests.layouts.bson.miniatures import cdiscount

CHANCE_MARGIN = (
    0.12  # |AUC - 0.5| allowed: about four standard errors for ~150 held-out and 300 test documents
)


def _by_id(path: Path) -> dict[str, bytes]:
    return {str(scalars(d)["_id"]): d for d in documents(path)}


def _pictures(document: bytes) -> bytes:
    """A document without its id and category: what a product shows besides them."""
    return without_fields(document, {"_id", "category_id"})


def test_held_out_documents_join_the_test_file_under_fresh_ids_without_their_category(tmp_path: Path) -> None:
    root = cdiscount(tmp_path / "c", n_train=60, n_test=10)
    public = root / "prepared" / "public"
    holdout = build_holdout(
        load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.25, seed=4
    )
    view = holdout.public_dir
    own_held, own_test = holdout.own_ids("held"), holdout.own_ids("test")  # fresh id -> its own
    labels = pd.read_csv(holdout.root / "labels.csv", dtype=str).set_index("_id")
    originals, kept, tests = (
        _by_id(public / "train.bson"),
        _by_id(view / "train.bson"),
        _by_id(view / "test.bson"),
    )
    held = set(labels.index)
    assert held and held == set(holdout.ids) == set(own_held) and len(own_test) == 10
    assert len(held) + len(kept) == 60 and not set(own_held.values()) & set(kept)
    assert set(tests) == held | set(own_test)
    public_tests = _by_id(public / "test.bson")
    for fresh, own in own_held.items():  # its pictures as they were, its category only in labels.csv
        assert tests[fresh] == with_value(without_fields(originals[own], {"category_id"}), "_id", fresh, 0x10)
        assert labels.loc[fresh, "category_id"] == str(scalars(originals[own])["category_id"])
    for fresh, own in own_test.items():
        assert tests[fresh] == with_value(public_tests[own], "_id", fresh, 0x10)
    assert all(kept[k] == originals[k] for k in kept)
    # train_example.bson is the first documents of the view's train.bson, as MLE-bench's is of its train.bson
    examples = list(documents(view / "train_example.bson"))
    assert examples == list(documents(view / "train.bson"))[:5]
    assert not set(own_held.values()) & set(_by_id(view / "train_example.bson"))
    assert holdout.hidden_side_files == ["train_example.bson"]
    sample = pd.read_csv(view / "sample_submission.csv", dtype=str)
    assert sample["_id"].tolist() == list(tests) and len(sample) == 10 + len(held)  # the file's order
    assert not (holdout.root / "held.bson").exists()


def test_every_test_side_id_is_fresh_of_the_test_ids_format_and_the_files_stay_whole(tmp_path: Path) -> None:
    root = cdiscount(tmp_path / "c", n_train=60, n_test=10)
    public = root / "prepared" / "public"
    public_stats = {p.name: p.stat() for p in public.iterdir()}
    holdout = build_holdout(
        load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.25, seed=4
    )
    view = holdout.public_dir
    assert holdout.fresh_ids and holdout.describe_ids().startswith(
        "every test and held-out row has a fresh id"
    )
    originals = {*_by_id(public / "train.bson"), *_by_id(public / "test.bson")}
    shown = list(_by_id(view / "test.bson"))
    # No document of the view's test file keeps its own id, nor takes a training or test product's; the ids are
    # numbers of the test ids' width, ascending in the file as MLE-bench's test file is.
    assert shown and not set(shown) & originals and len(set(shown)) == len(shown)
    widths = {len(i) for i in _by_id(public / "test.bson")}
    assert {len(i) for i in shown} == widths and [int(i) for i in shown] == sorted(int(i) for i in shown)
    for document in documents(
        view / "test.bson"
    ):  # each length header right, each _id an int32 as the test's
        assert struct.unpack_from("<i", document)[0] == len(document)
        assert kind_of(document, "_id") == 0x10 and field_names(document) == ["_id", "imgs"]
    assert sum(1 for _ in documents(view / "test.bson")) == len(shown)
    for name in ("train.bson", "test.bson", "train_example.bson"):  # copies, dated as the public files
        copy = (view / name).stat()
        assert copy.st_ino != public_stats[name].st_ino and copy.st_mtime_ns == public_stats[name].st_mtime_ns
        assert (public / name).stat().st_size == public_stats[name].st_size  # the public files untouched


def test_the_delivered_submission_is_mapped_back_to_the_products_own_ids(tmp_path: Path) -> None:
    root = cdiscount(tmp_path / "c", n_train=60, n_test=10)
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.25, seed=4)
    view = holdout.public_dir
    answers = pd.read_csv(root / "prepared" / "private" / "answers.csv", dtype=str).set_index("_id")
    labels = pd.read_csv(holdout.labels_path, dtype=str).set_index("_id")["category_id"]
    own_test = holdout.own_ids("test")
    sample = pd.read_csv(view / "sample_submission.csv", dtype=str)
    right = [
        labels[i] if i in labels.index else answers.loc[own_test[i], "category_id"] for i in sample["_id"]
    ]
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    submission = tmp_path / "submission.csv"
    sample.assign(category_id=right).to_csv(submission, index=False)
    result = harness.evaluate(submission, tmp_path / "test_part.csv")
    assert result.score == 1.0 and result.problem is None
    delivered = pd.read_csv(tmp_path / "test_part.csv", dtype=str)
    assert delivered["_id"].tolist() == answers.index.tolist()  # the competition's own ids, in its order
    assert score_submission(competition, tmp_path / "test_part.csv") == 1.0


def _auc(scores: np.ndarray, held: np.ndarray) -> float:
    """How often a held-out document scores above a test one (ties half): 0.5 is chance."""
    ranks = pd.Series(scores).rank().to_numpy()
    n_held, n_test = held.sum(), (~held).sum()
    return float((ranks[held].sum() - n_held * (n_held + 1) / 2) / (n_held * n_test))


def test_guesses_from_ids_order_and_sizes_find_the_held_out_documents_no_better_than_chance(
    tmp_path: Path,
) -> None:
    root = cdiscount(tmp_path / "c", n_train=600, n_test=300)
    holdout = build_holdout(
        load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.25, seed=0
    )
    view = holdout.public_dir
    test_documents = list(documents(view / "test.bson"))
    ids = np.array([scalars(d)["_id"] for d in test_documents], dtype=float)
    held = np.isin([str(int(i)) for i in ids], holdout.ids)
    assert held.sum() == len(holdout.ids) > 100 and (~held).sum() == 300
    train = np.sort([scalars(d)["_id"] for d in documents(view / "train.bson")]).astype(float)
    at = np.clip(np.searchsorted(train, ids), 1, len(train) - 1)
    guesses = {
        "id": ids,
        "nearest training id": np.minimum(np.abs(ids - train[at - 1]), np.abs(ids - train[at])),
        "gap to the previous id": np.diff(ids, prepend=ids[0]),
        "place in the file": np.arange(len(ids), dtype=float),
        "size": np.array([len(d) for d in test_documents], dtype=float),
        "fields": np.array([len(field_names(d)) for d in test_documents], dtype=float),
    }
    found = {name: round(_auc(scores, held), 3) for name, scores in guesses.items()}
    print(found)  # noqa: T201 (figures, -s)
    beyond = {name: value for name, value in found.items() if abs(value - 0.5) > CHANCE_MARGIN}
    assert not beyond, f"guesses beat chance: {beyond} (all: {found})"


def test_a_held_out_document_takes_the_test_documents_fields_order_and_id_type(tmp_path: Path) -> None:
    """Training documents that name their fields in another order, hold one the test's lack, and store `_id` as
    int64 (the test's are int32): a held-out one is written as a test one is, so its bytes do not tell it."""
    root = cdiscount(tmp_path / "c", n_train=60, n_test=10)
    public = root / "prepared" / "public"
    rewritten = []
    for document in documents(public / "train.bson"):
        fields = scalars(document)
        body = (
            select_fields(document, ["imgs"])[4:-1]  # the pictures' element, as it was
            + b"\x10category_id\x00"
            + struct.pack("<i", fields["category_id"])
            + b"\x12_id\x00"
            + struct.pack("<q", fields["_id"])
            + b"\x08reviewed\x00\x01"
        )
        rewritten.append(struct.pack("<i", len(body) + 5) + body + b"\x00")
    (public / "train.bson").write_bytes(b"".join(rewritten))
    (public / "train_example.bson").write_bytes(b"".join(rewritten[:5]))
    holdout = build_holdout(
        load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.25, seed=4
    )
    own_held = holdout.own_ids("held")
    originals = _by_id(public / "train.bson")
    tests = _by_id(holdout.public_dir / "test.bson")
    assert own_held and set(own_held) <= set(tests)
    for fresh, own in own_held.items():
        document = tests[fresh]
        assert field_names(document) == ["_id", "imgs"] and kind_of(document, "_id") == 0x10
        assert _pictures(document) == without_fields(originals[own], {"_id", "category_id", "reviewed"})
    assert {len(tests[i]) - len(_pictures(tests[i])) for i in tests} == {9}  # each id an int32 element


def test_with_value_keeps_the_ids_type_and_the_length_header_right() -> None:
    pictures = [{"picture": b"\xff\xd8 jpeg"}]
    small = encode({"_id": 7, "imgs": pictures})
    assert with_value(small, "_id", "123456", 0x10) == encode({"_id": 123456, "imgs": pictures})
    large = with_value(small, "_id", str(2**40), 0x10)  # beyond int32: int64, as pymongo writes it
    assert large == encode({"_id": 2**40, "imgs": pictures}) and kind_of(large, "_id") == 0x12
    wide = with_value(small, "_id", "5", 0x12)  # an int64 id stays int64
    assert kind_of(wide, "_id") == 0x12 and scalars(wide)["_id"] == 5
    assert struct.unpack_from("<i", wide)[0] == len(wide) == len(small) + 4
    text = with_value(encode({"_id": "abc", "imgs": pictures}), "_id", "a longer id", 0x02)
    assert text == encode({"_id": "a longer id", "imgs": pictures})
    oid = with_value(small, "_id", "00" * 11 + "2a", 0x07)
    assert scalars(oid)["_id"] == "00" * 11 + "2a" and struct.unpack_from("<i", oid)[0] == len(oid)
    with pytest.raises(ValueError, match="without _id"):
        with_value(encode({"imgs": pictures}), "_id", "1", 0x10)


@pytest.mark.parametrize(
    ("space", "low"), [(3_000, 0), (10**8, 0), (3_000, -5_000)], ids=["dense", "sampled", "signed"]
)
def test_numbers_drawn_beside_an_array_of_taken_ids_are_those_drawn_from_the_ids_as_text(
    space: int, low: int
) -> None:
    """cdiscount's millions of training ids are kept as an int64 array, not as text (`draw_fresh_numbers`):
    the fresh ids are the ones `draw_fresh_ids` draws, in a dense range, a wide one (sampled) and a signed one."""
    ids = np.random.default_rng(5).choice(space, 2_400, replace=False) + low
    train, test = ids[:2_000], np.sort(ids[2_000:2_400])
    order = np.random.default_rng(6).permutation(len(test) + 100)
    as_array = draw_fresh_numbers(order, test.tolist(), np.sort(train), 100, np.random.default_rng(7))
    as_text = draw_fresh_ids(
        order, [str(i) for i in test], {str(i) for i in train}, 100, np.random.default_rng(7)
    )
    assert (
        as_array == as_text and as_array.fresh and not {*as_array.test, *as_array.held} & set(map(str, train))
    )


def test_keep_ids_in_competition_json_keeps_them_and_says_so(tmp_path: Path) -> None:
    root = cdiscount(tmp_path / "c", n_train=60, n_test=10)
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "accuracy"}, "keep_ids": True}))
    public = root / "prepared" / "public"
    holdout = build_holdout(
        load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.25, seed=4
    )
    assert not holdout.fresh_ids and '"keep_ids": true' in holdout.describe_ids()
    tests = _by_id(holdout.public_dir / "test.bson")
    assert set(tests) == set(holdout.ids) | set(_by_id(public / "test.bson"))


def test_a_test_file_whose_documents_are_not_the_samples_rows_is_refused(tmp_path: Path) -> None:
    root = cdiscount(tmp_path / "c", n_train=60, n_test=10)
    public = root / "prepared" / "public"
    sample = pd.read_csv(public / "sample_submission.csv", dtype=str)
    sample.iloc[:-1].to_csv(public / "sample_submission.csv", index=False)  # one test product not listed
    with pytest.raises(
        NoHoldout, match=r"test.bson has a document whose _id \(\d+\) the sample lists not once"
    ):
        build_holdout(load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.25, seed=4)
    assert not (tmp_path / "h" / "held.bson").exists()


def test_no_room_for_the_copies_is_refused_in_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = cdiscount(tmp_path / "c")
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9, 100))
    with pytest.raises(NoHoldout, match=r"needs copies of train.bson and test.bson .* has 0.0 GB free"):
        build_holdout(load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.2)


def test_bson_documents_without_a_test_file_of_documents_are_named_in_the_refusal(tmp_path: Path) -> None:
    root = cdiscount(tmp_path / "c")
    (root / "prepared" / "public" / "test.bson").unlink()
    with pytest.raises(NoHoldout, match="the labelled examples seem to be the BSON documents of train.bson"):
        build_holdout(load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.2)


def test_the_public_files_are_never_written_through_a_link(tmp_path: Path) -> None:
    root = cdiscount(tmp_path / "c", n_train=60, n_test=10)
    public = root / "prepared" / "public"
    before = {p.name: p.read_bytes() for p in public.iterdir() if p.is_file()}
    holdout = build_holdout(
        load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.25, seed=4
    )
    assert {p.name: p.read_bytes() for p in public.iterdir() if p.is_file()} == before
    linked = {p.name for p in holdout.public_dir.iterdir() if p.stat().st_nlink > 1}
    assert not linked & {"train.bson", "test.bson", "train_example.bson", "sample_submission.csv"}
    assert (
        os.stat(holdout.public_dir / "category_names.csv").st_ino
        == os.stat(public / "category_names.csv").st_ino
    )
