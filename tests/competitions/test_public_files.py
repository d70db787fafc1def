"""Checks of the public files a run needs: empty files, test columns and ids that do not match."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import CompetitionError, list_bundled, load_competition, load_competition_dir
from swarm.competitions.public_files import check_public_files


@pytest.fixture
def titanic(cache_dir: Path, tmp_path: Path) -> Path:
    """A copy of the bundled titanic that a test may break; returns its public dir."""
    root = tmp_path / "titanic"
    shutil.copytree(load_competition("titanic", cache_dir).root, root)
    return root / "prepared" / "public"


def check(public: Path) -> None:
    check_public_files(load_competition_dir(public.parent.parent))


@pytest.mark.parametrize("competition_id", list_bundled())
def test_every_bundled_competition_passes(cache_dir: Path, competition_id: str) -> None:
    check_public_files(load_competition(competition_id, cache_dir))


def test_an_empty_train_file_fails(titanic: Path) -> None:
    (titanic / "train.csv").write_text("")
    with pytest.raises(CompetitionError, match=r"public/train.csv is empty$"):
        check(titanic)


def test_a_train_file_with_a_header_only_fails(titanic: Path) -> None:
    header = (titanic / "train.csv").read_text().splitlines()[0]
    (titanic / "train.csv").write_text(header + "\n")
    with pytest.raises(CompetitionError, match=r"train.csv has a header but no rows"):
        check(titanic)


def test_empty_train_dirs_and_test_files_fail_too(titanic: Path) -> None:
    (titanic / "train_images").mkdir()
    with pytest.raises(CompetitionError, match=r"train_images is an empty directory"):
        check(titanic)
    (titanic / "train_images" / "1.png").write_bytes(b"png")
    (titanic / "test.csv").write_text("")
    with pytest.raises(CompetitionError, match=r"test.csv is empty"):
        check(titanic)


def test_a_test_column_train_lacks_fails(titanic: Path) -> None:
    test = pd.read_csv(titanic / "test.csv")
    test.assign(Cabin="C85").to_csv(titanic / "test.csv", index=False)
    with pytest.raises(
        CompetitionError, match=r"test.csv does not match train.csv: it has column\(s\) 'Cabin'"
    ):
        check(titanic)


def test_a_feature_missing_from_test_fails(titanic: Path) -> None:
    pd.read_csv(titanic / "test.csv").drop(columns=["Age"]).to_csv(titanic / "test.csv", index=False)
    with pytest.raises(
        CompetitionError, match=r"it lacks column\(s\) 'Age', which are not targets \('Survived'\)"
    ):
        check(titanic)


def test_train_only_columns_pass_without_declared_targets(titanic: Path) -> None:
    """E.g. leaf-classification or siim-isic: train has columns beside the target that test lacks."""
    (titanic.parent.parent / "competition.json").unlink()
    pd.read_csv(titanic / "test.csv").drop(columns=["Age"]).to_csv(titanic / "test.csv", index=False)
    check(titanic)
    pd.read_csv(titanic / "test.csv").assign(Cabin="C85").to_csv(titanic / "test.csv", index=False)
    with pytest.raises(CompetitionError, match=r"it has column\(s\) 'Cabin' that train.csv lacks"):
        check(titanic)


def test_test_ids_that_differ_from_the_sample_submission_fail(titanic: Path) -> None:
    test = pd.read_csv(titanic / "test.csv")
    test.loc[:2, "PassengerId"] += 100_000
    test.to_csv(titanic / "test.csv", index=False)
    with pytest.raises(CompetitionError) as info:
        check(titanic)
    message = str(info.value)
    assert "the 'PassengerId' ids of" in message and "do not match sample_submission.csv's" in message
    assert "3 not in sample_submission.csv (e.g. '100" in message and "3 missing (e.g." in message


def test_a_dir_without_train_or_test_csv_is_not_checked_for_columns(titanic: Path) -> None:
    (titanic / "test.csv").rename(titanic / "test_features.csv")
    check(titanic)
