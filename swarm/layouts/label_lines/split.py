"""The harness split of label sets in text lines, the test examples marked `?` (mlsp-2013-birds;
swarm/layouts/label_lines/reader.py): whole labelled examples are held out at random; the view's labels file marks their lines
`?` as it marks the test examples'; a table that tells test examples from training ones (`CVfolds_2.txt`'s
`fold`) gives them the test examples' value; the sample lists their (example, class) rows among the test ones,
in the order of their ids; labels.csv keeps their 0/1 answers. The examples keep their ids: every other file
keyed by them (recordings, spectrograms, segment features) stays as it is.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from swarm.evaluation.fresh_ids import kept_ids
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest
from swarm.evaluation.labelled_data import MIN_LABELLED_ROWS
from swarm.evaluation.split import whole_examples
from swarm.evaluation.table_io import write_public_csv
from swarm.evaluation.view_files import extracted_archives, fresh_view, mirror
from swarm.layouts.label_lines.reader import UNKNOWN_LABELS, read_label_lines, split_lines, text_files


def build_label_lines_holdout(request: SplitRequest, fields: dict) -> SplitParts:
    """build_holdout for label sets in text lines (see the module docstring): whole examples, at random."""
    competition, spec, root, sample = request.competition, request.spec, request.root, request.sample
    fraction, split, seed = request.fraction, request.split, request.seed
    public = competition.public_dir
    labels_path = public / fields["labels_file"]
    labels = read_label_lines(str(labels_path)) or {}
    known = sorted(k for k, v in labels.items() if v is not None)
    if len(known) < MIN_LABELLED_ROWS:
        raise NoHoldout(f"{fields['labels_file']} has only {len(known)} labelled examples")
    what = f"label sets in text lines ({fields['labels_file']})"
    held = [known[k] for k in whole_examples(split, len(known), fraction, seed, what, "examples")]
    tests = {k for k, v in labels.items() if v is None}
    markers = _marker_tables(public, set(labels), tests, skip=labels_path)

    dest = fresh_view(root)
    mirror(public, dest, {labels_path, competition.sample_submission, *markers, *extracted_archives(public)})
    _write_unknown(labels_path, set(held), dest / fields["labels_file"])
    for path, (key, column, test_value) in markers.items():
        _write_marked(path, key, column, test_value, set(held), dest / path.relative_to(public))

    id_col, target = spec.id_column, spec.target_columns[0]
    multiplier, classes = fields["multiplier"], fields["classes"]
    pairs = [(e, c) for e in held for c in range(classes)]
    ids = [str(e * multiplier + c) for e, c in pairs]
    answers = [str(int(c in (labels[e] or []))) for e, c in pairs]
    filler = sample[target].iloc[0] if len(sample) else "0"
    rows = pd.concat([sample, pd.DataFrame({id_col: ids, target: filler})], ignore_index=True)
    rows = rows.iloc[np.argsort(rows[id_col].astype(np.int64).to_numpy(), kind="stable")]
    write_public_csv(rows, dest / competition.sample_submission.name)
    note = (
        f"every example stays listed under its own id in every file, the held-out ones marked {UNKNOWN_LABELS} in "
        f"{fields['labels_file']} as the test ones are, so no gap or file names them"
    )
    return SplitParts(
        pd.DataFrame({target: answers}),
        pd.DataFrame(index=range(len(ids))),
        ids,
        ("random", f"whole examples of {fields['labels_file']}, a row per (example, class)"),
        n_train=len(known) - len(held),
        classes={},
        table=(
            f"{fields['labels_file']} ({len(held)} examples marked {UNKNOWN_LABELS}, a row per class "
            f"<example> * {multiplier} + <class>)"
        ),
        hidden=[fields["labels_file"]],
        file_dirs=[],
        fresh=kept_ids(note),
    )


def _marker_tables(public: Path, examples: set, tests: set, skip: Path) -> dict:
    """{table: (key column, marker column, the test examples' value)} of the text tables with a header and a
    line per example whose marker column holds one value on every test example and another on every labelled
    one (CVfolds_2.txt's `fold`)."""
    found = {}
    for name in text_files(str(public)):
        path = public / name
        if path == skip:
            continue
        header = _header(path)
        rows = split_lines(str(path))
        if len(header) < 2 or not rows or any(len(r) != len(header) for r in rows):
            continue
        if not all(r[0].isdigit() for r in rows):
            continue
        keys = [int(r[0]) for r in rows]
        if len(keys) != len(set(keys)) or set(keys) != examples:
            continue
        for k in range(1, len(header)):
            test_values = {r[k] for r in rows if int(r[0]) in tests}
            train_values = {r[k] for r in rows if int(r[0]) not in tests}
            if len(test_values) == 1 and len(train_values) == 1 and test_values != train_values:
                found[path] = (0, k, test_values.pop())
                break
    return found


def _header(path: Path) -> list:
    """A text table's header fields; [] when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            return [part.strip() for part in handle.readline().split(",")]
    except (OSError, UnicodeDecodeError):
        return []


def _write_unknown(source: Path, held: set, target: Path) -> None:
    """The labels file with the held-out examples' lines as `<id>,?`, every other line as it was."""
    lines = source.read_text(encoding="utf-8").splitlines()
    out = lines[:1]
    for line in lines[1:]:
        first = line.split(",")[0].strip()
        out.append(f"{first},{UNKNOWN_LABELS}" if first.isdigit() and int(first) in held else line)
    _write_text(target, "\n".join(out) + "\n")


def _write_marked(source: Path, key: int, column: int, value: str, held: set, target: Path) -> None:
    """The marker table with the held-out examples' marker set to the test examples' value."""
    lines = source.read_text(encoding="utf-8").splitlines()
    out = lines[:1]
    for line in lines[1:]:
        parts = line.split(",")
        if parts[key].strip().isdigit() and int(parts[key].strip()) in held:
            parts[column] = value
        out.append(",".join(parts))
    _write_text(target, "\n".join(out) + "\n")


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o644)
