"""The data preview: tree, per-CSV column summaries, JSON structure, size bounds and unreadable files."""

import gzip
import os
import re

import numpy as np
import pandas as pd
import pytest

from swarm.preview.data import describe_file, preview


@pytest.fixture
def comp(tmp_path):
    """A small Titanic-like competition directory."""
    root = tmp_path / "input"
    root.mkdir()
    rng = np.random.default_rng(0)
    n = 200
    train = pd.DataFrame(
        {
            "PassengerId": np.arange(1, n + 1),
            "Age": np.where(rng.random(n) < 0.25, np.nan, rng.uniform(1, 80, n)),
            "Sex": rng.choice(["male", "female"], n, p=[0.7, 0.3]),
            "Survived": rng.integers(0, 2, n),
            "Flag": rng.random(n) < 0.5,
            "Empty": [np.nan] * n,
        }
    )
    train.to_csv(root / "train.csv", index=False)
    train.drop(columns=["Survived"]).head(50).to_csv(root / "test.csv", index=False)
    pd.DataFrame({"PassengerId": [1, 2], "Survived": [0, 1]}).to_csv(
        root / "sample_submission.csv", index=False
    )
    return root, train


def _block(text, name):
    """The description block of file `name` in a preview."""
    start = text.index(f"\n{name}: ")
    end = text.find("\n\n", start + 1)
    return text[start + 1 : end if end != -1 else None]


def test_tree_lists_files_with_sizes(comp):
    root, _ = comp
    text = preview(root)
    assert text.startswith("Files:\ninput/\n")
    size_kb = (root / "train.csv").stat().st_size / 1000
    assert f"  train.csv ({size_kb:.1f} kB)" in text
    assert "  sample_submission.csv (" in text


def test_csv_shape_and_column_stats_match_pandas(comp):
    root, train = comp
    block = _block(preview(root, max_chars=20_000), "train.csv")
    assert block.startswith("train.csv: 200 rows x 6 columns")
    age = train["Age"]
    age_line = next(line for line in block.splitlines() if line.strip().startswith("Age:"))
    assert f"{100 * age.isna().mean():.1f}% missing" in age_line
    assert f"{age.nunique():,} unique" in age_line
    assert f"min {age.min():.4g}, max {age.max():.4g}, mean {age.mean():.4g}" in age_line
    sex_line = next(line for line in block.splitlines() if line.strip().startswith("Sex:"))
    counts = train["Sex"].value_counts()
    assert f"'{counts.index[0]}' ({counts.iloc[0]})" in sex_line
    assert "min" not in sex_line
    assert re.search(r"Flag: bool, 0\.0% missing, 2 unique, \d+\.\d% true", block)
    assert "Empty: float64, 100.0% missing, all missing" in block


def test_priority_order_train_test_then_others(comp):
    root, _ = comp
    (root / "aaa.csv").write_text("x\n1\n")
    text = preview(root, max_chars=20_000)
    order = [
        text.index(f"\n{name}: ") for name in ("train.csv", "test.csv", "sample_submission.csv", "aaa.csv")
    ]
    assert order == sorted(order)


def test_many_files_are_collapsed_with_counts(tmp_path):
    images = tmp_path / "images"
    images.mkdir()
    for i in range(300):
        (images / f"{i:04d}.jpg").write_bytes(b"x" * 10)
    for i in range(7):
        (images / f"{i}.png").write_bytes(b"y")
    (images / "labels.csv").write_text("id,label\n1,cat\n")
    text = preview(tmp_path, max_entries=10)
    assert "... 303 more files (303 files" in text
    assert "297 .jpg, 6 .png" in text
    assert "    labels.csv (" in text  # a data file wins a visible place
    assert text.count(".jpg (") <= 4
    assert "labels.csv: 1 row x 2 columns" in text


def test_deep_directories_are_summarised(tmp_path):
    deep = tmp_path / "a" / "b" / "c" / "d"
    deep.mkdir(parents=True)
    for i in range(4):
        (deep / f"{i}.txt").write_text("hello")
    text = preview(tmp_path, max_depth=2)
    assert "    b/ (4 files, 20 B: 4 .txt)" in text
    assert "d/" not in text


def test_many_directories_are_cut(tmp_path):
    for i in range(25):
        (tmp_path / f"d{i:02d}").mkdir()
    text = preview(tmp_path, max_entries=10)
    assert "... 15 more directories" in text
    assert "d09/" in text and "d10/" not in text


def test_huge_csv_is_read_in_part_and_says_so(tmp_path):
    pd.DataFrame({"a": np.arange(5000), "b": ["t"] * 5000}).to_csv(tmp_path / "big.csv", index=False)
    text = describe_file(tmp_path / "big.csv")
    assert "5,000 rows x 2 columns" in text
    text = preview(tmp_path, max_rows=1000)
    assert "first 1,000 rows read of a" in text
    estimate = int(re.search(r"about ([\d,]+) rows in all", text)[1].replace(",", ""))
    assert 4000 < estimate < 6000
    assert "max 999," in text  # stats come from the rows read


def test_many_columns_are_cut_with_a_note(tmp_path):
    frame = pd.DataFrame(np.zeros((3, 100)), columns=[f"f{i}" for i in range(100)])
    frame["name"] = "x"
    frame.to_csv(tmp_path / "wide.csv", index=False)
    text = preview(tmp_path, max_chars=50_000, max_columns=10)
    assert "3 rows x 101 columns (first 10 columns shown)" in text
    assert "  f9: float64" in text and "  f10:" not in text
    assert "... and 91 more columns (90 float64, 1 str)" in text


@pytest.fixture(scope="module")
def crowded(tmp_path_factory):
    """Six 60-column CSVs and six directories of 40 binary files each."""
    root = tmp_path_factory.mktemp("crowded")
    rng = np.random.default_rng(1)
    for k in range(6):
        frame = pd.DataFrame(
            rng.normal(size=(100, 60)), columns=[f"column_with_a_long_name_{i}" for i in range(60)]
        )
        frame.to_csv(root / f"t{k}.csv", index=False)
        sub = root / f"sub{k}"
        sub.mkdir()
        for i in range(40):
            (sub / f"f{i}.bin").write_bytes(b"\x00")
    return root


@pytest.mark.parametrize("budget", [0, 1, 50, 200, 500, 1000, 3000, 10_000])
def test_output_never_exceeds_budget(crowded, budget):
    text = preview(crowded, max_chars=budget)
    assert len(text) <= budget
    if budget >= 1000:
        assert "t0.csv: 100 rows x 60 columns" in text
        assert "not described to fit" in text


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("empty.csv", b"", "empty.csv: empty file (0 bytes)"),
        ("blank.csv", b"\n\n  \n", "no columns"),
        ("header.csv", b"a,b,c\n", "header.csv: 0 rows x 3 columns"),
        ("binary.csv", bytes(range(256)) * 10, "binary content"),
        ("latin.csv", "name\nJosé\nZoë\n".encode("latin-1"), "not valid UTF-8, read as latin-1"),
        ("ragged.csv", b"a,b\n1,2\n3,4,5\n6,7\n", "malformed rows skipped"),
        ("bad.json", b'{"a": ', "not valid JSON"),
        ("latin.json", '{"é": 1}'.encode("latin-1"), "not UTF-8 text"),
        (
            "obj.json",
            b'{"a": [1, 2], "b": {"c": 1}, "d": null}',
            "JSON object with 3 keys: a (list[2]), b (object[1]), d (null)",
        ),
        (
            "arr.json",
            b'[{"id": 1, "y": 2}, {"id": 2}]',
            "JSON array of 2 items; first item: object[2] with keys id, y",
        ),
        (
            "lines.jsonl",
            b'{"text": "hi", "label": 1}\n{"text": "yo"}\n',
            "first record: object with 2 keys: text (str), label (int)",
        ),
        ("badlines.jsonl", b"not json\n", "first line is not valid JSON"),
        ("scalar.json", b"42", "JSON scalar int: 42"),
    ],
)
def test_odd_files_are_described_not_raised(tmp_path, name, content, expected):
    (tmp_path / name).write_bytes(content)
    text = preview(tmp_path, max_chars=5000)
    assert expected in text


def test_ragged_csv_keeps_good_rows(tmp_path):
    (tmp_path / "ragged.csv").write_bytes(b"a,b\n1,2\n3,4,5\n6,7\n")
    assert "ragged.csv: 2 rows x 2 columns" in describe_file(tmp_path / "ragged.csv")


def test_gzipped_and_tab_separated_tables(tmp_path):
    with gzip.open(tmp_path / "train.csv.gz", "wt") as handle:
        handle.write("a,b\n1,x\n2,y\n")
    (tmp_path / "data.tsv").write_text("a\tb\tc\n1\t2\t3\n")
    text = preview(tmp_path)
    assert "train.csv.gz: 2 rows x 2 columns (gz-compressed)" in text
    assert "data.tsv: 1 row x 3 columns" in text


def test_broken_symlink_and_symlink_loop(tmp_path):
    (tmp_path / "dangling.csv").symlink_to(tmp_path / "missing.csv")
    (tmp_path / "loop").symlink_to(tmp_path)
    text = preview(tmp_path)
    assert "dangling.csv (size unknown" in text
    assert "dangling.csv: could not be read (FileNotFoundError" in text
    assert "loop/ [link to a directory already shown]" in text


def test_unlistable_directory_is_reported(tmp_path, monkeypatch):
    """Listing `locked/` fails as for a non-root user without permission (root could list a chmod-0 dir)."""
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "hidden.csv").write_text("a\n1\n")
    (tmp_path / "open.csv").write_text("b\n2\n")
    real_scandir = os.scandir

    def scandir(path="."):
        if os.fspath(path) == os.fspath(locked):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    text = preview(tmp_path)
    assert "locked/\n    [cannot list: Permission denied]" in text
    assert "open.csv" in text and "hidden.csv" not in text


def test_single_file_and_bad_arguments(comp, tmp_path):
    root, _ = comp
    text = preview(root / "test.csv")
    assert text.startswith("Files:\ntest.csv (")
    assert "test.csv: 50 rows x 5 columns" in text
    with pytest.raises(FileNotFoundError, match="nowhere"):
        preview(tmp_path / "nowhere")
    with pytest.raises(ValueError, match="max_chars"):
        preview(root, max_chars=-5)
    with pytest.raises(ValueError, match="max_rows"):
        preview(root, max_rows=0)


def test_empty_directory(tmp_path):
    assert preview(tmp_path) == f"Files:\n{tmp_path.name}/"
