"""Asking the offline coder for a solution, and checking a run of it: it printed its metric and wrote a
submission with the sample's columns and ids, nothing missing."""

from __future__ import annotations

import pandas as pd

from swarm.llm.base import CallContext
from swarm.protocol import parse_metric_line


def ask(client, kind, comp=None, node="n", **hints):
    if comp is not None:
        hints["input_dir"] = str(comp.input_dir)
    return client.complete([], CallContext(stage="code", kind=kind, node_id=node, hints=hints))


def check_run(result, comp, sample: pd.DataFrame):
    assert result.returncode == 0, result.output[-3000:]
    metric = parse_metric_line(result.output)
    assert metric is not None, "no SWARM_METRIC line"
    assert result.submission is not None, "no submission written"
    assert list(result.submission.columns) == list(sample.columns)
    assert result.submission[comp.id_col].tolist() == sample[comp.id_col].tolist()
    assert not result.submission.isna().any().any()
    return metric
