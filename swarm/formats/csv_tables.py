"""CSV tables as the readers look at them before reading them whole. A reader (embedded in solutions): pandas only."""

import pandas as pd


def csv_header(path: str) -> list:
    """A CSV's column names; [] when it cannot be read."""
    try:
        return [str(c) for c in pd.read_csv(path, nrows=0).columns]
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError, OSError):
        return []
