"""The `swarm competitions` command: a few runs as a real subprocess, the rest through `main(argv)`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from swarm.cli import main


def swarm(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "swarm.cli", *args]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"}
    )


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_list_json(cache_dir: Path) -> None:
    result = swarm("competitions", "list", "--cache-dir", str(cache_dir), "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [r["id"] for r in rows] == [
        "chicago-ridership",
        "digit-images",
        "electricity-demand",
        "exam-schools",
        "flight-delays",
        "food-reviews",
        "house-prices",
        "telco-churn",
        "titanic",
    ]
    assert all(r["prepared"] and r["teams"] >= 60 for r in rows)


def test_list_table(cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "competitions", "list", "--cache-dir", str(cache_dir))
    assert code == 0 and "telco-churn" in out and "auc" in out


def test_prepare_prints_the_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, "competitions", "prepare", "titanic", "--cache-dir", str(tmp_path))
    assert code == 0, err
    assert Path(out.strip()) == tmp_path / "competitions" / "titanic"
    assert (tmp_path / "competitions" / "titanic" / "competition.json").is_file()


def test_grade_json_of_the_answers(cache_dir: Path) -> None:
    answers = cache_dir / "competitions" / "telco-churn" / "prepared" / "private" / "answers.csv"
    result = swarm(
        "competitions", "grade", "telco-churn", str(answers), "--cache-dir", str(cache_dir), "--json"
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["valid"] and report["score"] == 1.0 and report["medal"] == "gold"
    assert report["gold_threshold"] < 1.0 and not report["lower_is_better"]


def test_grade_table_of_the_sample(cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = cache_dir / "competitions" / "titanic" / "prepared" / "public" / "sample_submission.csv"
    code, out, err = run_main(
        capsys, "competitions", "grade", "titanic", str(sample), "--cache-dir", str(cache_dir)
    )
    assert code == 0, err
    assert "gold threshold" in out and "medal" in out and "none" in out


def test_grade_invalid_submission_exits_1(
    cache_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("PassengerId,Survived\n1,0\n")
    code, out, _ = run_main(
        capsys, "competitions", "grade", "titanic", str(bad), "--cache-dir", str(cache_dir), "--json"
    )
    assert code == 1
    report = json.loads(out)
    assert not report["valid"] and "rows, expected" in report["reason"]


def test_grade_foreign_dir_needs_metric(
    tmp_path: Path, make_foreign, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_foreign(tmp_path / "toy")
    sample = root / "prepared" / "public" / "sample_submission.csv"
    code, _, err = run_main(capsys, "competitions", "grade", str(root), str(sample))
    assert code == 2 and "--metric" in err
    code, out, err = run_main(
        capsys, "competitions", "grade", str(root), str(sample), "--metric", "rmse", "--json"
    )
    assert code == 0, err
    expected = (pd.Series([1.0, 2.0, 4.0]) ** 2).mean() ** 0.5
    assert abs(json.loads(out)["score"] - round(expected, 6)) < 1e-9


def test_unknown_id_lists_known_ones(tmp_path: Path) -> None:
    result = swarm("competitions", "grade", "spaceship", "x.csv", "--cache-dir", str(tmp_path))
    assert result.returncode == 2
    assert "house-prices, telco-churn, titanic" in result.stderr and result.stderr.count("\n") == 1
    result = swarm("competitions", "prepare", "spaceship", "--cache-dir", str(tmp_path))
    assert result.returncode == 2 and "unknown competition 'spaceship'" in result.stderr


def test_unknown_metric(tmp_path: Path, make_foreign, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_foreign(tmp_path / "toy")
    code, _, err = run_main(capsys, "competitions", "grade", str(root), "s.csv", "--metric", "bleu")
    assert code == 2 and "unknown metric 'bleu'" in err


def test_missing_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["competitions"])
    assert exc.value.code == 2 and "competitions" in capsys.readouterr().err
