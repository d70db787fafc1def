"""Ids that join columns of the labelled table with "_": nfl-player-contact-detection's `contact_id` is
`<game_play>_<step>_<nfl_player_id_1>_<nfl_player_id_2>`, and with no test table the sample's ids are all a
solution knows of the test rows, so it splits them back into those columns. A reader (embedded in solutions):
pandas only."""

import pandas as pd

MAX_ID_PARTS = 5
ID_PARTS_ROWS = 200  # the labelled table's first rows on which the columns must join into the ids


def id_part_columns(head: pd.DataFrame, id_col: str, targets: list) -> list | None:
    """2 to MAX_ID_PARTS columns of `head` (the labelled table's first rows, as text), neither the id nor a target,
    whose values joined with "_" are every row's id, and which splitting the id from the right gives back (so
    only the first may hold "_"); the first such sequence, fewer columns first. None where none does."""
    if id_col not in head.columns or head.empty:
        return None
    ids = head[id_col].str.strip()
    values = {c: head[c].str.strip() for c in head.columns if c != id_col and c not in targets}
    first = ids.iloc[0]

    def extend(chain, at):
        if at == len(first):
            return [chain] if len(chain) >= 2 else []
        if len(chain) == MAX_ID_PARTS:
            return []
        found = []
        for column, column_values in values.items():
            part, end = column_values.iloc[0], at + len(column_values.iloc[0])
            fits = part and first.startswith(part, at) and (end == len(first) or first[end] == "_")
            if fits and column not in chain:
                found += extend([*chain, column], end + 1 if end < len(first) else end)
        return found

    for chain in sorted(extend([], 0), key=len):
        # the id split from the right gives back each column: joined again, the parts are the id itself
        split = ids.str.rsplit("_", n=len(chain) - 1, expand=True)
        if split.shape[1] == len(chain) and all(
            split[k].equals(values[c].rename(k)) for k, c in enumerate(chain)
        ):
            return chain
    return None


def with_id_parts(test: pd.DataFrame, train: pd.DataFrame, parts: list, id_col: str) -> pd.DataFrame:
    """`test` with the columns `parts` its ids give back (split with "_" from the right), numbers where the
    labelled table's column is numbers (a part that is no number missing)."""
    split = test[id_col].astype(str).str.strip().str.rsplit("_", n=len(parts) - 1, expand=True)
    test = test.copy()
    for k, column in enumerate(parts):
        numeric = pd.api.types.is_numeric_dtype(train[column])
        test[column] = pd.to_numeric(split[k], errors="coerce") if numeric else split[k]
    return test
