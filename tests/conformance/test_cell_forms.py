"""Text cells pandas' defaults mangle, as real values of the text tables' free-text column: "NA", "N/A", "None",
"null", "nan", "#N/A" (read as missing), numbers as text quoted in a file that quotes every cell ("0042" read as
42), a cell of 100,000 characters, and cells with embedded newlines, CRLF, commas and quotes. Each variant must
split and pass the offline coder's preflight, and the sandbox's view must keep every such value as it was
written: each one as often in the view's tables as in the competition's. Where the text is the answer (tweet
spans, chaii's answers), the harness's held-out labels must keep the words too, never a blank.

Only the text tables carry the forms: in the other miniatures the longest text is a structured target (a
run-length mask, boxes, points), where "NA" is rightly refused as no mask at all."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.conformance.checks import build_miniature, split_variant
from tests.conformance.variants import (
    LONG_TEXT,
    MULTILINE,
    NA_WORDS,
    NUMBER_WORDS,
    put_text_values,
    read_rows,
    text_column,
)

TEXT_TABLES = (
    "spooky-author-identification",
    "jigsaw-toxic-comment-classification-challenge",
    "jigsaw-unintended-bias-in-toxicity-classification",
    "detecting-insults-in-social-commentary",  # its text is also the id
    "tweet-sentiment-extraction",
    "chaii-hindi-and-tamil-question-answering",
)
CELL_FORMS = {
    "na-words": (NA_WORDS, csv.QUOTE_MINIMAL),
    "quoted-numbers": (NUMBER_WORDS, csv.QUOTE_ALL),
    "long-text": ((LONG_TEXT,), csv.QUOTE_MINIMAL),
    "newlines": (MULTILINE, csv.QUOTE_MINIMAL),
}
# The answers in text: their column in train.csv.
TEXT_ANSWERS = {
    "tweet-sentiment-extraction": "selected_text",
    "chaii-hindi-and-tamil-question-answering": "answer_text",
}


def counts(folder: Path, column: str, values: tuple[str, ...]) -> dict[str, int]:
    """How often each of `values` is a cell of `column` in the CSVs directly in `folder`."""
    found = dict.fromkeys(values, 0)
    for path in sorted(folder.glob("*.csv")):
        rows = read_rows(path)
        if rows and column in rows[0]:
            k = rows[0].index(column)
            for row in rows[1:]:
                if k < len(row) and row[k] in found:
                    found[row[k]] += 1
    return found


@pytest.mark.parametrize("form", sorted(CELL_FORMS))
@pytest.mark.parametrize("competition_id", TEXT_TABLES)
def test_text_values_pandas_mangles_split_and_stay_as_written(
    tmp_path: Path, competition_id: str, form: str
) -> None:
    root = build_miniature(competition_id, tmp_path)
    public = root / "prepared" / "public"
    column = text_column(public, set(TEXT_ANSWERS.values()))
    values, quoting = CELL_FORMS[form]
    put_text_values(root, column, values, quoting)
    before = counts(public, column, values)
    assert all(before.values()), before
    split = split_variant(root, tmp_path, competition_id=competition_id)
    if column != split.holdout.id_column:  # ids are drawn fresh in the view; text stays as it was
        assert counts(split.holdout.public_dir, column, values) == before


@pytest.mark.parametrize("competition_id", sorted(TEXT_ANSWERS))
def test_answers_that_are_words_pandas_reads_as_missing_are_held_out_as_words(
    tmp_path: Path, competition_id: str
) -> None:
    root = build_miniature(competition_id, tmp_path)
    public = root / "prepared" / "public"
    column = TEXT_ANSWERS[competition_id]
    rows = read_rows(public / "train.csv")
    k = rows[0].index(column)
    for n, row in enumerate(rows[1:]):
        row[k] = NA_WORDS[n % len(NA_WORDS)]  # every answer one of the words
    with (public / "train.csv").open("w", newline="", encoding="utf-8") as out:
        csv.writer(out, lineterminator="\n").writerows(rows)
    split = split_variant(root, tmp_path, competition_id=competition_id)
    labels = read_rows(split.holdout.labels_path)
    answers = [row[k] for row in labels[1:] for k in range(1, len(labels[0]))]
    assert answers and set(answers) <= set(NA_WORDS), sorted(set(answers) - set(NA_WORDS))[:3]
