"""The harness's gate before any parse: a submission far larger or wider than the sample is refused in one
sentence, at once; a non-file submission is named."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from swarm.competitions import load_competition_dir
from swarm.evaluation.harness import Harness, keep_copy
from swarm.evaluation.submission_size import MIN_BYTES
from swarm.layouts.holdout import build_holdout
from tests.layouts.tables.miniatures import binary_competition, read

GENEROUS_S = 30  # far above the milliseconds a refusal takes; parsing such files took minutes


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    competition = load_competition_dir(binary_competition(tmp_path / "c"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=0)
    return Harness(holdout, competition.metric, competition.sample_submission)


def test_a_200000_column_submission_is_refused_before_parsing(harness: Harness, tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    header = ",".join(["id", "y", *(f"c{i}" for i in range(200_000))])
    path.write_text(header + "\n" + ",".join(["1"] * 200_002) + "\n")
    started = time.monotonic()
    result = harness.evaluate(path, tmp_path / "t.csv")
    assert time.monotonic() - started < GENEROUS_S
    assert result.score is None and result.test_submission is None
    assert "header line is longer than" in result.problem and "was not parsed" in result.problem
    assert not (tmp_path / "t.csv").exists()


def test_a_submission_wider_than_twice_the_sample_is_refused_naming_its_columns(
    harness: Harness, tmp_path: Path
) -> None:
    path = tmp_path / "wide.csv"
    names = ["id", "y", *(f"c{i}" for i in range(40))]
    path.write_text(",".join(names) + "\n" + ",".join(["1"] * len(names)) + "\n")
    result = harness.evaluate(path, tmp_path / "t.csv")
    assert result.problem == (
        f"wide.csv has 42 columns, more than the {harness.size_limit.max_columns} the harness reads for this "
        "competition's sample submission, so it was not parsed"
    )


def test_a_few_extra_columns_are_still_read(harness: Harness, tmp_path: Path) -> None:
    view = read(harness.holdout.public_dir / "sample_submission.csv")
    labels = read(harness.holdout.labels_path).set_index("id")["y"].to_dict()
    view["y"] = [labels.get(i, "0") for i in view["id"]]
    view["confidence"] = "0.9"  # the graders read past it, and so does the harness
    path = tmp_path / "s.csv"
    view.to_csv(path, index=False)
    result = harness.evaluate(path, tmp_path / "t.csv")
    assert result.problem is None and result.score == 1.0


def test_a_1_gb_submission_is_refused_before_parsing(harness: Harness, tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    with path.open("wb") as handle:  # sparse: 1 GB on paper, nothing on disk
        handle.write(b"id,y\n1,0\n")
        handle.truncate(10**9)
    started = time.monotonic()
    result = harness.evaluate(path, tmp_path / "t.csv")
    assert time.monotonic() - started < GENEROUS_S
    assert result.problem.startswith("big.csv is 1000.0 MB, larger than the ")
    assert harness.size_limit.max_bytes < 10**9
    copy, problem = keep_copy(path, tmp_path / "kept.csv", harness.test_size_limit)
    assert copy is None and "larger than the" in problem


def test_the_limit_leaves_room_for_long_text_predictions(tmp_path: Path) -> None:
    import pandas as pd

    from swarm.evaluation.submission_size import TEXT_CELL_BYTES, size_limit

    sample = pd.DataFrame({"id": [str(i) for i in range(1000)], "EncodedPixels": ["1 1"] * 1000})
    limit = size_limit(sample, "id", len(sample))
    assert limit.max_bytes >= MIN_BYTES + 1000 * TEXT_CELL_BYTES  # a mask's run lengths may be long
    numbers = pd.DataFrame({"id": [str(i) for i in range(1000)], "y": ["0.5"] * 1000})
    assert size_limit(numbers, "id", len(numbers)).max_bytes < MIN_BYTES + 1000 * 1024


@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory"])
def test_a_non_file_submission_is_named(harness: Harness, tmp_path: Path, kind: str) -> None:
    path = tmp_path / "submission.csv"
    if kind == "symlink":
        (tmp_path / "real.csv").write_text("id,y\n")
        path.symlink_to(tmp_path / "real.csv")
        expected = f"submission.csv is a symlink (to {str(tmp_path / 'real.csv')!r}), not a regular file"
    elif kind == "fifo":
        os.mkfifo(path)  # opening it must not wait for a writer
        expected = "submission.csv is a FIFO (named pipe), not a regular file"
    else:
        path.mkdir()
        expected = "submission.csv is a directory, not a regular file"
    result = harness.evaluate(path, tmp_path / "t.csv")
    assert result.problem == expected
    assert keep_copy(path, tmp_path / "kept.csv") == (None, expected)


def test_a_review_names_a_fifo_the_sandbox_found_as_submission(tmp_path: Path) -> None:
    from sandbox import ExecutionResult
    from sandbox.result import non_file_kind
    from swarm.evaluation.review import ExecutionFacts, fact_reasons

    fifo = tmp_path / "submission.csv"
    os.mkfifo(fifo)
    kind = non_file_kind(fifo)
    assert kind == "a FIFO (named pipe)" and non_file_kind(tmp_path / "absent.csv") is None
    result = ExecutionResult(output="", exit_code=0, exec_time=1.0, backend="local", submission_not_file=kind)
    assert fact_reasons(ExecutionFacts(result=result)) == [
        "the submission.csv it wrote is a FIFO (named pipe), not a regular file, so it was not read"
    ]
    nothing = ExecutionResult(output="", exit_code=0, exec_time=1.0, backend="local")
    assert fact_reasons(ExecutionFacts(result=nothing)) == ["no submission.csv was written"]
