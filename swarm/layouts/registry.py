"""The registry of data layouts: one record per layout, in the one order both the harness and the offline coder
look for them, so a public dir is always read as the layout it is split as.

A layout is a folder of `swarm/layouts/`: its reader (`reader.py`: `find_<layout>` sees a public dir through a
`swarm.formats.probe.Probe` and gives the layout's fields, or None; `read_<layout>_examples` reads the labelled
examples and the test rows as frames; embedded in the solutions that read the layout) and its split for the harness
(`split.py`). Adding one is a folder, a line here and a miniature in `tests/layouts/`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pandas as pd

from swarm.evaluation.holdout_record import Holdout, SplitParts, SplitRequest
from swarm.formats.probe import Probe
from swarm.layouts.bson import reader as bson_reader
from swarm.layouts.bson.split import split_bson
from swarm.layouts.coco import reader as coco_reader
from swarm.layouts.coco.split import build_coco_holdout
from swarm.layouts.folder_rows import reader as folder_rows_reader
from swarm.layouts.folder_rows.split import split_folder_rows
from swarm.layouts.label_lines import reader as label_lines_reader
from swarm.layouts.label_lines.split import build_label_lines_holdout
from swarm.layouts.later_events import reader as later_events_reader
from swarm.layouts.later_events.split import split_later_events
from swarm.layouts.levels import reader as levels_reader
from swarm.layouts.levels.split import split_levels
from swarm.layouts.masks import reader as masks_reader
from swarm.layouts.masks.split import split_mask_folders
from swarm.layouts.pixels import reader as pixels_reader
from swarm.layouts.pixels.split import split_pixels
from swarm.layouts.qa import reader as qa_reader
from swarm.layouts.qa.split import split_qa_records

Fields = dict[str, Any]


@dataclass(frozen=True)
class Layout:
    """One data layout: what its examples look like, how it is found and read, and how the harness splits it."""

    name: str  # its folder in swarm/layouts/, and its key in the offline coder's DATA_FILES
    summary: str  # its examples, and a competition of MLE-bench that has it
    reader: ModuleType  # swarm/layouts/<name>/reader.py, embedded in the solutions that read the layout
    split: Callable[[SplitRequest, Fields], SplitParts | Holdout]
    labelled: Callable[[Fields], str]  # the file or folder whose change means new labelled examples

    @property
    def find(self) -> Callable[[Probe], Fields | None]:
        """The reader's `find_<name>`: the layout's fields in a public dir, or None."""
        return getattr(self.reader, f"find_{self.name}")

    @property
    def read(self) -> Callable[..., tuple[pd.DataFrame, pd.DataFrame]]:
        """The reader's `read_<name>_examples(data_dir, fields, sample, max_rows=None)`: (train, test) frames."""
        return getattr(self.reader, f"read_{self.name}_examples")


LAYOUTS: tuple[Layout, ...] = (
    Layout(
        "folder_rows",
        "a labels table in each example folder, its rows keyed by the folder and a time (smartphone-decimeter-2022)",
        folder_rows_reader,
        split_folder_rows,
        lambda fields: fields["train_dir"],
    ),
    Layout(
        "levels",
        "examples at two levels, each with rows in the sample (siim-covid19-detection's studies and images)",
        levels_reader,
        split_levels,
        lambda fields: fields["tables"][0],
    ),
    Layout(
        "bson",
        "a document per example in BSON files, streamed (cdiscount-image-classification-challenge)",
        bson_reader,
        split_bson,
        lambda fields: fields["train"],
    ),
    Layout(
        "qa",
        "questions with annotated answers, a JSON record a line (tensorflow2-question-answering)",
        qa_reader,
        split_qa_records,
        lambda fields: fields["train"],
    ),
    Layout(
        "masks",
        "a mask file in a folder per example, run-length encoded in the sample (contrails, vesuvius)",
        masks_reader,
        split_mask_folders,
        lambda fields: fields["train_dir"],
    ),
    Layout(
        "later_events",
        "a log of events whose later ones are the targets (h-and-m-personalized-fashion-recommendations)",
        later_events_reader,
        split_later_events,
        lambda fields: fields["log"],
    ),
    Layout(
        "pixels",
        "target images, a submission row per pixel (denoising-dirty-documents)",
        pixels_reader,
        split_pixels,
        lambda fields: fields["target_dir"],
    ),
    Layout(
        "coco",
        "COCO-style JSON labels beside image folders (herbarium, iwildcam-2020)",
        coco_reader,
        build_coco_holdout,
        lambda fields: fields["train_json"],
    ),
    Layout(
        "label_lines",
        "label sets in text lines, a submission row per (example, class) (mlsp-2013-birds)",
        label_lines_reader,
        build_label_lines_holdout,
        lambda fields: fields["labels_file"],
    ),
)
BY_NAME = {layout.name: layout for layout in LAYOUTS}


def find_layout(probe: Probe) -> tuple[Layout, Fields] | None:
    """The first registered layout whose detector finds it in the probed dir, with its fields; None where none."""
    for layout in LAYOUTS:
        fields = layout.find(probe)
        if fields:
            return layout, fields
    return None
