"""The main job with no API key on a competition the built-in offline coder cannot read (labels in
`train_labels.csv` beside image folders, as aerial-cactus and histopathologic-cancer lay them out): it stops
before the first step, with exit 2 and one sentence naming the competition's files and what is missing,
instead of failing every step alike and ending "no good node"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")


def labels_table_competition(root: Path) -> Path:
    """A miniature competition: images in train/ and test/, their labels in train_labels.csv."""
    public = root / "prepared" / "public"
    private = root / "prepared" / "private"
    for folder in (public / "train", public / "test", private):
        folder.mkdir(parents=True)
    train_ids = [f"t{i:03d}" for i in range(12)]
    test_ids = [f"s{i:03d}" for i in range(6)]
    for name in train_ids:
        (public / "train" / f"{name}.png").write_bytes(b"not really a png")
    for name in test_ids:
        (public / "test" / f"{name}.png").write_bytes(b"not really a png")
    labels = "".join(f"{name}.png,{i % 2}\n" for i, name in enumerate(train_ids))
    (public / "train_labels.csv").write_text("id,has_cactus\n" + labels)
    (public / "sample_submission.csv").write_text(
        "id,has_cactus\n" + "".join(f"{name}.png,0.5\n" for name in test_ids)
    )
    (private / "answers.csv").write_text(
        "id,has_cactus\n" + "".join(f"{name}.png,{i % 2}\n" for i, name in enumerate(test_ids))
    )
    (public / "description.md").write_text(
        "# Cacti\n\nPredict `has_cactus`; scored by area under the ROC curve.\n"
    )
    return root


def test_no_key_on_a_layout_the_offline_coder_cannot_read_stops_before_the_first_step(tmp_path: Path) -> None:
    competition = labels_table_competition(tmp_path / "aerial-mini")
    runs = tmp_path / "runs"
    env = {name: value for name, value in os.environ.items() if name not in KEY_VARIABLES}
    env["PREFECT_API_URL"] = "http://127.0.0.1:9/api"  # a run that got as far as Prefect would fail otherwise
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "flows" / "run_competition.py"),
            "--no-live",
            "--data-dir",
            str(competition),
            "--set",
            f"project.runs_dir={runs}",
            "--set",
            "execution.sandbox=unsafe-local",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and done.stdout == ""
    error = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(error) == 1, done.stderr
    message = error[0]
    assert "offline coder" in message and "no API key" in message
    assert "has no train.csv or test.csv" in message
    for held in ("train_labels.csv", "sample_submission.csv", "train/", "test/"):
        assert held in message
    assert "OPENAI_API_KEY" in message
    assert not runs.exists() or not any(runs.iterdir())  # nothing written: no run dir
