"""TFRecords in the harness's view (issue 29): a held-out image's record moves from the training TFRecords to the
test ones without its labels, so a solution that reads TFRecords finds every row it must predict; and the
TFRecord format itself (swarm/formats/tfrecords.py), read and written without TensorFlow."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition_dir
from swarm.evaluation import tfrecord_split
from swarm.formats import tfrecords
from swarm.layouts.holdout import build_holdout
from tests.layouts.tables.image_miniatures import cassava, siim_isic, tf_records


def test_crc32c_and_the_frame_tensorflow_writes():
    assert tfrecords.crc32c(b"123456789") == 0xE3069283  # CRC-32C's check value
    data = tfrecords.example({"image_name": b"a", "target": 1})
    raw = tfrecords.frame(data)
    (length,) = struct.unpack("<Q", raw[:8])
    assert length == len(data) and raw[12 : 12 + length] == data
    crc = tfrecords.crc32c(data)
    assert struct.unpack("<I", raw[-4:])[0] == (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def test_a_file_another_writer_wrote_reads_and_frames_the_same():
    """data/written_by_tfrecord_package.tfrec: 3 Examples written by the `tfrecord` package (1.14.6, PyPI; its
    protobuf Example, crc32c's CRC) with `image` bytes, `image_name`, `target` (int64) and `age_approx` (float):
    read here field by field, and framed again byte for byte as that writer framed them."""
    path = Path(__file__).parent / "data" / "written_by_tfrecord_package.tfrec"
    records = list(tfrecords.read_records(path))
    assert len(records) == 3
    for k, record in enumerate(records):
        assert set(tfrecords.features(record.data)) == {"image", "image_name", "target", "age_approx"}
        assert tfrecords.bytes_value(record.data, "image") == bytes(range(k, k + 40))
        assert tfrecords.first_value(record.data, "image_name") == f"ISIC_{k:07d}"
        assert tfrecords.first_value(record.data, "target") == str(k % 2)
        assert tfrecords.first_value(record.data, "age_approx") == repr(30.0 + k)
        assert tfrecords.frame(record.data) == record.raw


def test_crc32c_side_by_side_is_crc32c():
    rng = np.random.default_rng(4)
    blobs = [rng.bytes(int(n)) for n in rng.integers(0, 5000, 60)] + [b"", b"123456789"]
    assert tfrecords.crc32c_many(blobs) == [tfrecords.crc32c(b) for b in blobs]


def test_records_read_back_and_fields_drop(tmp_path: Path):
    path = tmp_path / "a.tfrec"
    data = [
        tfrecords.example({"image": b"\xff\xd8", "image_name": f"n{k}".encode(), "target": k})
        for k in range(3)
    ]
    tfrecords.write_records(path, [tfrecords.frame(d) for d in data])
    records = list(tfrecords.read_records(path))
    assert [r.data for r in records] == data and b"".join(r.raw for r in records) == path.read_bytes()
    assert tfrecords.features(data[1]) == ["image", "image_name", "target"]
    assert tfrecords.bytes_value(data[1], "image_name") == b"n1"
    stripped = tfrecords.without_fields(data[1], {"image", "image_name"}, ("image_name", b"new"))
    assert tfrecords.features(stripped) == ["image", "image_name"]
    assert tfrecords.bytes_value(stripped, "image_name") == b"new"
    assert tfrecords.bytes_value(stripped, "image") == b"\xff\xd8"
    path.write_bytes(path.read_bytes()[:-3])
    with pytest.raises(tfrecords.TFRecordError, match="ends inside a record"):
        list(tfrecords.read_records(path))


def view_records(folder: Path, side: str) -> dict[str, list[bytes]]:
    """{file name: its records' data} of the TFRecord files in `folder` whose names hold `side`."""
    return {
        path.name: [r.data for r in tfrecords.read_records(path)]
        for path in sorted(folder.glob("*.tfrec"))
        if side in path.name
    }


def names(records: list[bytes]) -> list[str]:
    return [tfrecords.bytes_value(data, "image_name").decode() for data in records]


@pytest.mark.parametrize(
    ("build", "id_column", "train_dir", "test_dir"),
    [
        (siim_isic, "image_name", "tfrecords", "tfrecords"),
        (cassava, "image_id", "train_tfrecords", "test_tfrecords"),
    ],
)
def test_held_out_images_move_to_the_test_tfrecords_without_labels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, build, id_column, train_dir, test_dir
):
    monkeypatch.setattr(tfrecord_split, "CRC_BATCH_BYTES", 100)  # held-out records framed a few at a time
    competition = load_competition_dir(build(tmp_path / "c"))
    public = competition.public_dir
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.25, seed=2)
    view = holdout.public_dir
    held = set(pd.read_csv(holdout.labels_path, dtype=str)[id_column])
    own_test = holdout.own_ids("test")  # every test and held-out image has a fresh id, inside its record too
    test_ids = set(own_test)
    listed = set(pd.read_csv(view / "sample_submission.csv", dtype=str)[id_column])
    assert holdout.fresh_ids and held and test_ids and listed == test_ids | held
    assert not test_ids & set(own_test.values())
    before = {p.name: [r.raw for r in tfrecords.read_records(p)] for p in sorted(public.rglob("*.tfrec"))}

    train_view, test_view = view_records(view / train_dir, "train"), view_records(view / test_dir, "test")
    # training files: every kept image's record, byte for byte, none of a held-out image; counts in the names
    kept_raw = [raw for name, raws in before.items() if "train" in name for raw in raws]
    view_raw = [r.raw for p in sorted((view / train_dir).glob("*train*")) for r in tfrecords.read_records(p)]
    assert set(view_raw) <= set(kept_raw) and len(view_raw) == len(kept_raw) - len(held)
    assert not set(sum((names(r) for r in train_view.values()), [])) & held
    for name, records in {**train_view, **test_view}.items():
        assert name.split("-")[-1] == f"{len(records)}.tfrec", name
    # test files: the test images and every held-out image once; a held-out image's record has the test records'
    # fields but the labels, which MLE-bench's test TFRecords hold (Kaggle's training files renamed)
    in_test = sum((names(r) for r in test_view.values()), [])
    assert sorted(in_test) == sorted(test_ids | held) and len(in_test) == len(test_ids | held)
    test_files = sorted((view / test_dir).glob("*test*"))
    assert test_files
    for path in test_files:  # rewritten records are framed with their CRCs
        assert all(tfrecords.frame(r.data) == r.raw for r in tfrecords.read_records(path))
    first_test = next(tfrecords.read_records(next(public.rglob("*test*.tfrec"))))
    test_fields = set(tfrecords.features(first_test.data))
    assert "target" in test_fields
    label_fields = {"target", "diagnosis", "benign_malignant"} & test_fields
    for records in test_view.values():
        for data in records:
            fields = set(tfrecords.features(data))
            if names([data])[0] in held:
                assert fields == test_fields - label_fields, fields
            else:
                assert fields == test_fields
    # nothing of the move is left beside the view
    assert not list(holdout.root.glob("*.spool")) and not list(holdout.root.glob("*.partial"))
    # the report lists the TFRecord files among the side files rewritten
    listed = {f for f in holdout.hidden_side_files if f.endswith(".tfrec")}
    assert listed == {str(p.relative_to(public)) for p in public.rglob("*.tfrec")}


def test_tfrecords_naming_no_labelled_image_are_left_out(tmp_path: Path):
    root = siim_isic(tmp_path / "c")
    public = root / "prepared" / "public"
    for path in public.glob("tfrecords/train*.tfrec"):  # records keyed by something the table does not name
        tf_records(
            path, pd.DataFrame({"image_name": [f"other_{k}" for k in range(20)], "target": 1}), "image_name"
        )
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=2)
    left = sorted(p.name for p in (holdout.public_dir / "tfrecords").iterdir())
    assert left == ["test00-10.tfrec"]


def test_a_labels_field_is_found_where_the_table_repeats_ids(tmp_path: Path):
    """The labelled table may hold an id on several rows (windows of one recording): each id's first row is
    compared with its record, and a field holding the label is still dropped."""
    train, test = tmp_path / "train00-3.tfrec", tmp_path / "test00-1.tfrec"
    rows = [(b"a", 1), (b"b", 0), (b"c", 1)]
    tfrecords.write_records(train, [tfrecords.frame(tfrecords.example({"name": n, "y": y})) for n, y in rows])
    tfrecords.write_records(test, [tfrecords.frame(tfrecords.example({"name": b"d", "y": 0}))])
    table = pd.DataFrame({"id": ["a", "a", "b", "c"], "label": ["1", "1", "0", "1"]})
    labelled = tfrecord_split.LabelledRows(table, "id", ("label",), None)
    assert tfrecord_split._layout(train, test, labelled) == ({"name"}, "name")


def test_every_row_of_the_view_has_its_image_in_each_test_folder_named_by_ids(tmp_path: Path):
    """siim-isic names each image by its id twice on the test side (`jpeg/test/<id>.jpg`, `test/<id>.dcm`): in
    the view every test and held-out row has both under its fresh id (a held-out image's DICOM had been left out,
    which told it apart), copies with a test file's mtime."""
    competition = load_competition_dir(siim_isic(tmp_path / "c"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.25, seed=2)
    view, public = holdout.public_dir, competition.public_dir
    rows = set(pd.read_csv(view / "sample_submission.csv", dtype=str)["image_name"])
    for folder, suffix in (("jpeg/test", ".jpg"), ("test", ".dcm")):
        files = sorted((view / folder).iterdir())
        assert {p.name for p in files} == {f"{row}{suffix}" for row in rows}, folder
        assert all(p.stat().st_nlink == 1 for p in files)
        stamps = {p.stat().st_mtime_ns for p in (public / folder).iterdir()}
        assert {p.stat().st_mtime_ns for p in files} <= stamps
    own = {**holdout.own_ids("test"), **holdout.own_ids("held")}
    assert rows and rows == set(own)
    for row in rows:  # each under its fresh name holds its own image's bytes
        sides = [public / side / f"{own[row]}.dcm" for side in ("test", "train")]
        source = next(path for path in sides if path.is_file())
        assert (view / "test" / f"{row}.dcm").read_bytes() == source.read_bytes()
