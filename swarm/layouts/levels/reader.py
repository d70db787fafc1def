"""Examples at two levels, each level with rows of its own in one submission column: siim-covid19-detection's
sample has a row per study (`<StudyInstanceUID>_study`, `PredictionString` = `negative 1 0 0 1 1`: the study's
class with a dummy whole box) and a row per image (`<image>_image`, `none 1 0 0 1 1` or `opacity <confidence>
<x_min> <y_min> <x_max> <y_max> ...`). `train_study_level.csv` has a row per study with a 0/1 column per class
(`Negative for Pneumonia`, `Typical Appearance`, ...), `train_image_level.csv` a row per image with its `label`
written as the submission's string and the study it belongs to (`StudyInstanceUID`), and the images lie in a
folder per study (`train/<StudyInstanceUID>/<series>/<image>.dcm`).

`level_fields(data_dir, names, sample)` recognises the layout; `level_rows(data_dir, fields, id_col, target)`
gives a row per labelled study and image with the submission's string, as MLE-bench's `prepare.py` writes the
answers (a study's class is the first word of its 1 column, lower-cased, before the sample's dummy box), and a
`level` column (the ids' suffix); `id_levels(ids)` is the level of each id.

Shared by the harness (swarm/layouts/levels/split.py) and the offline coder; the solutions the offline coder
writes embed this module's source (after swarm/layouts/boxes/reader.py's), so it uses only os and pandas.
"""

import os

import pandas as pd

from swarm.layouts.boxes.reader import box_labels

LEVEL_COLUMN = "level"
LEVEL_HEAD_ROWS = 200  # a level table's first rows, on which its columns are recognised
LINK_SHARE = 0.9  # share of the child table's first rows whose link value must name a parent


def id_levels(ids: pd.Series) -> pd.Series:
    """Each id's level: its last `_`-separated part (`study` of `00086460a852_study`)."""
    return ids.astype(str).str.strip().str.rsplit("_", n=1).str[-1]


def level_fields(data_dir: str, names: list, sample: pd.DataFrame) -> dict | None:
    """{"levels": {level: {"table", "label", "classes", "box"}}, "parent", "child", "link", "tables"} where the sample
    (read as text) has one target and ids `<key>_<level>` of two levels (words), each level has a top-level
    training CSV named with it whose ids end so, holding either a column of the submission's strings (`label`)
    or 0/1 class columns (`classes`; the sample's dummy box `box` follows the class), and one table (the child's)
    has a column naming the other's keys (`link`, its values the parent ids less `_<level>`). None otherwise."""
    if sample.shape[1] != 2 or sample.empty:
        return None
    id_col, target = str(sample.columns[0]), sample.columns[1]
    ids = sample[id_col].astype(str).str.strip()
    levels_of = id_levels(ids)
    names_of_levels = list(dict.fromkeys(levels_of))
    if (
        len(names_of_levels) != 2
        or not all(level.isalpha() for level in names_of_levels)
        or not ids.str.contains("_").all()
    ):
        return None
    levels, heads = {}, {}
    for level in names_of_levels:
        table = next(
            (
                n
                for n in sorted(names)
                if n.lower().endswith(".csv") and "train" in n.lower() and level in n.lower()
            ),
            None,
        )
        if table is None:
            return None
        try:
            head = pd.read_csv(
                os.path.join(data_dir, table), nrows=LEVEL_HEAD_ROWS, dtype=str, keep_default_na=False
            )
        except (OSError, ValueError):
            return None
        if (
            id_col not in head.columns
            or head.empty
            or not head[id_col].str.strip().str.endswith("_" + level).all()
        ):
            return None
        others = [c for c in head.columns if c != id_col]
        label = next((c for c in others if (head[c] != "").all() and box_labels(head[c]) is not None), None)
        classes = [c for c in others if head[c].str.strip().isin(["0", "1"]).all()]
        if label is None and len(classes) < 2:
            return None
        shown = sample.loc[levels_of == level, target].astype(str).str.split()
        box = " ".join(shown.iloc[0][1:])
        levels[level] = {"table": table, "label": label, "classes": None if label else classes, "box": box}
        heads[level] = head
    for child, parent in (names_of_levels, names_of_levels[::-1]):
        parent_ids = set(
            pd.read_csv(
                os.path.join(data_dir, levels[parent]["table"]),
                usecols=[id_col],
                dtype=str,
                keep_default_na=False,
            )[id_col].str.strip()
        )
        for column in (c for c in heads[child].columns if c != id_col):
            named = (heads[child][column].str.strip() + "_" + parent).isin(parent_ids)
            if named.mean() >= LINK_SHARE:
                tables = [levels[parent]["table"], levels[child]["table"]]
                return {"levels": levels, "parent": parent, "child": child, "link": column, "tables": tables}
    return None


def level_strings(table: pd.DataFrame, fields: dict, level: str, id_col: str, target: str) -> pd.DataFrame:
    """A level table's rows as `id_col`, `target` (the submission's string) and `level`."""
    spec = fields["levels"][level]
    if spec["label"] is not None:
        strings = table[spec["label"]].astype(str).str.strip()
    else:  # the first class column holding the row's largest value (prepare.py's argmax), lower-cased first word
        values = table[spec["classes"]].apply(pd.to_numeric, errors="coerce").fillna(0)
        words = pd.Series({c: str(c).split()[0].lower() for c in spec["classes"]})
        strings = words.loc[values.idxmax(axis=1)].to_numpy() + (" " + spec["box"] if spec["box"] else "")
    ids = table[id_col].astype(str).str.strip()
    return pd.DataFrame({id_col: ids.to_numpy(), target: list(strings), LEVEL_COLUMN: level})


def level_rows(data_dir: str, fields: dict, id_col: str, target: str) -> pd.DataFrame:
    """Every labelled row of both levels (see level_strings), the parent level's first."""
    frames = []
    for level in (fields["parent"], fields["child"]):
        table = pd.read_csv(
            os.path.join(data_dir, fields["levels"][level]["table"]), dtype=str, keep_default_na=False
        )
        frames.append(level_strings(table, fields, level, id_col, target))
    return pd.concat(frames, ignore_index=True)


def find_levels(probe) -> dict | None:
    """The fields of examples at two levels (see `level_fields`) where no labelled table is named, else None."""
    if probe.labelled_table:
        return None
    return level_fields(probe.data_dir, probe.names, probe.sample)


def read_levels_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): the rows of both levels with their strings; the sample's ids with their levels."""
    id_col = sample.columns[0]
    train = level_rows(data_dir, fields, id_col, sample.columns[1]).head(max_rows)
    return train, sample[[id_col]].assign(**{LEVEL_COLUMN: id_levels(sample[id_col])})
