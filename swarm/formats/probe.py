"""What a layout's detector looks at in a competition's public dir, made once by whoever looks: the harness before
its split, the offline coder before it writes a solution, and a solution that infers its task at run time.

A reader (embedded in solutions): the standard library and pandas only.
"""

import os

import pandas as pd

# Tables whose names say they hold the labelled rows: where one is at the top of the public dir, the labelled
# examples are read from it, and the layouts of examples beyond a labelled table are not looked for.
LABELLED_TABLES = (
    "train.csv",
    "train_labels.csv",
    "labels.csv",
    "training_labels.csv",
    "train.json",
    "train.jsonl",
)


class Probe:
    """A public dir as a detector sees it: its path (`data_dir`), its top-level names (sorted), the sample
    submission read as text, the sample's id column and target columns, and the description's text; what the
    harness knows besides (the competition and its metric spec): the sample's path, the columns that key a row
    with the id, and how large a labelled table may be read whole (in MB; None: any)."""

    def __init__(self, data_dir, names, sample, id_column, targets, description="", **known):
        self.data_dir = str(data_dir)
        self.names = sorted(names)
        self.sample = sample
        self.id_column = str(id_column)
        self.targets = [str(t) for t in targets]
        self.description = description or ""
        self.sample_path = known.get("sample_path")
        self.key_columns = list(known.get("key_columns") or [])
        self.max_train_mb = known.get("max_train_mb")

    @property
    def ids(self) -> list:
        """The sample's ids as stripped text."""
        return [str(i).strip() for i in self.sample[self.id_column]]

    @property
    def labelled_table(self):
        """The first of LABELLED_TABLES at the top of the dir, or None."""
        return next((name for name in LABELLED_TABLES if name in self.names), None)


def probe_dir(data_dir: str, sample: pd.DataFrame, description: str = "") -> Probe:
    """The Probe of `data_dir` whose sample (read as text) has its id first and its targets after it."""
    names = os.listdir(data_dir) if os.path.isdir(data_dir) else []
    return Probe(data_dir, names, sample, sample.columns[0], list(sample.columns[1:]), description)
