"""Examples at two levels, each with rows in the sample (siim-covid19-detection's studies and images): the layout
is recognised, the harness holds out whole studies with their images and writes their strings as prepare.py
writes the answers, and the offline coder reads both levels."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.competitions.grading import grade_submission
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import build_holdout
from swarm.layouts.levels.dicom_uids import (
    MEDIA_SOP,
    SERIES,
    SOP,
    STUDY,
    TRANSFER_SYNTAX,
    Unwalkable,
    find_uid_patches,
    rewrite_uids,
)
from swarm.layouts.levels.reader import level_fields, level_rows
from swarm.offline_coder.task import infer_task_from_dir
from tests.layouts.levels.miniatures import (
    EXPLICIT_LE,
    IMPLICIT_LE,
    SERIES_UID,
    SIIM_CLASSES,
    SOP_UID,
    STUDY_UID,
    dicom_bytes,
    dicom_element,
    siim_covid,
)


def _text(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def _key(row_id: str) -> str:
    """A row's study or image UID: its id less `_study` or `_image`."""
    return row_id.rsplit("_", 1)[0]


def test_the_layout_names_both_levels_and_the_column_linking_them(tmp_path: Path) -> None:
    public = siim_covid(tmp_path / "s") / "prepared" / "public"
    sample = _text(public / "sample_submission.csv")
    fields = level_fields(str(public), sorted(p.name for p in public.iterdir()), sample)
    assert fields is not None
    assert (fields["parent"], fields["child"], fields["link"]) == ("study", "image", "StudyInstanceUID")
    assert fields["levels"]["study"]["classes"] == list(SIIM_CLASSES)
    assert fields["levels"]["image"]["label"] == "label"
    # one level only, or ids without levels: not this layout
    studies = sample[sample["id"].str.endswith("_study")]
    assert level_fields(str(public), sorted(p.name for p in public.iterdir()), studies) is None


def test_a_studys_string_is_its_class_word_and_the_samples_dummy_box(tmp_path: Path) -> None:
    public = siim_covid(tmp_path / "s") / "prepared" / "public"
    sample = _text(public / "sample_submission.csv")
    fields = level_fields(str(public), sorted(p.name for p in public.iterdir()), sample)
    rows = level_rows(str(public), fields, "id", "PredictionString").set_index("id")
    studies = _text(public / "train_study_level.csv")
    assert len(studies) > 0 and set(studies["id"]) <= set(rows.index)
    for _, row in studies.iterrows():
        word = next(c for c in SIIM_CLASSES if row[c] == "1")
        assert rows.loc[row.id, "PredictionString"] == word.split()[0].lower() + " 1 0 0 1 1"
    images = _text(public / "train_image_level.csv").set_index("id")
    assert rows.loc[images.index, "PredictionString"].tolist() == images["label"].tolist()
    assert set(rows["level"]) == {"study", "image"}


def test_whole_studies_move_to_the_test_side_with_their_images(tmp_path: Path) -> None:
    root = siim_covid(tmp_path / "s", n_train=30, n_test=6)
    public = root / "prepared" / "public"
    holdout = build_holdout(
        load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.2, seed=1
    )
    view, own = holdout.public_dir, holdout.own_ids("held")  # each held-out row's fresh id -> its own
    labels = _text(holdout.root / "labels.csv").set_index("id")
    fresh_studies = {_key(i): _key(own[i]) for i in labels.index if i.endswith("_study")}
    held_studies = list(fresh_studies.values())
    assert len(held_studies) == 6 and holdout.n_train == 24
    images = _text(public / "train_image_level.csv")
    held_images = images[images["StudyInstanceUID"].isin(held_studies)]
    # every image of a held-out study is held out, scored by its own label; none is left in the view's tables
    assert sorted(own[i] for i in labels.index if i.endswith("_image")) == sorted(held_images["id"])
    by_own = {own[i]: s for i, s in labels["PredictionString"].items()}
    assert [by_own[i] for i in held_images["id"]] == held_images["label"].tolist()
    view_images, view_studies = _text(view / "train_image_level.csv"), _text(view / "train_study_level.csv")
    assert not set(view_images["StudyInstanceUID"]) & set(held_studies)
    assert not set(view_studies["id"]) & set(own.values())
    assert not set(view_images["id"]) & set(own.values())
    for (
        fresh,
        study,
    ) in fresh_studies.items():  # the study's folder is where the test's are, and no longer under train/
        assert not (view / "train" / study).exists() and not (view / "test" / study).exists()
        moved = sorted(p.stat().st_size for p in (view / "test" / fresh).rglob("*.dcm"))
        assert moved == sorted(p.stat().st_size for p in (public / "train" / study).rglob("*.dcm"))
    # the sample lists them with their level's dummy string, as it lists the test's
    sample = _text(view / "sample_submission.csv").set_index("id")
    shown = sample.loc[labels.index, "PredictionString"]
    assert (shown[shown.index.str.endswith("_study")] == "negative 1 0 0 1 1").all()
    assert (shown[shown.index.str.endswith("_image")] == "none 1 0 0 1 1").all()


def test_the_offline_coder_reads_both_levels_of_the_view(tmp_path: Path) -> None:
    root = siim_covid(tmp_path / "s")
    holdout = build_holdout(load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.2)
    task = infer_task_from_dir(str(holdout.public_dir))
    assert task["files"]["levels"]["parent"] == "study"
    assert [t["task"] for t in task["targets"]] == ["boxes"]  # each class's confidence at its mean box
    assert "level" in task["columns"]


# -- fresh ids (issue 30, point 2): held-out studies look like test studies -------------------------------------


def _uids(path: Path) -> dict[tuple[int, int], str]:
    """The UID elements a DICOM file's header names (tag -> value)."""
    return find_uid_patches(path, {}).found


def _files(folder: Path) -> dict[str, Path]:
    """Every DICOM file under `folder` by its image UID (its stem)."""
    return {p.stem: p for p in folder.rglob("*.dcm")}


def test_every_test_and_held_out_study_series_and_image_is_renamed_in_paths_tables_and_headers(
    tmp_path: Path,
) -> None:
    root = siim_covid(tmp_path / "s", n_train=30, n_test=10)
    public = root / "prepared" / "public"
    before = {p: p.read_bytes() for p in public.rglob("*.dcm")}
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=3)
    view = holdout.public_dir
    assert holdout.fresh_ids and "fresh id" in holdout.describe_ids() and not holdout.ids_note
    own_test, own_held = holdout.own_ids("test"), holdout.own_ids("held")
    sample = _text(view / "sample_submission.csv")
    assert set(sample["id"]) == set(own_test) | set(own_held) and set(own_held) == set(holdout.ids)
    assert sorted(own_test.values()) == sorted(_text(public / "sample_submission.csv")["id"])
    own_of = {_key(k): _key(v) for k, v in [*own_test.items(), *own_held.items()]}  # fresh key -> own key
    public_files = {**_files(public / "train"), **_files(public / "test")}
    files = _files(view / "test")
    assert set(own_of) >= set(files) and {own_of[i] for i in files} <= set(public_files)
    # No test or held-out study, series or image keeps its own UID: not in the sample, the test side's paths, nor
    # anywhere in its files' bytes.
    sources = [public_files[own_of[image]] for image in files]
    own_keys = {k for p in sources for k in (p.stem, p.parent.name, p.parent.parent.name)}
    assert own_keys >= set(own_of.values()) and not own_keys & set(own_of)
    test_side = list((view / "test").rglob("*"))
    assert not own_keys & {Path(part).stem for p in test_side for part in p.relative_to(view).parts}
    blob = b"".join(p.read_bytes() for p in test_side if p.is_file())
    assert not [k for k in own_keys if k.encode() in blob]
    # The view is consistent: each sample row's image has its file, in its study's folder, and every header names
    # the study, series and image its path names.
    assert files and {_key(i) for i in sample["id"] if i.endswith("_image")} == set(files)
    for image, path in files.items():
        series, study = path.parent.name, path.parent.parent.name
        assert f"{study}_study" in set(sample["id"]) and path.stat().st_nlink == 1  # a copy, not a link
        uids = _uids(path)
        assert uids == {
            MEDIA_SOP: image,
            SOP: image,
            STUDY: study,
            SERIES: series,
            TRANSFER_SYNTAX: uids[TRANSFER_SYNTAX],
        }
    # Each file is its own file with only its UIDs renamed (no length changed); the public files are as they were.
    for image, path in files.items():
        source, renamed = public_files[own_of[image]], public_files[own_of[image]].read_bytes()
        for old, new in zip(
            (source.stem, source.parent.name, source.parent.parent.name),
            (path.stem, path.parent.name, path.parent.parent.name),
            strict=True,
        ):
            renamed = renamed.replace(old.encode(), new.encode())
        assert path.read_bytes() == renamed
    assert {p: p.read_bytes() for p in public.rglob("*.dcm")} == before


def test_the_harness_scores_the_held_out_rows_and_maps_the_test_rows_back_for_grading(tmp_path: Path) -> None:
    root = siim_covid(tmp_path / "s", n_train=30, n_test=10)
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=3)
    own_test = holdout.own_ids("test")
    answers = _text(root / "prepared" / "private" / "test.csv").set_index("id")["PredictionString"]
    labels = _text(holdout.labels_path).set_index("id")["PredictionString"]
    # A solution that knew every answer, writing them under the view's ids.
    sample = _text(holdout.public_dir / "sample_submission.csv")
    sample["PredictionString"] = [
        labels[i] if i in labels.index else answers[own_test[i]] for i in sample["id"]
    ]
    sample.loc[sample["id"].str.endswith("_image"), "PredictionString"] = [
        s.replace("opacity 1 ", "opacity 0.9 ")
        for s in sample.loc[sample["id"].str.endswith("_image"), "PredictionString"]
    ]
    sample.to_csv(tmp_path / "submission.csv", index=False)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    result = harness.evaluate(tmp_path / "submission.csv", tmp_path / "test_part.csv")
    assert result.problem is None and result.score == 1.0, result.problem
    delivered = _text(tmp_path / "test_part.csv")  # the test rows under their own ids, in the sample's order
    assert delivered["id"].tolist() == _text(competition.sample_submission)["id"].tolist()
    report = grade_submission(competition, tmp_path / "test_part.csv")
    assert report.valid and report.score == 1.0, report.reason


CHANCE_MARGIN = 0.1  # |AUC - 0.5| allowed: about four standard errors for some 180 held-out and 300 test rows


def _auc(scores: np.ndarray, held: np.ndarray) -> float:
    """How often a held-out row scores above a test row (ties half): 0.5 is chance."""
    ranks = pd.Series(scores).rank().to_numpy()
    n_held, n_test = held.sum(), (~held).sum()
    return float((ranks[held].sum() - n_held * (n_held + 1) / 2) / (n_held * n_test))


def test_held_out_studies_and_images_cannot_be_told_from_test_ones(tmp_path: Path) -> None:
    """Guessers reading what the sandbox sees: the ids (as numbers), the sample's row order, and each row's files
    (an image's file, a study's folder: their mtimes, inodes, link counts and sizes, the series folder's too)."""
    root = siim_covid(tmp_path / "s", n_train=300, n_test=120)
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.3, seed=0)
    view = holdout.public_dir
    rows = _text(view / "sample_submission.csv")["id"]
    held = rows.isin(set(holdout.ids)).to_numpy()
    assert held.sum() > 150 and (~held).sum() > 250
    files = _files(view / "test")
    studies = {p.parent.parent.name: p.parent.parent for p in files.values()}

    def entry(row_id: str) -> Path:
        return files[_key(row_id)] if row_id.endswith("_image") else studies[_key(row_id)]

    def series(row_id: str) -> Path:
        return entry(row_id).parent if row_id.endswith("_image") else next(entry(row_id).iterdir())

    def size(path: Path) -> int:
        return path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.rglob("*.dcm"))

    guessers = {
        "id value": [int(_key(i), 16) for i in rows],
        "row order": list(range(len(rows))),
        "size": [size(entry(i)) for i in rows],
        **{
            f"{field}": [getattr(entry(i).stat(), field) for i in rows]
            for field in ("st_mtime_ns", "st_ino", "st_nlink")
        },
        **{
            f"series {field}": [getattr(series(i).stat(), field) for i in rows]
            for field in ("st_mtime_ns", "st_ino")
        },
    }
    found = {name: _auc(np.array(values, dtype=float), held) for name, values in guessers.items()}
    print({name: round(value, 3) for name, value in found.items()})  # noqa: T201 (figures, -s)
    beyond = {name: round(value, 3) for name, value in found.items() if abs(value - 0.5) > CHANCE_MARGIN}
    assert not beyond, f"guessers beat chance: {beyond} (all: {found})"


def _tag(group: int, element: int) -> bytes:
    return group.to_bytes(2, "little") + element.to_bytes(2, "little")


UNDEFINED = b"\xff\xff\xff\xff"
ITEM_END, SEQUENCE_END = _tag(0xFFFE, 0xE00D) + bytes(4), _tag(0xFFFE, 0xE0DD) + bytes(4)


def _item(elements: bytes, defined: bool) -> bytes:
    if defined:
        return _tag(0xFFFE, 0xE000) + len(elements).to_bytes(4, "little") + elements
    return _tag(0xFFFE, 0xE000) + UNDEFINED + elements + ITEM_END


def _sequence(tag: tuple[int, int], items: bytes, explicit: bool, defined: bool, vr: bytes = b"SQ") -> bytes:
    head = _tag(*tag) + (vr + bytes(2) if explicit else b"")
    if defined:
        return head + len(items).to_bytes(4, "little") + items
    return head + UNDEFINED + items + SEQUENCE_END


JPEG_2000 = "1.2.840.10008.1.2.4.90"  # a compressed syntax: its dataset is explicit VR little endian


@pytest.mark.parametrize("syntax", [EXPLICIT_LE, IMPLICIT_LE, JPEG_2000])
def test_the_header_walk_renames_uids_in_sequences_of_either_length_and_never_reads_the_pixel_data(
    tmp_path: Path, syntax: str
) -> None:
    explicit = syntax != IMPLICIT_LE
    image, study, series, short = "a1b2c3d4e5f6", "0a0b0c0d0e0f", "99887766aabb", "abcdefabcde"  # 11: padded

    def uid(tag: tuple[int, int], value: str) -> bytes:
        return dicom_element(tag, "UI", value.encode(), explicit)

    referenced = (0x0008, 0x1155)  # ReferencedSOPInstanceUID, inside the items
    extra = b"".join(
        [  # an undefined-length sequence of an undefined-length item and a defined-length one; a defined-length one
            _sequence(
                (0x0008, 0x1140),
                _item(uid(referenced, image), False) + _item(uid(referenced, short), True),
                explicit,
                False,
            ),
            _sequence((0x0008, 0x1115), _item(uid(SERIES, series), True), explicit, True),
            dicom_element((0x0010, 0x0010), "PN", b"anonymous", explicit),  # odd: padded with a space
        ]
    )
    if explicit:  # an explicit UN of undefined length: its items are implicit VR
        extra += _sequence(
            (0x0019, 0x1001),
            _item(dicom_element(referenced, "UI", image.encode(), False), False),
            True,
            False,
            b"UN",
        )
    pixels = (image + study + series).encode() * 4  # the pixel data holds the old ids' bytes: never touched
    data = dicom_bytes({SOP_UID: image, STUDY_UID: study, SERIES_UID: series}, pixels, syntax, extra)
    path = tmp_path / "x.dcm"
    path.write_bytes(data)
    renamed = {image: "111111111111", study: "222222222222", series: "333333333333", short: "44444444444"}
    uids = rewrite_uids(path, renamed)
    assert uids.found[STUDY] == study and uids.found[SOP] == image and not uids.misfits
    written = path.read_bytes()
    assert len(written) == len(data) and written.endswith(pixels)
    header = written[: -len(pixels)]
    assert not [old for old in renamed if old.encode() in header]
    assert header.count(b"111111111111") == (4 if explicit else 3) and b"44444444444\0" in header
    assert _uids(path) == {
        MEDIA_SOP: "111111111111",
        SOP: "111111111111",
        STUDY: "222222222222",
        SERIES: "333333333333",
        TRANSFER_SYNTAX: syntax,
    }
    # Nothing else changed: renaming back gives the file it was.
    back = {new: old for old, new in renamed.items()}
    rewrite_uids(path, back)
    assert path.read_bytes() == data


def test_a_header_that_cannot_be_walked_is_refused_saying_why(tmp_path: Path) -> None:
    uids = {SOP_UID: "a1b2c3d4e5f6", STUDY_UID: "0a0b0c0d0e0f", SERIES_UID: "99887766aabb"}
    good = dicom_bytes(uids, bytes(40))
    too_long = dicom_element((0x0008, 0x0031), "UT", b"")[:-4] + (10_000).to_bytes(4, "little")
    cases = {
        "big endian": dicom_bytes(uids, bytes(40), "1.2.840.10008.1.2.2"),
        "deflated": dicom_bytes(uids, bytes(40), "1.2.840.10008.1.2.1.99"),
        "no DICM": b"DICM" + bytes(400),
        "ends inside": good[:300],
        "runs past the end": dicom_bytes(uids, bytes(40), extra=too_long),
    }
    for words, data in cases.items():
        path = tmp_path / "x.dcm"
        path.write_bytes(data)
        with pytest.raises(Unwalkable) as refused:
            rewrite_uids(path, {"a1b2c3d4e5f6": "111111111111"})
        assert words in str(refused.value), (words, str(refused.value))
        assert path.read_bytes() == data  # left as it was


def test_test_files_whose_headers_are_not_as_expected_are_copied_and_the_run_says_so(tmp_path: Path) -> None:
    root = siim_covid(tmp_path / "s", n_train=30, n_test=10)
    public = root / "prepared" / "public"
    tests = sorted(public.joinpath("test").rglob("*.dcm"))
    other = {SOP_UID: "0123456789ab", STUDY_UID: "0123456789cd", SERIES_UID: "0123456789ef"}
    tests[0].write_bytes(dicom_bytes(other, bytes(40), "1.2.840.10008.1.2.2"))  # big endian: not rewritten
    tests[1].write_bytes(dicom_bytes(other, bytes(40)))  # names UIDs that are not its own
    holdout = build_holdout(
        load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.2, seed=3
    )
    assert holdout.fresh_ids
    note = holdout.ids_note
    assert "1 of the" in note and "copied as they are" in note and "big endian" in note, note
    assert "do not name their study, series and image in their headers as their paths do" in note, note
    assert note in holdout.describe_ids()
    own_test = {_key(k): _key(v) for k, v in holdout.own_ids("test").items()}
    files = {own_test[p.stem]: p for p in (holdout.public_dir / "test").rglob("*.dcm") if p.stem in own_test}
    for path in tests[:2]:  # copied (not linked) under their fresh names, their bytes as they were
        copy = files[path.stem]
        assert copy.read_bytes() == path.read_bytes() and copy.stat().st_nlink == 1
    assert files[tests[2].stem].read_bytes() != tests[2].read_bytes()


def test_competition_json_keep_ids_keeps_them_and_says_so(tmp_path: Path) -> None:
    root = siim_covid(tmp_path / "s", n_train=30, n_test=10)
    settings = json.loads((root / "competition.json").read_text())
    (root / "competition.json").write_text(json.dumps({**settings, "keep_ids": True}))
    holdout = build_holdout(
        load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.2, seed=3
    )
    assert not holdout.fresh_ids and "keep_ids" in holdout.describe_ids()
    public, view = root / "prepared" / "public", holdout.public_dir
    sample = set(_text(view / "sample_submission.csv")["id"])
    assert set(_text(public / "sample_submission.csv")["id"]) <= sample and set(holdout.ids) <= sample
    assert all(p.stat().st_nlink == 1 for p in (view / "test").rglob("*.dcm"))  # copied anew all the same


def test_an_implicit_value_that_only_begins_like_a_sequence_is_skipped_as_a_value(tmp_path: Path) -> None:
    uids = {SOP_UID: "a1b2c3d4e5f6", STUDY_UID: "0a0b0c0d0e0f", SERIES_UID: "99887766aabb"}
    odd = (
        _tag(0x0009, 0x1001) + (16).to_bytes(4, "little") + _tag(0xFFFE, 0xE000) + (255).to_bytes(4, "little")
    )
    path = tmp_path / "x.dcm"
    path.write_bytes(dicom_bytes(uids, bytes(40), IMPLICIT_LE, odd + b"a1b2c3d4"))
    found = rewrite_uids(path, {"0a0b0c0d0e0f": "222222222222"})
    assert found.found[STUDY] == "0a0b0c0d0e0f" and _uids(path)[STUDY] == "222222222222"


def test_a_disk_without_room_for_the_copies_keeps_the_ids_and_says_so(tmp_path: Path, monkeypatch) -> None:
    """The test side is copied under fresh ids only where the disk has room for it; else the ids are kept (the
    files linked, as before) and the run says why, rather than failing half-way through the copies."""
    import shutil as shutil_module

    from swarm.layouts.levels import split as level_split

    root = siim_covid(tmp_path / "s", n_train=30, n_test=10)
    full = shutil_module.disk_usage(tmp_path)._replace(free=100)
    monkeypatch.setattr(level_split.shutil, "disk_usage", lambda _path: full)
    holdout = build_holdout(
        load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.2, seed=3
    )
    assert not holdout.fresh_ids and "the disk has 0.0 GB free" in holdout.describe_ids()
    view = holdout.public_dir
    assert set(holdout.ids) <= set(_text(view / "sample_submission.csv")["id"])
