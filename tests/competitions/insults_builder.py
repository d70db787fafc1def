"""A miniature of detecting-insults-in-social-commentary's layout: the sample copies test.csv's columns beside
its target (`Insult,Date,Comment`), dates repeat and go missing, and the grader keys rows by `Comment`."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd


def insults(root: Path, n_train: int = 40, n_test: int = 12) -> Path:
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    dates = ["20120618192155Z", "", "20120528192215Z"]  # repeated and missing, as the real dates are

    def rows(start: int, count: int) -> pd.DataFrame:
        insult = [k % 2 for k in range(start, start + count)]
        comment = [
            f'"{"you idiot" if i else "nice point"} #{k}"'
            for k, i in zip(range(start, start + count), insult, strict=True)
        ]
        date = [dates[k % 3] for k in range(start, start + count)]
        return pd.DataFrame({"Insult": insult, "Date": date, "Comment": comment})

    rows(0, n_train).to_csv(public / "train.csv", index=False)
    test = rows(n_train, n_test)
    test[["Date", "Comment"]].to_csv(public / "test.csv", index=False)
    test.assign(Insult=0).to_csv(public / "sample_submission_null.csv", index=False)
    test.assign(Usage="PrivateTest").to_csv(private / "test.csv", index=False)
    (public / "description.md").write_text("# Insults\n\nPredict whether a comment is an insult; ROC AUC.\n")
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "auc"}}))
    return root
