"""The metric library's table: every metric of the families by name and alias, and the look-ups by name.

The entries come from the family modules (each module's `ENTRIES`), in the order of `FAMILIES`; wherever the
library is shown (prompts, the tool schema, error messages) its names are sorted, so that order is only the
table's.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics import (
    boxes,
    boxes_3d,
    classification,
    label_sets,
    masks,
    masks_3d,
    numeric,
    regression,
    sequences,
)
from swarm.competitions.metrics.base import Metric

FAMILIES = (
    classification,
    regression,
    label_sets,
    sequences,
    boxes,
    boxes_3d,
    masks,
    numeric,
    masks_3d,
)
LIBRARY: tuple[Metric, ...] = tuple(metric for family in FAMILIES for metric in family.ENTRIES)
METRICS: dict[str, Metric] = {m.name: m for m in LIBRARY}
ALIASES: dict[str, str] = {alias: m.name for m in LIBRARY for alias in m.aliases}
# `map@3`, `map_at_3`, `map3`, `map_3`: MAP@k with k set.
_MAP_AT = re.compile(r"^map(?:_?at_?|@|_)?(\d+)$")


def _key(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def resolve_metric(name: str) -> tuple[Metric, dict[str, Any]]:
    """The metric called `name` (case-insensitive, aliases accepted) and the parameters the name sets.

    `map@3` gives (map_at_k, {"k": 3}); other names set none. Unknown names raise CompetitionError.
    """
    key = _key(name)
    match = _MAP_AT.match(key)
    if match:
        metric, params = METRICS["map_at_k"], {"k": int(match.group(1))}
        metric.resolve_params(params)
        return metric, params
    key = ALIASES.get(key, key)
    if key not in METRICS:
        raise CompetitionError(f"unknown metric {name!r}; known metrics: {', '.join(sorted(METRICS))}")
    return METRICS[key], {}


def get_metric(name: str) -> Metric:
    """The metric called `name`, its parameter defaults updated by what the name sets (`map@3`: k=3)."""
    metric, params = resolve_metric(name)
    return replace(metric, params={**metric.params, **params}) if params else metric
