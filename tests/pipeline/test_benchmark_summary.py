"""The benchmark's summary counts the competitions the harness validated and says why the others were not
(issue 29, point 5)."""

from __future__ import annotations

from prefect.states import Completed, Failed

from flows.benchmark import summary_markdown, summary_row


def test_the_summary_counts_harness_validation_and_gives_each_reason() -> None:
    graded = {"score": 0.8, "valid": True, "medal": None}
    harness = Completed(data={"competition": "titanic", "grade": graded, "validation_source": "harness"})
    unverified = Completed(
        data={
            "competition": "mlsp-2013-birds",
            "grade": graded,
            "validation_source": "solution",
            "unverified_reason": "there is no train.csv of labelled rows in /data, nor a labels table",
        }
    )
    rows = [
        summary_row("titanic", harness, 60.0),
        summary_row("mlsp-2013-birds", unverified, 60.0),
        summary_row("broken", Failed(message="boom"), 1.0),
    ]
    assert [r["validation"] for r in rows] == ["harness", rows[1]["validation"], None]
    assert rows[1]["validation"].startswith("unverified: there is no train.csv")
    text = summary_markdown(rows)
    assert "- validated by the harness: 1 of 2 completed" in text
    assert "- **mlsp-2013-birds** unverified: there is no train.csv of labelled rows" in text
    assert "- **broken** failed: boom" in text
