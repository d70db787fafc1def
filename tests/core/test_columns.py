"""Column understanding (swarm/formats/columns.py) and its part of the data preview (swarm/preview/columns.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from swarm.formats.columns import column_kinds, resolve_file
from swarm.preview.columns import describe_columns
from swarm.preview.data import preview

WORDS = ["good", "bad", "great", "awful", "tasty", "bland", "fresh", "stale", "love", "hate"]


@pytest.fixture(scope="module")
def table_dir(tmp_path_factory):
    """train.csv/test.csv with one column of every kind, and images named by `image` in train/ and test/."""
    root = tmp_path_factory.mktemp("kinds")
    rng = np.random.default_rng(0)
    n, n_train = 400, 300
    names = [f"{i:06x}" for i in rng.choice(1_000_000, n, replace=False)]
    for folder in ("train", "test"):
        (root / folder).mkdir()
    for i, name in enumerate(names):
        folder = "train" if i < n_train else "test"
        Image.fromarray((rng.random((10, 14)) * 255).astype(np.uint8), "L").save(
            root / folder / f"{name}.png"
        )
    frame = pd.DataFrame(
        {
            "row_id": np.arange(n) + 1000,
            "image": names,  # stems of files in train/ or test/
            "review": [" ".join(rng.choice(WORDS, 7)) for _ in range(n)],
            "when": pd.date_range("2021-03-01", periods=n, freq="h").astype(str),
            "product": [f"P{k}" for k in rng.integers(0, 150, n)],
            "token": [f"t{k:08x}" for k in rng.choice(10**8, n, replace=False)],
            "amount": rng.normal(size=n),
            "colour": rng.choice(["red", "green", "blue"], n),
            "flag": 1,
            "label": rng.integers(0, 2, n),
        }
    )
    frame.iloc[:n_train].to_csv(root / "train.csv", index=False)
    frame.iloc[n_train:].drop(columns="label").to_csv(root / "test.csv", index=False)
    return root


def test_every_kind_is_recognised(table_dir):
    train = pd.read_csv(table_dir / "train.csv")
    test = pd.read_csv(table_dir / "test.csv")
    kinds = column_kinds(train, test, skip=("label",), data_dir=str(table_dir))
    assert "label" not in kinds
    assert {name: info["kind"] for name, info in kinds.items()} == {
        "row_id": "identifier",
        "image": "file",
        "review": "text",
        "when": "datetime",
        "product": "high_cardinality",
        "token": "identifier",
        "amount": "numeric",
        "colour": "categorical",
        "flag": "constant",
    }
    assert kinds["image"] | {"folders": sorted(kinds["image"]["folders"])} == {
        "kind": "file",
        "match": "stem",
        "folders": ["test", "train"],
        "suffix": ".png",
        "image": True,
    }
    assert kinds["when"]["test_after_train"] is True
    assert kinds["colour"]["levels"] == 3
    path = resolve_file(test["image"].iloc[0], kinds["image"], str(table_dir))
    assert path is not None and path.endswith(f"test/{test['image'].iloc[0]}.png")


def test_dates_that_overlap_are_not_after_train():
    dates = pd.Series(pd.date_range("2020-01-01", periods=100, freq="D").astype(str))
    shuffled = dates.sample(frac=1.0, random_state=0).reset_index(drop=True)
    kinds = column_kinds(pd.DataFrame({"d": shuffled[:80]}), pd.DataFrame({"d": shuffled[80:]}))
    assert kinds["d"]["kind"] == "datetime"
    assert kinds["d"]["test_after_train"] is False


def test_without_a_data_dir_file_names_are_not_files_and_short_codes_are_not_text():
    frame = pd.DataFrame(
        {
            "file": [f"img_{i}.jpg" for i in range(200)],
            "code": [f"A/{i % 80}" for i in range(200)],
            "year": [2000 + i % 20 for i in range(200)],
            "number_like_id": np.random.default_rng(1).permutation(200),
        }
    )
    kinds = {name: info["kind"] for name, info in column_kinds(frame).items()}
    assert kinds == {
        "file": "identifier",
        "code": "high_cardinality",
        "year": "numeric",
        "number_like_id": "identifier",
    }


def test_files_named_with_their_extension_or_by_path(tmp_path):
    (tmp_path / "audio").mkdir()
    for i in range(20):
        (tmp_path / "audio" / f"clip{i}.wav").write_bytes(b"RIFF" + bytes(i))
    by_name = column_kinds(pd.DataFrame({"f": [f"clip{i}.wav" for i in range(20)]}), data_dir=str(tmp_path))
    by_path = column_kinds(
        pd.DataFrame({"f": [f"audio/clip{i}.wav" for i in range(20)]}), data_dir=str(tmp_path)
    )
    assert by_name["f"] | {"kind": "file"} == {
        "kind": "file",
        "match": "name",
        "folders": ["audio"],
        "suffix": ".wav",
        "image": False,
        "audio": True,  # sound clips: the offline coder reads them (swarm/formats/audio.py)
    }
    assert by_path["f"]["match"] == "path"
    assert resolve_file("audio/clip3.wav", by_path["f"], str(tmp_path)) == str(tmp_path / "audio/clip3.wav")
    assert resolve_file("clip99.wav", by_name["f"], str(tmp_path)) is None


def test_preview_shows_what_matters_per_kind(table_dir):
    block = describe_columns(table_dir)
    assert block is not None
    lines = {line.split(":")[0].strip(): line for line in block.splitlines()[1:]}
    assert (
        "free text" in lines["review"] and "median 7 words" in lines["review"] and "e.g." in lines["review"]
    )
    assert "test lies after train" in lines["when"] and "2021-03-01 00:00:00" in lines["when"]
    assert "files in test/, train/" in lines["image"] or "files in train/, test/" in lines["image"]
    assert "14x10 L" in lines["image"] and ".png" in lines["image"]
    train, test = pd.read_csv(table_dir / "train.csv"), pd.read_csv(table_dir / "test.csv")
    levels = pd.concat([train["product"], test["product"]]).nunique()
    unseen = (~test["product"].isin(set(train["product"]))).mean()
    assert f"high-cardinality code: {levels} levels, {unseen:.0%} of test values unseen" in lines["product"]
    assert lines["identifiers (unique per row; no signal)"].endswith("row_id, token")
    assert "only in train.csv (targets?): label" in block
    assert block in preview(table_dir, max_chars=20_000)


def test_preview_stays_within_its_budget_with_column_kinds(table_dir):
    for budget in (500, 1500, 4000):
        assert len(preview(table_dir, max_chars=budget)) <= budget


def test_files_named_by_their_stem_with_an_upper_case_extension_are_found_and_are_images(tmp_path):
    """`train/<id>.PNG` named by `<id>`: the path is built with the extension as written (it had been lower-cased,
    so no file was found and every solution had no image features at all)."""
    (tmp_path / "train").mkdir()
    for i in range(20):
        Image.new("L", (4, 4), i).save(tmp_path / "train" / f"img{i}.PNG", format="PNG")
    kinds = column_kinds(pd.DataFrame({"f": [f"img{i}" for i in range(20)]}), data_dir=str(tmp_path))
    assert kinds["f"]["suffix"] == ".PNG" and kinds["f"]["image"] is True
    assert resolve_file("img3", kinds["f"], str(tmp_path)) == str(tmp_path / "train" / "img3.PNG")
