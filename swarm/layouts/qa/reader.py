"""Questions with annotated answers in JSON-lines records, a submission row per (question, kind of answer):
tensorflow2-question-answering's `simplified-nq-train.jsonl` has a record per question (`example_id`,
`question_text`, `document_text`, `long_answer_candidates`, `annotations`: one item with `long_answer`
(`start_token`, `end_token`; -1 where there is none), `short_answers` (spans) and `yes_no_answer` (YES, NO or
NONE)), `simplified-nq-test.jsonl` the same records without `annotations`, and the sample a row
`<example_id>_long` and `<example_id>_short` per test record with a blank `PredictionString`. The training file
is large (about 15 GB in MLE-bench), so it is read a line at a time.

`qa_fields(data_dir, names, sample)` recognises the layout; `qa_rows(path, fields)` gives a row per (record,
kind of answer) with its question and, from the training file, its answers; `answer_cells(record)` gives a
record's true answers as the metric (`answer_span_f1`) reads them: each kind's answers space-separated
(`<start>:<end>` spans, YES or NO), blank where there is none, as tensorflow2-question-answering's grade.py reads
the annotations; `answer_frame(path, ...)` gives a whole annotated file's answers so (the grader's private
`test.jsonl`, every true short answer where `gold_submission.csv` keeps the first).

Shared by the harness (swarm/layouts/qa/split.py) and the offline coder; the solutions the offline coder
writes embed this module's source, so it uses only os, json and pandas.
"""

import json
import os

import pandas as pd

ANSWER_KINDS = ("long", "short")
ANNOTATIONS = "annotations"
KIND_COLUMN = "kind"
QA_MAX_RECORDS = 50_000  # training records the offline coder reads at most (the file may hold 300,000)
SHORT_TEXT = 1_000  # a record's text fields up to this length are features (the question, not the document)


def first_record(path: str) -> dict | None:
    """The first JSON object of a file with one a line (read no further), or None."""
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    record = json.loads(line)
                    return record if isinstance(record, dict) else None
    except (OSError, ValueError):
        return None
    return None


def qa_fields(data_dir: str, names: list, sample: pd.DataFrame) -> dict | None:
    """{"train", "test", "id_field", "target"} where the sample (read as text) has one target and ids
    `<id>_long` and `<id>_short` only, a `.jsonl` file named with "train" has records with that id field and
    `annotations`, and one named with "test" has records whose ids the sample lists; else None."""
    if sample.shape[1] != 2 or sample.empty:
        return None
    id_field, target = str(sample.columns[0]), str(sample.columns[1])
    ids = sample[id_field].astype(str).str.strip()
    kinds = ids.str.rsplit("_", n=1).str[-1]
    if set(kinds) != set(ANSWER_KINDS):
        return None
    lines = [n for n in sorted(names) if n.lower().endswith(".jsonl")]
    train = next((n for n in lines if "train" in n.lower()), None)
    test = next((n for n in lines if "test" in n.lower()), None)
    if train is None or test is None:
        return None
    labelled, unlabelled = (
        first_record(os.path.join(data_dir, train)),
        first_record(os.path.join(data_dir, test)),
    )
    if not labelled or not unlabelled or id_field not in labelled or id_field not in unlabelled:
        return None
    if not isinstance(labelled.get(ANNOTATIONS), list) or f"{unlabelled[id_field]}_long" not in set(ids):
        return None
    texts = [
        key
        for key, value in unlabelled.items()
        if key != id_field
        and isinstance(value, str)
        and len(value) <= SHORT_TEXT
        and isinstance(labelled.get(key), str)
    ]
    return {"train": train, "test": test, "id_field": id_field, "target": target, "texts": texts}


def _span(answer: dict) -> str:
    return f"{int(answer['start_token'])}:{int(answer['end_token'])}"


def answer_cells(record: dict) -> dict:
    """{"long": ..., "short": ...}: the record's first annotation's true answers, space-separated."""
    annotation = (record.get(ANNOTATIONS) or [{}])[0]
    long_answer = annotation.get("long_answer") or {}
    long_cell = _span(long_answer) if int(long_answer.get("start_token", -1)) != -1 else ""
    shorts = [_span(a) for a in annotation.get("short_answers") or []]
    yes_no = str(annotation.get("yes_no_answer", "NONE"))
    return {"long": long_cell, "short": " ".join(shorts + ([yes_no] if yes_no != "NONE" else []))}


def qa_rows(path: str, fields: dict, max_records=None, labelled: bool = True) -> pd.DataFrame:
    """A row per (record, kind of answer) of a records file, at most `max_records` records: the sample's id
    (`<id>_<kind>`), `kind`, the records' short text fields (`texts`: the question) and, from a training file,
    the answers (see answer_cells) as the target."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if max_records is not None and len(rows) >= 2 * max_records:
                break
            if not line.strip():
                continue
            record = json.loads(line)
            cells = answer_cells(record) if labelled else {}
            texts = [str(record.get(key, "")) for key in fields["texts"]]
            for kind in ANSWER_KINDS:
                answer = [cells[kind]] if labelled else []
                rows.append([f"{record[fields['id_field']]}_{kind}", kind, *texts, *answer])
    target = [fields["target"]] if labelled else []
    return pd.DataFrame(rows, columns=[fields["id_field"], KIND_COLUMN, *fields["texts"], *target])


def answer_frame(path: str, id_field: str, target: str) -> pd.DataFrame:
    """The answers of an annotated records file (MLE-bench's private `test.jsonl`) in the submission's shape: a
    row `<id>_long` and `<id>_short` per record, its true answers as `answer_cells` gives them (text)."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                cells = answer_cells(record)
                rows += [(f"{record[id_field]}_{kind}", cells[kind]) for kind in ANSWER_KINDS]
    return pd.DataFrame(rows, columns=[id_field, target], dtype=str)


def find_qa(probe) -> dict | None:
    """The fields of questions with annotated answers (see `qa_fields`) where no labelled table is named."""
    if probe.labelled_table:
        return None
    return qa_fields(probe.data_dir, probe.names, probe.sample)


def read_qa_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): a row per (question, kind of answer) with its answers, at most QA_MAX_RECORDS training
    records; the test's rows without answers."""
    train = qa_rows(
        os.path.join(data_dir, fields["train"]), fields, min(max_rows or QA_MAX_RECORDS, QA_MAX_RECORDS)
    )
    return train, qa_rows(os.path.join(data_dir, fields["test"]), fields, max_rows, labelled=False)
