"""check_submission: every malformed case gets a readable reason; well-formed submissions pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from swarm.competitions.submission_check import SampleSubmissionError, check_submission

SAMPLE = "id,price,label\n1,0.5,a\n2,0.5,a\n3,0.5,a\n"
GOOD = "id,price,label\n3,10.25,b\n1,7,a\n2,1e3,c\n"  # another row order and number spelling are fine


def check(tmp_path: Path, submission: str | bytes, sample: str = SAMPLE) -> str | None:
    sample_path = tmp_path / "sample_submission.csv"
    sample_path.write_text(sample)
    path = tmp_path / "submission.csv"
    if isinstance(submission, bytes):
        path.write_bytes(submission)
    else:
        path.write_text(submission)
    return check_submission(path, sample_path)


def test_a_well_formed_submission_passes(tmp_path):
    assert check(tmp_path, GOOD) is None
    assert check(tmp_path, "label,id,price\nb,3,1\na,1,2\nc,2,3\n") is None  # column order is free


@pytest.mark.parametrize(
    ("submission", "words"),
    [
        (b"", ["is empty"]),
        (b"\xff\xfe\x00garbage\xff\n\x00\xfa", ["not a readable CSV"]),
        ('id,price,label\n1,"unclosed\n', ["not a readable CSV"]),
        ("id,price,label\n", ["header but no rows, expected 3"]),
        ("id,price\n1,1\n2,2\n3,3\n", ["missing column(s) 'label'"]),
        ("Id,price,label\n1,1,a\n2,2,a\n3,3,a\n", ["missing column(s) 'id'", "unexpected column(s) 'Id'"]),
        ("id,price,label\n1,1,a\n2,2,a\n", ["has 2 rows, expected 3"]),
        ("id,price,label\n1,1,a\n2,2,a\n3,3,a\n4,4,a\n", ["has 4 rows, expected 3"]),
        ("id,price,label\n1,1,a\n2,2,a\n2,3,a\n", ["duplicate id(s) in 'id': '2'"]),
        (
            "id,price,label\n1,1,a\n2,2,a\n9,3,a\n",
            ["unknown id(s) in 'id': '9'", "missing id(s) in 'id': '3'"],
        ),
        ("id,price,label\n1,,a\n2,NaN,a\n3,3,a\n", ["'price' has 2 missing/NaN value(s)"]),
        ("id,price,label\n1,1,a\n2,2,\n3,3,nan\n", ["'label' has 2 missing/NaN value(s)"]),
        ("id,price,label\n1,1,a\n2,yes,a\n3,3,a\n", ["'price' must be numeric", "'yes'"]),
        ("id,price,label\n1,inf,a\n2,2,a\n3,-inf,a\n", ["'price' has 2 infinite value(s)"]),
    ],
)
def test_malformed_submissions_get_a_reason(tmp_path, submission, words):
    reason = check(tmp_path, submission)
    assert reason is not None, "a malformed submission passed the check"
    for word in words:
        assert word in reason, (word, reason)


@pytest.mark.parametrize(
    "submission",
    [
        "id,price,label,extra\n1,1,a,0\n2,2,a,0\n3,3,a,0\n",  # a column the graders do not read
        "id,price,price,label\n1,1,1,a\n2,2,2,a\n3,3,3,a\n",  # a repeat, which pandas reads as 'price.1'
        "id,price,label\n1.0,1,a\n2.0,2,a\n003,3,a\n",  # ids that pandas reads as the sample's numbers
    ],
)
def test_forms_the_graders_read_past_pass(tmp_path, submission):
    assert check(tmp_path, submission) is None


def test_text_ids_are_not_read_as_numbers(tmp_path):
    sample = "id,price,label\na1,0.5,a\n2,0.5,a\n"
    assert "unknown id(s) in 'id': '2.0'" in str(check(tmp_path, "id,price,label\na1,1,a\n2.0,1,a\n", sample))


def test_a_missing_submission_file_is_reported(tmp_path):
    sample = tmp_path / "sample_submission.csv"
    sample.write_text(SAMPLE)
    reason = check_submission(tmp_path / "nope.csv", sample)
    assert reason is not None and "does not exist" in reason


def test_a_text_label_column_may_hold_the_word_none(tmp_path):
    """Only numeric columns treat NA/null/none spellings as missing; a label may legitimately be 'None'."""
    assert check(tmp_path, "id,price,label\n1,1,None\n2,2,NA\n3,3,a\n") is None


def test_id_column_can_be_named(tmp_path):
    sample = "price,id\n0.5,1\n0.5,2\n"
    (tmp_path / "s.csv").write_text(sample)
    (tmp_path / "sub.csv").write_text("price,id\n1,2\n2,1\n")
    assert check_submission(tmp_path / "sub.csv", tmp_path / "s.csv", id_column="id") is None
    (tmp_path / "sub.csv").write_text("price,id\n1,2\n2,2\n")
    assert "duplicate id" in check_submission(tmp_path / "sub.csv", tmp_path / "s.csv", id_column="id")


def test_an_unusable_sample_is_the_competitions_problem(tmp_path):
    (tmp_path / "sub.csv").write_text(GOOD)
    with pytest.raises(SampleSubmissionError, match="does not exist"):
        check_submission(tmp_path / "sub.csv", tmp_path / "missing.csv")
    (tmp_path / "one.csv").write_text("id\n1\n")
    with pytest.raises(SampleSubmissionError, match="id column and a target column"):
        check_submission(tmp_path / "sub.csv", tmp_path / "one.csv")
    with pytest.raises(SampleSubmissionError, match="no id column 'key'"):
        check_submission(tmp_path / "sub.csv", tmp_path / "sub.csv", id_column="key")


@pytest.mark.parametrize("competition_id", ["titanic", "house-prices", "telco-churn"])
def test_bundled_samples_pass_and_a_truncated_copy_fails(tmp_path, competition_id):
    from swarm.competitions import load_competition

    comp = load_competition(competition_id, tmp_path / "cache")
    assert check_submission(comp.sample_submission, comp.sample_submission) is None
    lines = comp.sample_submission.read_text().splitlines()
    (tmp_path / "short.csv").write_text("\n".join(lines[:-1]) + "\n")
    reason = check_submission(tmp_path / "short.csv", comp.sample_submission)
    assert reason is not None and f"{len(lines) - 2} rows" in reason
