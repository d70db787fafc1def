"""The offline coder reads columns as a practitioner would: free text, dates, many-level codes, image files.

Each competition here is small and synthetic, with its signal in one kind of column only, so a solution that
ignores that kind scores like a constant guess and one that uses it scores well on the hidden answers.
"""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from sklearn.metrics import mean_squared_error, roc_auc_score

from swarm.competitions.submission_check import constant_predictions
from swarm.llm.base import CallContext
from swarm.offline_coder import OfflineClient, coder
from swarm.offline_coder.genome import safe_genome
from swarm.offline_coder.render import render_solution
from swarm.offline_coder.sections import read_genome, split_code
from swarm.offline_coder.task import infer_task_from_dir
from swarm.protocol import parse_metric_line

GOOD, BAD = ["tasty", "fresh", "lovely", "crisp", "superb"], ["stale", "bland", "soggy", "awful", "rotten"]
FILLER = ["the", "a", "box", "snack", "bought", "again", "my", "kids", "it", "was", "very", "and"]


def _write(root, train, test, id_col, target, sample_value, description):
    root.mkdir(parents=True, exist_ok=True)
    train.to_csv(root / "train.csv", index=False)
    test.drop(columns=[target]).to_csv(root / "test.csv", index=False)
    pd.DataFrame({id_col: test[id_col], target: sample_value}).to_csv(
        root / "sample_submission.csv", index=False
    )
    (root / "description.md").write_text(description)
    return test[[id_col, target]].reset_index(drop=True)


def text_competition(root):
    """Reviews whose words carry the label; the product code is unique per row (no signal)."""
    rng = np.random.default_rng(3)
    rows = []
    for i in range(900):
        label = int(rng.random() < 0.6)
        words = list(rng.choice(FILLER, 9)) + list(rng.choice(GOOD if label else BAD, 2))
        words += list(rng.choice(BAD if label else GOOD, 1 if rng.random() < 0.3 else 0))
        rng.shuffle(words)
        rows.append({"id": 10_000 + i, "product": f"B{rng.integers(10**9):09d}", "text": " ".join(words),
                     "liked": label})  # fmt: skip
    frame = pd.DataFrame(rows)
    description = "# Reviews\n\n## Evaluation\n\nSubmissions are evaluated on area under the ROC curve.\n"
    return _write(root, frame.iloc[:700], frame.iloc[700:], "id", "liked", 0.6, description)


def date_competition(root):
    """Hourly counts driven by the hour of day and the weekday; test is the last days; the datetime is the id."""
    times = pd.date_range("2022-01-01", periods=24 * 70, freq="h")
    rng = np.random.default_rng(4)
    base = (
        20 + 60 * np.exp(-((times.hour.to_numpy() - 17) ** 2) / 8) + 30 * (times.day_of_week.to_numpy() < 5)
    )
    counts = rng.poisson(base)
    frame = pd.DataFrame({"datetime": times.astype(str), "temp": rng.normal(15, 5, len(times)).round(1),
                          "count": counts})  # fmt: skip
    description = (
        "# Hourly demand\n\n## Evaluation\n\nSubmissions are evaluated on the Root Mean Squared Logarithmic "
        "Error (RMSLE).\n"
    )
    cut = 24 * 56
    return _write(root, frame.iloc[:cut], frame.iloc[cut:], "datetime", "count", 50, description)


def image_competition(root):
    """Bright or dark noisy images named by the id column, in train/ and test/ folders."""
    rng = np.random.default_rng(5)
    ids = [f"{k:012x}.png" for k in rng.choice(16**12, 300, replace=False)]
    labels = rng.integers(0, 2, 300)
    for folder in ("train", "test"):
        (root / folder).mkdir(parents=True)
    for i, (name, label) in enumerate(zip(ids, labels, strict=True)):
        pixels = np.clip(rng.normal(100 + 40 * label, 50, (20, 20)), 0, 255).astype(np.uint8)
        Image.fromarray(pixels, "L").save(root / ("train" if i < 220 else "test") / name)
    frame = pd.DataFrame({"id": ids, "has_object": labels})
    description = "# Objects\n\n## Evaluation\n\nSubmissions are evaluated on area under the ROC curve.\n"
    return _write(root, frame.iloc[:220], frame.iloc[220:], "id", "has_object", 0.5, description)


@pytest.fixture(scope="module")
def kinds_competitions(tmp_path_factory):
    root = tmp_path_factory.mktemp("kind_comps")
    return {
        "text": (root / "text", text_competition(root / "text")),
        "dates": (root / "dates", date_competition(root / "dates")),
        "images": (root / "images", image_competition(root / "images")),
    }


def test_the_task_knows_its_kinds_of_columns(kinds_competitions):
    kinds = {name: infer_task_from_dir(str(comp[0]))["columns"] for name, comp in kinds_competitions.items()}
    assert kinds["text"]["text"]["kind"] == "text"
    assert kinds["text"]["product"]["kind"] == "identifier"
    assert kinds["dates"]["datetime"] | {"train_range": None, "test_range": None} == {
        "kind": "datetime", "test_after_train": True, "train_range": None, "test_range": None,
    }  # fmt: skip
    assert kinds["images"]["id"]["kind"] == "file" and kinds["images"]["id"]["image"] is True


def test_the_plan_names_the_columns_it_reads(kinds_competitions):
    client = OfflineClient(seed=1)
    plans = {}
    for name, (input_dir, _) in kinds_competitions.items():
        ctx = CallContext(stage="code", kind="draft", node_id="n", hints={"input_dir": str(input_dir)})
        plans[name] = client.complete([], ctx)
    assert "free text (TF-IDF n-gram models): `text`" in plans["text"]
    assert "test lies after train in `datetime`, so validation is time-ordered" in plans["dates"]
    assert "file references (pixels of images): `id`" in plans["images"]


def _auc(answers, submission, target):
    merged = answers.merge(submission, on="id", suffixes=("_true", "_pred"))
    assert len(merged) == len(answers)
    return roc_auc_score(merged[f"{target}_true"], merged[f"{target}_pred"])


@pytest.mark.slow
@pytest.mark.parametrize("features", ["basic", "freq", "rich"])
def test_free_text_is_read_and_beats_a_constant(kinds_competitions, tools, tmp_path, features):
    input_dir, answers = kinds_competitions["text"]
    genome = safe_genome(None) | {"DATA": {"features": features}, "MODEL": {"family": "linear"}}
    result = tools.run(render_solution(infer_task_from_dir(str(input_dir)), genome), input_dir, tmp_path)
    assert result.returncode == 0, result.output[-3000:]
    assert "text columns ['text']: TF-IDF" in result.output
    assert (
        constant_predictions(tmp_path / "submission/submission.csv", input_dir / "sample_submission.csv")
        is None
    )
    assert _auc(answers, result.submission, "liked") > 0.9


@pytest.mark.slow
def test_date_parts_and_time_ordered_validation(kinds_competitions, tools, tmp_path):
    input_dir, answers = kinds_competitions["dates"]
    task = infer_task_from_dir(str(input_dir))
    genome = safe_genome(task) | {"DATA": {"features": "basic"}}
    result = tools.run(render_solution(task, genome), input_dir, tmp_path)
    assert result.returncode == 0, result.output[-3000:]
    assert "validation is time-ordered" in result.output
    merged = answers.merge(result.submission, on="datetime", suffixes=("_true", "_pred"))
    rmsle = np.sqrt(mean_squared_error(np.log1p(merged["count_true"]), np.log1p(merged["count_pred"])))
    constant = np.sqrt(np.mean((np.log1p(merged["count_true"]) - np.log1p(50)) ** 2))
    assert rmsle < 0.5 * constant, (rmsle, constant)
    claimed = parse_metric_line(result.output).value
    assert abs(claimed - rmsle) < 0.15  # the time-ordered validation does not over-promise


@pytest.mark.slow
def test_image_pixels_are_features(kinds_competitions, tools, tmp_path):
    input_dir, answers = kinds_competitions["images"]
    task = infer_task_from_dir(str(input_dir))
    result = tools.run(render_solution(task, safe_genome(task)), input_dir, tmp_path)
    assert result.returncode == 0, result.output[-3000:]
    assert "file column id: 300 of 300 files found" in result.output
    assert _auc(answers, result.submission, "has_object") > 0.9


@pytest.mark.slow
def test_runtime_inference_reads_kinds_too(kinds_competitions, tools, tmp_path):
    input_dir, answers = kinds_competitions["text"]
    genome = safe_genome(None) | {"MODEL": {"family": "linear"}}
    result = tools.run(render_solution(None, genome), input_dir, tmp_path)
    assert result.returncode == 0, result.output[-3000:]
    assert _auc(answers, result.submission, "liked") > 0.9


def test_debug_repairs_the_features_when_the_error_points_past_them(kinds_competitions):
    task = infer_task_from_dir(str(kinds_competitions["text"][0]))
    parent = render_solution(task, safe_genome(task) | {"DATA": {"features": "rich"}})
    line = next(i for i, text in enumerate(parent.splitlines(), 1) if "X_known = X[known]" in text)
    output = (
        f'Traceback (most recent call last):\n  File "solution.py", line {line}, in <module>\n'
        "ValueError: Item wrong length 700 instead of 0.\n"
    )
    reply = coder.debug(parent, output, task, seed=3)
    assert read_genome(split_code(reply.code))["DATA"] == {"features": "basic"}
    assert "DATA section" in reply.plan
    # the same failure with the safe feature set falls back to the minimal one (no text or file features)
    again = coder.debug(reply.code, output, task, seed=3)
    assert read_genome(split_code(again.code))["DATA"] == {"features": "minimal"}
    assert split_code(again.code).sections["MODEL"] == split_code(parent).sections["MODEL"]


def test_drafts_never_pick_the_minimal_feature_set():
    from swarm.offline_coder.genome import draft_genome

    rng = random.Random(0)
    assert {draft_genome(None, rng)["DATA"]["features"] for _ in range(200)} == {"basic", "freq", "rich"}
