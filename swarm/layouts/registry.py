"""The registry of data layouts: one record per layout, in the one order both the harness and the offline coder
look for them, so a public dir is always read as the layout it is split as.

A layout is a folder of `swarm/layouts/`: its reader (`reader.py`: its detector `find_<layout>`, which sees a
public dir through a `swarm.formats.probe.Probe` and gives the layout's fields, or None, and
`read_<layout>_examples`, which reads the labelled examples and the test rows as frames; embedded in the solutions
that read the layout) and its split for the harness (`split.py`). A
public dir no layout is found in is a plain labelled table (`swarm.layouts.tables`).
Adding a layout is a folder, an entry here and a miniature in `tests/layouts/`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pandas as pd

from swarm.evaluation.holdout_record import SplitParts, SplitRequest
from swarm.formats.probe import Probe
from swarm.layouts.boxes import reader as boxes_reader
from swarm.layouts.boxes.split import split_box_rows
from swarm.layouts.bson import reader as bson_reader
from swarm.layouts.bson.split import split_bson
from swarm.layouts.coco import reader as coco_reader
from swarm.layouts.coco.split import build_coco_holdout
from swarm.layouts.composite import reader as composite_reader
from swarm.layouts.composite.split import split_composite
from swarm.layouts.folder_rows import reader as folder_rows_reader
from swarm.layouts.folder_rows.split import split_folder_rows
from swarm.layouts.grouped import reader as grouped_reader
from swarm.layouts.grouped.split import split_groups
from swarm.layouts.keyed import reader as keyed_reader
from swarm.layouts.keyed.split import split_keyed_rows
from swarm.layouts.label_lines import reader as label_lines_reader
from swarm.layouts.label_lines.split import build_label_lines_holdout
from swarm.layouts.later_events import reader as later_events_reader
from swarm.layouts.later_events.split import split_later_events
from swarm.layouts.levels import reader as levels_reader
from swarm.layouts.levels.split import split_levels
from swarm.layouts.long_classes import reader as long_classes_reader
from swarm.layouts.long_classes.split import split_long_class_rows
from swarm.layouts.masks import reader as masks_reader
from swarm.layouts.masks.split import split_mask_folders
from swarm.layouts.pixels import reader as pixels_reader
from swarm.layouts.pixels.split import split_pixels
from swarm.layouts.positions import reader as positions_reader
from swarm.layouts.positions.split import split_positions
from swarm.layouts.qa import reader as qa_reader
from swarm.layouts.qa.split import split_qa_records
from swarm.layouts.sentences import reader as sentences_reader
from swarm.layouts.sentences.split import split_sentence_lines
from swarm.layouts.twins import reader as twins_reader
from swarm.layouts.twins.split import split_twins
from swarm.layouts.visits import reader as visits_reader
from swarm.layouts.visits.split import split_visits

Fields = dict[str, Any]


@dataclass(frozen=True)
class Layout:
    """One data layout: what its examples look like, how it is found, how the harness splits it, and how the
    offline coder reads it."""

    name: str  # its folder in swarm/layouts/, and its key in the offline coder's DATA_FILES
    summary: str  # its examples, and a competition of MLE-bench that has it
    find: Callable[[Probe], Any]  # its one detector: the layout's fields in a public dir, or None
    split: Callable[[SplitRequest, Any], SplitParts]  # what build_holdout saves
    # swarm/layouts/<name>/reader.py, whose read_<name>_examples the offline coder reads the layout with and which
    # solutions embed; None where the coder reads the layout's labelled table itself (swarm/offline_coder/discovery)
    reader: ModuleType | None = None
    labelled: Callable[[Fields], str] | None = (
        None  # the file or folder whose change means new labelled examples
    )
    keys_rows: bool = False  # whether it splits rows the sample keys by the id and other columns

    @property
    def read(self) -> Callable[..., tuple[pd.DataFrame, pd.DataFrame]] | None:
        """The reader's `read_<name>_examples(data_dir, fields, sample, max_rows=None)`: (train, test) frames."""
        return None if self.reader is None else getattr(self.reader, f"read_{self.name}_examples")


def _read_by_coder(
    name: str,
    summary: str,
    reader: ModuleType,
    split: Callable,
    labelled: Callable[[Fields], str],
    **flags: bool,
) -> Layout:
    """A layout the offline coder reads with its reader's `read_<name>_examples`, found by its `find_<name>`."""
    return Layout(name, summary, getattr(reader, f"find_{name}"), split, reader, labelled, **flags)


LAYOUTS: tuple[Layout, ...] = (
    _read_by_coder(
        "keyed",
        "rows keyed by the id and another column, each id beginning with its input folder's name (uw-madison)",
        keyed_reader,
        split_keyed_rows,
        lambda fields: fields["train"],
        keys_rows=True,
    ),
    _read_by_coder(
        "composite",
        "ids joining columns of the test table, `<sentence_id>_<token_id>` (text-normalization-challenge)",
        composite_reader,
        split_composite,
        lambda fields: fields["train"],
    ),
    _read_by_coder(
        "visits",
        "a row per visit, the test each key's first, the sample every step (osic-pulmonary-fibrosis-progression)",
        visits_reader,
        split_visits,
        lambda fields: fields["train"],
    ),
    _read_by_coder(
        "positions",
        "JSON records whose targets are arrays, a submission row per position (stanford-covid-vaccine)",
        positions_reader,
        split_positions,
        lambda fields: fields["train"],
    ),
    _read_by_coder(
        "long_classes",
        "a wide labelled table or a column of class lists, a submission row per (example, class) (rsna-2022-cervical-"
        "spine-fracture-detection)",
        long_classes_reader,
        split_long_class_rows,
        lambda fields: fields["train"],
    ),
    _read_by_coder(
        "grouped",
        "test rows grouped under one submission id, an image per row (rsna-breast-cancer-detection)",
        grouped_reader,
        split_groups,
        lambda fields: fields["train"],
    ),
    _read_by_coder(
        "boxes",
        "a row per labelled box, a string of boxes per example (vinbigdata-chest-xray-abnormalities-detection)",
        boxes_reader,
        split_box_rows,
        lambda fields: fields["train"],
    ),
    _read_by_coder(
        "sentences",
        "sentences a line, a word taken out of each test sentence (billion-word-imputation)",
        sentences_reader,
        split_sentence_lines,
        lambda fields: fields["train"],
    ),
    _read_by_coder(
        "twins",
        "whole groups whose inputs are train_<x>/test_<x> table pairs (nfl-player-contact-detection)",
        twins_reader,
        split_twins,
        lambda fields: fields["labels"],
    ),
    _read_by_coder(
        "folder_rows",
        "a labels table in each example folder, its rows keyed by the folder and a time (smartphone-decimeter-2022)",
        folder_rows_reader,
        split_folder_rows,
        lambda fields: fields["train_dir"],
        keys_rows=True,
    ),
    _read_by_coder(
        "levels",
        "examples at two levels, each with rows in the sample (siim-covid19-detection's studies and images)",
        levels_reader,
        split_levels,
        lambda fields: fields["tables"][0],
    ),
    _read_by_coder(
        "bson",
        "a document per example in BSON files, streamed (cdiscount-image-classification-challenge)",
        bson_reader,
        split_bson,
        lambda fields: fields["train"],
    ),
    _read_by_coder(
        "qa",
        "questions with annotated answers, a JSON record a line (tensorflow2-question-answering)",
        qa_reader,
        split_qa_records,
        lambda fields: fields["train"],
    ),
    _read_by_coder(
        "masks",
        "a mask file in a folder per example, run-length encoded in the sample (contrails, vesuvius)",
        masks_reader,
        split_mask_folders,
        lambda fields: fields["train_dir"],
    ),
    _read_by_coder(
        "later_events",
        "a log of events whose later ones are the targets (h-and-m-personalized-fashion-recommendations)",
        later_events_reader,
        split_later_events,
        lambda fields: fields["log"],
    ),
    _read_by_coder(
        "pixels",
        "target images, a submission row per pixel (denoising-dirty-documents)",
        pixels_reader,
        split_pixels,
        lambda fields: fields["target_dir"],
    ),
    _read_by_coder(
        "coco",
        "COCO-style JSON labels beside image folders (herbarium, iwildcam-2020)",
        coco_reader,
        build_coco_holdout,
        lambda fields: fields["train_json"],
    ),
    _read_by_coder(
        "label_lines",
        "label sets in text lines, a submission row per (example, class) (mlsp-2013-birds)",
        label_lines_reader,
        build_label_lines_holdout,
        lambda fields: fields["labels_file"],
    ),
)
# The layouts the offline coder reads with their readers, in the registry's order.
READ_BY_CODER = tuple(layout for layout in LAYOUTS if layout.reader is not None)


def find_layout(probe: Probe) -> tuple[Layout, Any] | None:
    """The first registered layout whose detector finds it in the probed dir, with its fields; None where none.
    Where the sample keys each row by the id and other columns, only layouts that split such rows are looked for."""
    for layout in LAYOUTS:
        if probe.key_columns and not layout.keys_rows:
            continue
        fields = layout.find(probe)
        if fields:
            return layout, fields
    return None
