"""A library of Kaggle metrics on sklearn.metrics and scipy.stats, with their directions and valid predictions.

`base` holds what the families share: the `Metric` record (a scoring function plus what a valid prediction for it
looks like), its parameters' checks, the readers of labels, numbers and text cells, and `InvalidPrediction`. Each
family of metrics is a module importing `base` only, listing its metrics as `ENTRIES`: `classification`,
`regression`, `label_sets` (ranked labels, label sets, word sets), `sequences` (orders, texts, points in boxes),
`boxes`, `boxes_3d`, `masks` (run-length encodings), `masks_3d` and `numeric` (metrics of single MLE-bench
competitions). `library` is the table of them all by name, with `resolve_metric` and `get_metric`; this package
re-exports that public face.

A metric of scope "column" scores one target column (`y_true`, `y_pred` as 1-D arrays); a competition with
several target columns scores each column and averages them. A metric of scope "table" scores all target columns
at once (2-D arrays, one column per target). A "grouped" metric also takes each row's group, the values of the
answers' column named by its parameter `group_column`: `metric.score(y_true, y_pred, groups=...)`.
"""

from __future__ import annotations

from swarm.competitions.metrics.base import Metric
from swarm.competitions.metrics.library import METRICS, get_metric, resolve_metric

__all__ = ["METRICS", "Metric", "get_metric", "resolve_metric"]
