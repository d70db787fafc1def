"""Labelled boxes a row, scored as a string of boxes per example: vinbigdata-chest-xray-abnormalities-detection's
`train.csv` has a row per box a radiologist drew (`image_id`, `class_name`, `class_id`, `rad_id`, `x_min`,
`y_min`, `x_max`, `y_max`; "No finding" rows have no corners), while the submission has a row per image whose
`PredictionString` lists its boxes as `<class> <confidence> <x_min> <y_min> <x_max> <y_max>` groups.

`box_row_fields(head, id_column, targets, sample_values)` recognises the layout from the labelled table's first
rows; `box_labels(values)` tells a column of box strings; `box_groups(text)` reads one;
`box_strings(table, fields, id_column, target)` writes each example's boxes as the submission's string,
as MLE-bench's `prepare.py` writes the answers: where a column names who drew the box (`rad_id`), the first box
of each (example, class) stands for them ("we simulate consensus by taking the first annotation for each
image_id, class_id pair"); a box without corners is `0 0 1 1` (its `fillna(0)` and `x_max = y_max = 1` for
"No finding", as the sample's `14 1 0 0 1 1`); every box has confidence 1.0.

Shared by the harness (swarm/layouts/boxes/split.py) and the offline coder; the solutions the offline coder
writes embed this module's source, so it uses only pandas.

`find_boxes(probe)` finds the layout (`train.csv` and no `test.csv`) for the harness (swarm/layouts/boxes/split.py)
and the offline coder alike, and `read_boxes_examples` reads it as the coder's solutions do.
"""

import os

import pandas as pd

from swarm.formats.csv_tables import read_csv_as_meant

BOX_TABLE = "train.csv"  # the labelled table of boxes, a row each; no test table beside it
BOX_TEST_TABLE = "test.csv"
BOX_HEAD_ROWS = 200  # the labelled table's first rows, on which the layout is recognised
BOX_SAMPLE_ROWS = 20  # the sample's first rows, whose values must be box strings
BOX_GROUP = 6  # <class> <confidence> <x_min> <y_min> <x_max> <y_max>
CORNER_NAMES = ("xmin", "ymin", "xmax", "ymax")  # column names compared in lower case without "_"
CLASS_WORDS = ("class", "label", "category")
ANNOTATOR_WORDS = ("rad_id", "annotator", "rater", "radiologist", "reader")
NO_CORNERS = ("0", "0", "1", "1")
BOX_CONFIDENCE = "1.0"


def box_row_fields(
    head: pd.DataFrame, id_column: str, targets: list, sample_values: pd.Series
) -> dict | None:
    """{"corners": the four corner columns, "class": the class column, "annotator": a column naming who drew each
    box, or None} where the sample has one target, which the labelled table (`head`: its first rows) lacks while
    it has the id column, columns named x_min, y_min, x_max, y_max (any case, "_" or not) and a class column
    (named with class, label or category; of numbers where the sample's boxes name classes by numbers, as
    vinbigdata's `class_id` beside `class_name`); and the sample's values are boxes. None otherwise."""
    if len(targets) != 1 or targets[0] in head.columns or id_column not in head.columns:
        return None
    plain = {str(c).lower().replace("_", ""): c for c in head.columns}
    if not all(name in plain for name in CORNER_NAMES):
        return None
    labels = box_labels(sample_values)
    if labels is None:
        return None
    corners = [plain[name] for name in CORNER_NAMES]
    numbered = all(_parses_as_number(label) for label in labels)
    candidates = [
        c
        for c in head.columns
        if c not in corners and c != id_column and any(word in str(c).lower() for word in CLASS_WORDS)
    ]
    found = [c for c in candidates if _all_numbers(head[c]) == numbered]
    if not found:
        return None
    annotator = next((c for c in head.columns if any(w in str(c).lower() for w in ANNOTATOR_WORDS)), None)
    return {"corners": corners, "class": found[0], "annotator": annotator}


def box_labels(values: pd.Series) -> list | None:
    """The class tokens of a column of box strings, or None where a value is no box string (groups of six
    tokens, the last five numbers) or none has a box."""
    labels = []
    for value in values.dropna().astype(str):
        tokens = value.split()
        if len(tokens) % BOX_GROUP or not all(
            _parses_as_number(t) for k, t in enumerate(tokens) if k % BOX_GROUP
        ):
            return None
        labels.extend(tokens[::BOX_GROUP])
    return labels or None


def box_groups(text: str) -> list:
    """The boxes of one box string: (class, [x_min, y_min, x_max, y_max]) each, the confidence left out."""
    tokens = str(text).split()
    return [
        (tokens[k], [float(v) for v in tokens[k + 2 : k + BOX_GROUP]])
        for k in range(0, len(tokens), BOX_GROUP)
    ]


def _parses_as_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _all_numbers(values: pd.Series) -> bool:
    text = values.dropna().astype(str).str.strip()
    text = text[text != ""]
    return len(text) > 0 and all(_parses_as_number(v) for v in text)


def box_strings(table: pd.DataFrame, fields: dict, id_column: str, target: str) -> pd.DataFrame:
    """A row per id of `table` (in the order of first appearance): `id_column` and `target`, its boxes as
    `<class> 1.0 <x_min> <y_min> <x_max> <y_max>` joined with " " (see the module docstring)."""
    ids = table[id_column].astype(str).str.strip()
    classes = table[fields["class"]].astype(str).str.strip()
    keep = pd.Series(True, index=table.index)
    if fields.get("annotator"):  # several readers' boxes: the first of each (example, class) stands for them
        keep = ~pd.DataFrame({"id": ids, "class": classes}).duplicated()
    corners = table[fields["corners"]].astype(str).apply(lambda c: c.str.strip())
    corners = corners.mask(table[fields["corners"]].isna(), "")
    missing = corners == ""
    none = missing.all(axis=1)
    corners = corners.mask(missing, "0")  # a corner left blank is 0, as prepare.py's fillna(0)
    for column, value in zip(fields["corners"], NO_CORNERS, strict=True):  # no box: 0 0 1 1, as the sample's
        corners.loc[none, column] = value
    boxes = classes + " " + BOX_CONFIDENCE + " " + corners.apply(" ".join, axis=1)
    frame = pd.DataFrame({id_column: ids, target: boxes})[keep]
    joined = frame.groupby(id_column, sort=False)[target].agg(" ".join)
    return joined.reset_index()


def find_boxes(probe) -> dict | None:
    """`box_row_fields` of the probed dir's `train.csv` (its first rows, as text) where there is no `test.csv`, with
    the table's name ("train"); None otherwise."""
    if len(probe.targets) != 1 or BOX_TABLE not in probe.names or BOX_TEST_TABLE in probe.names:
        return None
    try:
        head = pd.read_csv(
            os.path.join(probe.data_dir, BOX_TABLE), nrows=BOX_HEAD_ROWS, dtype=str, keep_default_na=False
        )
    except (OSError, ValueError):
        return None
    values = probe.sample[probe.targets[0]].head(BOX_SAMPLE_ROWS)
    fields = box_row_fields(head, probe.id_column, probe.targets, values)
    return None if fields is None else {"train": BOX_TABLE, **fields}


def read_boxes_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): each example's boxes as the sample's string (`box_strings`) from the table's row per box; the
    sample's ids, the test rows."""
    train = read_csv_as_meant(os.path.join(data_dir, fields["train"]), nrows=max_rows)
    return box_strings(train, fields, sample.columns[0], sample.columns[1]), sample[
        [sample.columns[0]]
    ].copy()
