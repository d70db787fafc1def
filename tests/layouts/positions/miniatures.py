"""A miniature of stanford-covid-vaccine's layout as MLE-bench prepares it (issue 29): `train.json` a record per
RNA sequence (JSON lines) whose targets are arrays of its first `seq_scored` positions, `test.json` the same
without targets, errors or `SN_filter`, `sample_submission.csv` a row per position of every test sequence
(`id_seqpos` = `<id>_<position>`), and private/test.csv the answers with grade.py's `keep` column."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

TARGETS = ["reactivity", "deg_Mg_pH10", "deg_pH10", "deg_Mg_50C", "deg_50C"]
SCORED = ["reactivity", "deg_Mg_pH10", "deg_Mg_50C"]
ERRORS = ["reactivity_error", "deg_error_Mg_pH10", "deg_error_pH10", "deg_error_Mg_50C", "deg_error_50C"]
TEST_FIELDS = ["index", "id", "sequence", "structure", "predicted_loop_type", "seq_length", "seq_scored"]
LENGTH, SCORED_POSITIONS = 20, 12

# The real description's words (mlebench/competitions/stanford-covid-vaccine/description.md), shortened.
DESCRIPTION = """# Overview

## Evaluation

Submissions are scored using MCRMSE, mean columnwise root mean squared error:

$\\textrm{MCRMSE} = \\frac{1}{N_{t}}\\sum_{j=1}^{N_{t}}\\sqrt{\\frac{1}{n} \\sum_{i=1}^{n} (y_{ij} - \\hat{y}_{ij})^2}$

where $N_{t}$ is the number of scored ground truth target columns, and $y$ and $\\hat{y}$ are the actual and \
predicted values, respectively.

From the `Data` page: There are multiple ground truth values provided in the training data. While the submission \
format requires all 5 to be predicted, only the following are scored: reactivity, deg_Mg_pH10, and deg_Mg_50C.

### Submission File

For each sample `id` in the test set, you must predict targets for *each* sequence position (`seqpos`), one per \
row. If the length of the `sequence` of an `id` is, e.g., 107, then you should make 107 predictions. Positions \
greater than the `seq_scored` value of a sample are not scored, but still need a value in the solution file.

# Dataset Description

There are multiple ground truth values provided in the training data. While the submission format requires all 5 \
to be predicted, only the following are scored: `reactivity`, `deg_Mg_pH10`, and `deg_Mg_50C`.
"""


def sequence_record(k: int, rng: np.random.Generator) -> dict:
    """One labelled sequence: its inputs, quality fields, errors and targets (floats written in full: values
    that appear nowhere else by chance)."""
    text = "".join(rng.choice(list("ACGU"), size=LENGTH))
    record = {
        "index": k,
        "id": f"id_{rng.integers(0, 16**9):09x}",
        "sequence": text,
        "structure": "".join(rng.choice(list("(.)"), size=LENGTH)),
        "predicted_loop_type": "".join(rng.choice(list("SEHIMBX"), size=LENGTH)),
        "signal_to_noise": float(rng.uniform(0, 10)),
        "SN_filter": int(rng.random() < 0.7),
        "seq_length": LENGTH,
        "seq_scored": SCORED_POSITIONS,
    }
    for name in ERRORS:
        record[name] = [float(v) for v in rng.uniform(0, 1, SCORED_POSITIONS)]
    for name in TARGETS:
        base = np.array([0.8 if c in "AG" else 0.2 for c in text[:SCORED_POSITIONS]])
        record[name] = [float(v) for v in base + rng.normal(0, 0.1, SCORED_POSITIONS)]
    return record


def covid_competition(root: Path, n_train: int = 40, n_test: int = 8, *, declare: bool = True) -> Path:
    """The miniature under `root` (prepared/public, prepared/private); `declare`: competition.json names mcrmse
    with its 3 scored columns (else the description alone names the metric)."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    rng = np.random.default_rng(29)
    records = [sequence_record(k, rng) for k in range(n_train + n_test)]
    train = records[:n_train]
    test = [{**{f: r[f] for f in TEST_FIELDS}, "index": k} for k, r in enumerate(records[n_train:])]
    write_lines(public / "train.json", train)
    write_lines(public / "test.json", test)
    answers = []
    for record in records[n_train:]:
        for position in range(LENGTH):
            keep = position < SCORED_POSITIONS
            values = {t: record[t][position] if keep else 0.0 for t in TARGETS}
            answers.append({"id_seqpos": f"{record['id']}_{position}", **values, "keep": keep})
    answer_frame = pd.DataFrame(answers)
    answer_frame.to_csv(private / "test.csv", index=False, float_format="%.10f")
    answer_frame[["id_seqpos", *TARGETS]].assign(**dict.fromkeys(TARGETS, 0.0)).to_csv(
        public / "sample_submission.csv", index=False, float_format="%.10f"
    )
    (public / "description.md").write_text(DESCRIPTION)
    if declare:
        metric = {"name": "mcrmse", "params": {"scored_columns": SCORED}}
        (root / "competition.json").write_text(json.dumps({"metric": metric}))
    return root


def write_lines(path: Path, records: list[dict]) -> None:
    """JSON lines, as pandas' `to_json(orient="records", lines=True)` writes MLE-bench's files."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
