"""A miniature of random-acts-of-pizza's layout: JSON records, not CSV tables (issue 29, point 2)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

TARGET = "requester_received_pizza"


def pizza_competition(root: Path, n_train: int = 120, n_test: int = 40, lines: bool = False) -> Path:
    """`train.json` (a list of objects, or a line each with `lines`) with the boolean target and a field known
    only after the fact (`..._at_retrieval`); `test.json` without either; `sampleSubmission.csv`
    `request_id,requester_received_pizza`; the answers in private/. A grateful text and an old account make a
    pizza likely."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    rng = np.random.default_rng(21)

    def record(k: int) -> tuple[dict, bool]:
        got = bool(rng.integers(0, 2))
        words = "thank you so much, grateful" if got else "need food now"
        age = float(rng.normal(400 if got else 100, 60))
        return {
            "request_id": f"t3_{k:05x}",
            "request_text_edit_aware": f"{words} request {k}",
            "requester_account_age_in_days_at_request": round(age, 2),
            "requester_subreddits_at_request": ["food", "pizza"][: 1 + k % 2],
            "unix_timestamp_of_request": 1_300_000_000 + 3600 * k,
        }, got

    train, test, answers = [], [], []
    for k in range(n_train):
        fields, got = record(k)
        train.append({**fields, "requester_upvotes_at_retrieval": 50 if got else 1, TARGET: got})
    for k in range(n_train, n_train + n_test):
        fields, got = record(k)
        test.append(fields)
        answers.append((fields["request_id"], int(got)))
    for name, records in (("train.json", train), ("test.json", test)):
        text = "".join(json.dumps(r) + "\n" for r in records) if lines else json.dumps(records, indent=2)
        (public / name).write_text(text)
    ids = [i for i, _ in answers]
    pd.DataFrame({"request_id": ids, TARGET: 0}).to_csv(public / "sampleSubmission.csv", index=False)
    pd.DataFrame(answers, columns=["request_id", TARGET]).to_csv(private / "answers.csv", index=False)
    (public / "description.md").write_text(
        "# Random acts of pizza\n\n## Evaluation\n\nSubmissions are evaluated on the area under the ROC curve "
        "between the predicted probability that a request will get pizza and the observed outcomes.\n"
    )
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "auc"}}))
    return root
