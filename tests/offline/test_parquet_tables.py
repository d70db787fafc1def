"""The offline coder's reading of parquet tables (icecube's `train_meta.parquet`, issue 29): a named index is a
column, and a labelled table larger than the solution reads whole is read a batch at a time up to its first rows."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from swarm.formats.parquet_tables import parquet_table
from swarm.offline_coder.examples import table_columns


def test_a_parquet_table_is_read_with_its_named_index_and_up_to_max_rows(tmp_path: Path) -> None:
    frame = pd.DataFrame({"event_id": range(100, 130), "x": [k / 3 for k in range(30)]}).set_index("event_id")
    path = tmp_path / "train_meta.parquet"
    frame.to_parquet(path, row_group_size=7)
    assert table_columns(str(path)) == ["x", "event_id"]  # a range index: only a name in the metadata
    whole = parquet_table(str(path))
    assert whole["event_id"].tolist() == list(range(100, 130)) and whole["x"].tolist() == frame["x"].tolist()
    first = parquet_table(str(path), max_rows=10)
    pd.testing.assert_frame_equal(first, whole.head(10))
