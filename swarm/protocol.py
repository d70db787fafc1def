"""The contract between prompts, generated solutions and the system that reads them.

A solution's code is split into seven gene sections, each opened by a marker line `# [SECTION: NAME]`.
Models spell markers loosely (`# [SECTION:DATA]`, `## SECTION: MODEL`, `# [Section: loss]`): for the seven
known sections `canonical_markers` rewrites any such spelling to the canonical form.
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
# Any spelling: one or more #, optional brackets, any case, optional colon or dash, spaces or _ or - in names.
LOOSE_MARKER_RE = re.compile(
    r"^(?P<indent>[ \t]*)#+[ \t]*[\[(]?[ \t]*SECTION[ \t]*[:\-]?[ \t]*(?P<name>[A-Za-z][A-Za-z_ \-]*?)"
    r"[ \t]*[\])]?[ \t]*:?[ \t]*$",
    re.MULTILINE | re.IGNORECASE,
)

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


def canonical_section(name: str) -> str | None:
    """The known gene section a loosely spelled name means (`training tricks` -> TRAINING_TRICKS), or None."""
    key = re.sub(r"[ \t\-]+", "_", name.strip()).upper()
    return key if key in GENE_SECTIONS else None


def canonical_markers(code: str) -> str:
    """`code` with every loosely spelled marker of a known section rewritten to `# [SECTION: NAME]`."""

    def rewrite(match: re.Match[str]) -> str:
        name = canonical_section(match["name"])
        return match["indent"] + section_marker(name) if name else match[0]

    return LOOSE_MARKER_RE.sub(rewrite, code)


def count_markers(code: str) -> int:
    """How many distinct known gene sections `code` marks, however it spells the markers."""
    return len({canonical_section(m["name"]) for m in LOOSE_MARKER_RE.finditer(code)} - {None})


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
