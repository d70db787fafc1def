"""Two layouts the offline coder reads as a row per unit (issue 29, point 7): target images, a row per pixel
(denoising-dirty-documents: swarm/layouts/pixels/reader.py), and a row per (example, class) over a wide labelled table
(rsna-2022-cervical-spine-fracture-detection: swarm/layouts/long_classes/reader.py). Their features and rows are checked
here by hand; tests/faults/test_offline_layouts.py runs the main job with no key on both."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from swarm.layouts.long_classes.reader import long_class_fields, long_class_rows
from swarm.layouts.pixels.reader import _window_extreme, _window_mean, pixel_fields, pixel_rows, pixel_stems
from swarm.offline_coder.render import render_preamble
from swarm.offline_coder.task import infer_task_from_dir
from tests.layouts.long_classes.miniatures import CLASSES, spine_competition
from tests.layouts.pixels.miniatures import denoising_competition


def brute_window(grey: np.ndarray, radius: int, reduce) -> np.ndarray:
    """Each pixel's `reduce` over its (2 radius + 1)-square, edges repeated, one pixel at a time."""
    h, w = grey.shape
    out = np.empty_like(grey, dtype=float)
    for r in range(h):
        for c in range(w):
            rows = np.clip(np.arange(r - radius, r + radius + 1), 0, h - 1)
            cols = np.clip(np.arange(c - radius, c + radius + 1), 0, w - 1)
            out[r, c] = reduce(grey[np.ix_(rows, cols)])
    return out


@pytest.mark.parametrize("radius", [1, 2, 7])
def test_window_statistics_match_a_pixel_by_pixel_count(radius: int) -> None:
    grey = np.random.default_rng(radius).random((9, 13)).astype(np.float32)
    np.testing.assert_allclose(_window_mean(grey, radius), brute_window(grey, radius, np.mean), atol=1e-5)
    np.testing.assert_allclose(_window_extreme(grey, radius, np.maximum), brute_window(grey, radius, np.max))
    np.testing.assert_allclose(_window_extreme(grey, radius, np.minimum), brute_window(grey, radius, np.min))


def pages(root: Path) -> Path:
    """train/1.png and 2.png (3x4), their clean twins in train_cleaned/, test/7.png (2x2)."""
    for folder in ("train", "train_cleaned", "test"):
        (root / folder).mkdir(parents=True)
    dirty = np.arange(12, dtype=np.uint8).reshape(3, 4) * 20
    Image.fromarray(dirty, mode="L").save(root / "train" / "1.png")
    Image.fromarray(dirty[::-1].copy(), mode="L").save(root / "train" / "2.png")
    Image.fromarray(255 - dirty, mode="L").save(root / "train_cleaned" / "1.png")
    Image.fromarray(np.zeros((3, 4), np.uint8), mode="L").save(root / "train_cleaned" / "2.png")
    Image.fromarray(np.full((2, 2), 51, np.uint8), mode="L").save(root / "test" / "7.png")
    return root


def test_pixel_rows_name_each_pixel_as_the_sample_and_read_its_target(tmp_path: Path) -> None:
    root = pages(tmp_path)
    ids = ["7_1_1", "7_1_2", "7_2_1", "7_2_2"]
    fields = pixel_fields(str(root), ids, ["value"])
    assert fields == {"test_dir": "test", "train_dir": "train", "target_dir": "train_cleaned"}
    (root / "train_cleaned" / "2.png").unlink()
    train = pixel_rows(str(root), "train", "id", target_dir="train_cleaned", target="value")
    # only 1.png has a clean twin; its pixels row by row, 1-based
    assert train["id"].tolist() == [f"1_{r}_{c}" for r in (1, 2, 3) for c in (1, 2, 3, 4)]
    dirty = np.arange(12) * 20 / 255
    np.testing.assert_allclose(train["pixel"], dirty, atol=1e-6)
    np.testing.assert_allclose(train["value"], (255 - np.arange(12) * 20) / 255, atol=1e-6)
    # the neighbour above the top row is the row itself (edges repeated); below it, the next row
    np.testing.assert_allclose(train["near_01"].iloc[:4], dirty[:4], atol=1e-6)
    np.testing.assert_allclose(train["near_21"].iloc[:4], dirty[4:8], atol=1e-6)
    test = pixel_rows(str(root), "test", "id", stems=pixel_stems(ids))
    assert test["id"].tolist() == ids and "value" not in test
    np.testing.assert_allclose(test["pixel"], 0.2, atol=1e-6)


def test_pixel_rows_draw_training_pixels_evenly_from_the_images(tmp_path: Path) -> None:
    root = pages(tmp_path)
    rows = pixel_rows(str(root), "train", "id", target_dir="train_cleaned", target="value", max_rows=10)
    images = rows["id"].str.split("_").str[0]
    assert images.value_counts().to_dict() == {"1": 5, "2": 5}
    assert rows["id"].is_unique


@pytest.mark.parametrize(
    "ids, targets",
    [
        (["7_1_1", "7_1_x"], ["value"]),  # a column that is not a number
        (["8_1_1", "8_1_2"], ["value"]),  # no image 8 in test/
        (["7_1_1", "7_1_2"], ["value", "other"]),  # two targets
    ],
)
def test_pixel_fields_refuse_what_is_not_a_pixel_per_row(tmp_path: Path, ids: list, targets: list) -> None:
    assert pixel_fields(str(pages(tmp_path)), ids, targets) is None


def test_long_class_rows_melt_the_wide_table_into_the_test_tables_rows() -> None:
    train = pd.DataFrame({"study": ["a", "b"], "any": [1, 0], "C1": [1, np.nan], "C2": [0, 0]})
    test = pd.DataFrame(
        {"row_id": ["c_any", "c_C1", "c_C2"], "study": ["c", "c", "c"], "kind": ["any", "C1", "C2"]}
    )
    fields = long_class_fields(list(train.columns), test, "row_id", ["fractured"])
    assert fields == {"key": "study", "class_column": "kind", "classes": ["any", "C1", "C2"]}
    rows = long_class_rows(train, fields, "row_id", "fractured")
    assert rows["row_id"].tolist() == [
        "a_any",
        "b_any",
        "a_C1",
        "a_C2",
        "b_C2",
    ]  # b's C1 is missing: left out
    assert rows["fractured"].tolist() == [1, 0, 1, 0, 0]
    assert rows["kind"].tolist() == ["any", "any", "C1", "C2", "C2"]
    # ids that are not key and class joined: no long layout
    assert (
        long_class_fields(list(train.columns), test.assign(row_id=["x", "y", "z"]), "row_id", ["f"]) is None
    )


def test_the_offline_coder_reads_both_layouts_and_the_solution_embeds_their_readers(tmp_path: Path) -> None:
    pixels = infer_task_from_dir(str(denoising_competition(tmp_path / "den") / "prepared" / "public"))
    assert pixels["files"]["pixels"] == {
        "test_dir": "test",
        "train_dir": "train",
        "target_dir": "train_cleaned",
    }
    assert [(t["name"], t["task"]) for t in pixels["targets"]] == [("value", "regression")]
    assert pixels["metric"] == "rmse"
    assert "def pixel_rows(" in render_preamble(pixels)
    spine = infer_task_from_dir(str(spine_competition(tmp_path / "spine") / "prepared" / "public"))
    assert spine["files"]["long_classes"] == {
        "train": "train.csv",
        "test": "test.csv",
        "key": "StudyInstanceUID",
        "class_column": "prediction_type",
        "classes": list(CLASSES),
    }
    assert [(t["name"], t["task"]) for t in spine["targets"]] == [("fractured", "binary")]
    assert spine["id_col"] == "row_id"
    assert "def long_class_rows(" in render_preamble(spine)
    runtime = render_preamble(None)  # a solution that infers its task at run time reads them too
    assert "def pixel_rows(" in runtime and "def long_class_rows(" in runtime
