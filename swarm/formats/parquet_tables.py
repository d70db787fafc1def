"""Parquet tables as the harness and the offline coder read them (icecube's `train_meta.parquet`).

Self-contained (pandas; pyarrow imported where used, as pandas reads parquet with it): the offline coder pastes
this module's source into solutions that read a parquet table, which run without the swarm package.
"""

import pandas as pd

PARQUET = ".parquet"


def is_parquet_name(name: str) -> bool:
    return str(name).lower().endswith(PARQUET)


def parquet_columns(path: str) -> list:
    """A parquet table's column names, read from its schema: a named index among them (`event_id`), also one
    pandas stored as a range (no column, only its name in the pandas metadata)."""
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    names = [name for name in schema.names if not name.startswith("__index_level_")]
    for index in (schema.pandas_metadata or {}).get("index_columns", []):
        if isinstance(index, dict) and index.get("kind") == "range" and index.get("name"):
            names.append(index["name"])
    return names


def parquet_table(path: str, max_rows=None) -> pd.DataFrame:
    """A parquet table, or its first `max_rows` rows (read a batch at a time: icecube's 119 million events are
    never read whole); a named index (`event_id`) as a column."""
    if max_rows:
        import pyarrow as pa
        import pyarrow.parquet as pq

        reader, batches, count = pq.ParquetFile(path), [], 0
        for batch in reader.iter_batches(batch_size=min(max_rows, 1_000_000)):
            batches.append(batch)
            count += len(batch)
            if count >= max_rows:
                break
        frame = pa.Table.from_batches(batches, schema=reader.schema_arrow).to_pandas().head(max_rows)
        for index in (reader.schema_arrow.pandas_metadata or {}).get("index_columns", []):
            name = index.get("name") if isinstance(index, dict) and index.get("kind") == "range" else None
            if (
                name and name not in frame.columns and frame.index.name != name
            ):  # the range of the whole table
                start, step = int(index.get("start", 0)), int(index.get("step", 1))
                frame.insert(0, name, range(start, start + step * len(frame), step))
    else:
        frame = pd.read_parquet(path)
    return frame.reset_index() if frame.index.name is not None else frame
