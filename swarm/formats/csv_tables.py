"""CSV tables as the readers look at them, and read as a competition means them. A reader (embedded in solutions):
pandas only."""

from collections.abc import Iterable, Iterator

import pandas as pd

# The cells pandas' read_csv reads as missing by default. In a numeric column they mean "no value"; in a text
# column they are text: text normalization's tokens "NA", "None", "null" and "nan" are words to speak.
NA_TOKENS = frozenset(
    ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",
     "NA", "NULL", "NaN", "None", "n/a", "nan", "null")
)  # fmt: skip
BOOL_WORDS = {"True": True, "TRUE": True, "true": True, "False": False, "FALSE": False, "false": False}


def csv_header(path: str) -> list:
    """A CSV's column names; [] when it cannot be read."""
    try:
        return [str(c) for c in pd.read_csv(path, nrows=0).columns]
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError, OSError):
        return []


def read_csv_as_meant(path, **options) -> pd.DataFrame | Iterator[pd.DataFrame]:
    """A competition's CSV (or its chunks, with `chunksize`): numbers and booleans as pandas reads them by default,
    their missing-value tokens and empty cells missing; text columns keep every token ("NA", "None", "null"), only
    an empty cell missing. pandas' defaults would turn those tokens into NaN in text too, so that a solution writes
    a blank where the answer is the word. `options` go to pandas (`nrows`, `usecols`, ...); with a `dtype` the
    columns are left as pandas reads them."""
    read = pd.read_csv(path, **{"keep_default_na": False, "na_values": [""], **options})
    if "dtype" in options:
        return read
    if isinstance(read, pd.DataFrame):
        return numbers_as_meant(read)
    return (numbers_as_meant(chunk) for chunk in read)


def numbers_as_meant(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` (read with only empty cells missing) with each text column whose other cells are all numbers (or
    all booleans) read as pandas' defaults read it: its missing-value tokens missing. Any other text column keeps
    them, also one of nothing but such tokens (a column of "None" and "null" is words, not numbers)."""
    for column in frame.columns:
        cells = frame[column]
        if not (pd.api.types.is_string_dtype(cells) or pd.api.types.is_object_dtype(cells)):
            continue
        tokens = cells.isin(NA_TOKENS)
        rest = cells[~tokens & cells.notna()]
        if not tokens.any() or rest.empty:
            continue
        if pd.to_numeric(rest, errors="coerce").notna().all():
            frame[column] = pd.to_numeric(cells.where(~tokens), errors="coerce")
        elif rest.isin(list(BOOL_WORDS)).all():
            frame[column] = cells.where(~tokens).map(BOOL_WORDS).astype(object)
    return frame


def holds_missing_tokens(values: Iterable) -> bool:
    """Whether any of `values` (text cells) is one pandas' defaults read as missing ("NA", "None", a blank)."""
    return bool(pd.Series(list(values), dtype=object).isin(NA_TOKENS).any())
