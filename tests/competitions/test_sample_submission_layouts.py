"""The sample submission is found by what it is, not by three names (issue 29, point 1): MLE-bench's
competitions also name it `kaggle_sample_submission.csv` or `randomPredictions.csv`, or zip it; among several
candidates the one with a row per test item is it; where none can be read, one sentence says what the dir holds."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import CompetitionError
from swarm.competitions.competition import find_id_column, find_sample_submission, load_competition_dir
from swarm.competitions.submission_check import check_submission

SAMPLE = "id,label\n" + "".join(f"{i},0\n" for i in range(10, 16))


def public_dir(root: Path, **files: str | bytes) -> Path:
    """prepared/public with description.md, train.csv and test.csv (6 test rows), plus `files`."""
    public = root / "prepared" / "public"
    public.mkdir(parents=True)
    (root / "prepared" / "private").mkdir()
    (public / "description.md").write_text("# A competition\n")
    (public / "train.csv").write_text("id,x,label\n" + "".join(f"{i},{i % 3},{i % 2}\n" for i in range(10)))
    (public / "test.csv").write_text("id,x\n" + "".join(f"{i},{i % 3}\n" for i in range(10, 16)))
    for name, content in files.items():
        path = public / name.replace("__", ".")
        (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    return public


def zipped(name: str, text: str) -> bytes:
    import io

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(name, text)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "name",
    ["kaggle_sample_submission.csv", "randomPredictions.csv", "sample_submission_v2.csv", "submission.csv"],
)
def test_a_sample_submission_named_otherwise_is_found(tmp_path: Path, name: str) -> None:
    public = public_dir(tmp_path, **{name.replace(".", "__"): SAMPLE})
    assert find_sample_submission(public) == public / name
    competition = load_competition_dir(tmp_path, metric="accuracy")
    assert competition.sample_submission == public / name
    assert competition.metric is not None and competition.metric.target_columns == ("label",)


def test_a_zipped_sample_submission_is_read_as_its_csv(tmp_path: Path) -> None:
    public = public_dir(tmp_path, sample_submission__csv__zip=zipped("sample_submission.csv", SAMPLE))
    competition = load_competition_dir(tmp_path, metric="accuracy")
    assert competition.sample_submission == public / "sample_submission.csv.zip"
    assert list(pd.read_csv(competition.sample_submission).columns) == ["id", "label"]
    # A submission is checked against it as against a plain CSV.
    written = tmp_path / "submission.csv"
    written.write_text(SAMPLE.replace(",0\n", ",1\n"))
    assert check_submission(written, competition.sample_submission, "id") is None


def test_the_usual_name_wins(tmp_path: Path) -> None:
    public = public_dir(tmp_path, sample_submission__csv=SAMPLE, randomPredictions__csv=SAMPLE)
    assert find_sample_submission(public) == public / "sample_submission.csv"


def test_among_several_the_one_with_a_row_per_test_item(tmp_path: Path) -> None:
    short = "id,label\n10,0\n"
    public = public_dir(tmp_path, old_submission__csv=short, randomPredictions__csv=SAMPLE)
    assert find_sample_submission(public) == public / "randomPredictions.csv"


def test_test_items_in_a_folder_count_too(tmp_path: Path) -> None:
    public = public_dir(tmp_path, a_submission__csv="id,label\n1,0\n", b_submission__csv=SAMPLE)
    (public / "test.csv").unlink()
    (public / "test").mkdir()
    for i in range(6):
        (public / "test" / f"{i}.png").write_bytes(b"png")
    assert find_sample_submission(public) == public / "b_submission.csv"


def test_two_candidates_that_both_fit_are_refused_in_one_sentence(tmp_path: Path) -> None:
    public = public_dir(tmp_path, sample_a__csv=SAMPLE, sample_b__csv=SAMPLE)
    with pytest.raises(
        CompetitionError, match=r"several tables .*sample_a.csv, sample_b.csv.*sample_submission.csv"
    ):
        find_sample_submission(public)


def test_an_archive_that_is_not_one_csv_is_named(tmp_path: Path) -> None:
    public_dir(tmp_path, sample_submission__7z=b"7z\xbc\xaf\x27\x1c not readable here")
    with pytest.raises(CompetitionError) as refused:
        load_competition_dir(tmp_path)
    message = str(refused.value)
    assert "\n" not in message
    assert "sample_submission.csv is missing" in message
    assert "sample_submission.7z cannot be read as one CSV (extract it)" in message
    assert "description.md, sample_submission.7z, test.csv, train.csv" in message


def test_train_and_test_tables_are_never_taken_for_it(tmp_path: Path) -> None:
    public = public_dir(tmp_path, test_predictions__csv=SAMPLE)
    with pytest.raises(CompetitionError, match="sample_submission.csv is missing"):
        find_sample_submission(public)


def test_the_id_column_is_the_one_that_matches_the_test_items_not_the_first(tmp_path: Path) -> None:
    """A sample whose first column is the target (the value to predict), its ids second."""
    public = public_dir(
        tmp_path, sample_submission__csv="label,id\n" + "".join(f"0,{i}\n" for i in range(10, 16))
    )
    competition = load_competition_dir(tmp_path, metric="accuracy")
    assert competition.metric is not None
    assert competition.metric.id_column == "id" and competition.metric.target_columns == ("label",)
    assert find_id_column(public / "sample_submission.csv", ["label", "id"]) == "id"


def test_ids_that_name_test_files_are_found(tmp_path: Path) -> None:
    public = public_dir(
        tmp_path, sample_submission__csv="has_cactus,file\n" + "".join(f"0.5,{i}.jpg\n" for i in range(4))
    )
    (public / "test.csv").unlink()
    (public / "test").mkdir()
    for i in range(4):
        (public / "test" / f"{i}.jpg").write_bytes(b"jpg")
    assert find_id_column(public / "sample_submission.csv", ["has_cactus", "file"]) == "file"


def test_the_first_column_stays_the_id_when_nothing_matches(tmp_path: Path) -> None:
    public = public_dir(
        tmp_path, sample_submission__csv="key,label\n" + "".join(f"k{i},0\n" for i in range(6))
    )
    assert find_id_column(public / "sample_submission.csv", ["key", "label"]) == "key"


def test_a_sample_written_with_its_index_names_the_id_by_value_and_copies_the_index(tmp_path: Path) -> None:
    """iwildcam-2019's sample is `to_csv(index=True)`: an unnamed column of row numbers, then `Id` (test.csv's
    `id` but for case), then `Category`: the id is `Id`, the row numbers are copied, not predicted."""
    rows = "".join(f"{k},{i},0\n" for k, i in enumerate(range(10, 16)))
    public_dir(tmp_path, sample_submission__csv=",Id,label\n" + rows)
    competition = load_competition_dir(tmp_path, metric="accuracy")
    spec = competition.metric
    assert spec is not None
    assert (spec.id_column, spec.target_columns, spec.passthrough_columns) == (
        "Id",
        ("label",),
        ("Unnamed: 0",),
    )
    assert find_id_column(competition.sample_submission, ["Unnamed: 0", "Id", "label"]) == "Id"


def test_an_unnamed_column_that_is_not_the_row_numbers_is_a_target(tmp_path: Path) -> None:
    rows = "".join(f"{k + 1},{i},0\n" for k, i in enumerate(range(10, 16)))  # 1.. not 0..: not an index
    public_dir(tmp_path, sample_submission__csv=",id,label\n" + rows)
    spec = load_competition_dir(tmp_path, metric="accuracy").metric
    assert spec is not None and spec.passthrough_columns == () and "Unnamed: 0" in spec.target_columns


def test_an_id_matching_no_test_column_but_for_case_and_values_is_not_taken(tmp_path: Path) -> None:
    other = "".join(f"{k},{i},0\n" for k, i in enumerate(range(20, 26)))  # `Id` values not test.csv's `id`
    public_dir(tmp_path, sample_submission__csv=",Id,label\n" + other)
    assert (
        find_id_column(
            tmp_path / "prepared" / "public" / "sample_submission.csv", ["Unnamed: 0", "Id", "label"]
        )
        == "Unnamed: 0"
    )
