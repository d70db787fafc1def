"""The contract between prompts, generated solutions and the system that reads them.

A solution's code is split into seven gene sections, each opened by a marker line `# [SECTION: NAME]`.
A solution reports its validation score by printing one machine-readable line:

    SWARM_METRIC {"name": "accuracy", "value": 0.8123, "lower_is_better": false}

The last such line in the output wins.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

GENE_SECTIONS: tuple[str, ...] = (
    "DATA",
    "MODEL",
    "LOSS",
    "OPTIMIZER",
    "REGULARIZATION",
    "INITIALIZATION",
    "TRAINING_TRICKS",
)
SECTION_MARKER = "# [SECTION: {name}]"
SECTION_MARKER_RE = re.compile(r"^[ \t]*#[ \t]*\[SECTION:[ \t]*([A-Z_]+)[ \t]*\][ \t]*$", re.MULTILINE)

METRIC_LINE_PREFIX = "SWARM_METRIC"
_METRIC_LINE_RE = re.compile(r"^[ \t]*" + METRIC_LINE_PREFIX + r"[ \t]+(\{.*\})[ \t]*$", re.MULTILINE)

TASK_TYPES: tuple[str, ...] = ("draft", "improve", "debug", "merge", "mutate")


@dataclass(frozen=True)
class ReportedMetric:
    """The validation metric a solution printed."""

    name: str
    value: float
    lower_is_better: bool


def section_marker(name: str) -> str:
    """The marker line that opens gene section `name`."""
    if name not in GENE_SECTIONS:
        raise ValueError(f"unknown gene section {name!r}; expected one of {', '.join(GENE_SECTIONS)}")
    return SECTION_MARKER.format(name=name)


def metric_line(name: str, value: float, lower_is_better: bool) -> str:
    """The line a solution prints to report its validation metric."""
    payload = {"name": name, "value": float(value), "lower_is_better": bool(lower_is_better)}
    return f"{METRIC_LINE_PREFIX} {json.dumps(payload)}"


def parse_metric_line(output: str) -> ReportedMetric | None:
    """The last well-formed metric line in `output`, or None when there is none."""
    for raw in reversed(_METRIC_LINE_RE.findall(output or "")):
        try:
            data = json.loads(raw)
            value = float(data["value"])
            lower = data["lower_is_better"]
        except (ValueError, KeyError, TypeError):
            continue
        if not isinstance(lower, bool) or not math.isfinite(value):
            continue
        return ReportedMetric(name=str(data.get("name", "metric")), value=value, lower_is_better=lower)
    return None
