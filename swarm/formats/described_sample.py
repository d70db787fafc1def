"""The test table that stands for a missing sample submission: billion-word-imputation ships no sample, and its
description says "test.csv is a valid submission file itself", showing the header its test table has.

`described_test_table(folder, description)` finds it. Shared by the loader (swarm/competitions/competition.py)
and the offline coder; the solutions the offline coder writes embed this module's source, so it uses only
pandas and the standard library.
"""

import csv
import os
import re

import pandas as pd


def described_test_table(folder: str, description: str) -> str | None:
    """The name of the top-level test table (`test*.csv`, `.txt`) whose header is the one the description's
    submission file shows (the first line of the first code block after a "Submission File" or "Submission
    Format" heading), so it is a valid submission itself; None when the description shows none or no test
    table has its columns."""
    heading = re.search(
        r"^#+[ \t]*submission[ \t]+(?:file|format)\b.*$", description, re.IGNORECASE | re.MULTILINE
    )
    # a code fence written as `{3}: the solutions embedding this source are themselves read out of fenced replies
    block = re.search(r"`{3}[^\n]*\n[ \t]*(\S[^\n]*)", description[heading.end() :]) if heading else None
    if block is None:
        return None
    shown = [c.strip() for c in next(csv.reader([block.group(1)]))]
    if len(shown) < 2:
        return None
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not (
            os.path.isfile(path)
            and name.lower().startswith("test")
            and name.lower().endswith((".csv", ".txt"))
        ):
            continue
        try:
            header = [str(c).strip() for c in pd.read_csv(path, nrows=0).columns]
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
            continue
        if header == shown:
            return name
    return None
