"""Answers to forced tool calls: the execution review, and sensible values for any other schema."""

from __future__ import annotations

import re
import types
import typing
from typing import Any

from pydantic import BaseModel, ValidationError

from swarm.llm.base import LLMError
from swarm.protocol import parse_metric_line

_ERROR_RE = re.compile(r"Traceback \(most recent call last\)|^\w*(Error|Exception):", re.MULTILINE)


def review_facts(hints: dict[str, Any]) -> dict[str, Any]:
    """The review of one execution from hints `output` (or `term_out`), `has_submission`, `exit_code`,
    `timed_out` and `submission_problem` (why the submission file is invalid, if it is)."""
    output = str(hints.get("output") or hints.get("term_out") or "")
    metric = parse_metric_line(output)
    has_submission = bool(hints.get("has_submission", metric is not None))
    exit_code = hints.get("exit_code")
    failed = _ERROR_RE.search(output) is not None or bool(hints.get("timed_out"))
    failed = failed or (exit_code not in (None, 0))
    invalid = str(hints.get("submission_problem") or "") if has_submission else ""
    is_bug = failed or metric is None or not has_submission or bool(invalid)
    if metric is not None and not is_bug:
        summary = f"Ran cleanly; validation {metric.name} = {metric.value:.6g}; wrote a submission."
    else:
        problems = []
        if hints.get("timed_out"):
            problems.append("the run timed out")
        if failed and not hints.get("timed_out"):
            last = [ln.strip() for ln in output.strip().splitlines() if ln.strip()]
            problems.append(f"it failed: {last[-1][:200] if last else 'no output'}")
        if metric is None:
            problems.append("no SWARM_METRIC line was printed")
        if not has_submission:
            problems.append("no submission/submission.csv was written")
        if invalid:
            problems.append(f"the submission is invalid: {invalid[:300]}")
        summary = "Bug: " + "; ".join(problems) + "."
    return {
        "is_bug": is_bug,
        "has_csv_submission": has_submission,
        "summary": summary,
        "metric": None if is_bug or metric is None else metric.value,
        "lower_is_better": bool(metric.lower_is_better) if metric else False,
        "metric_name": metric.name if metric else None,
    }


def _value_for(annotation: Any, name: str, text: str) -> Any:
    """A plausible value of type `annotation` for a required field without a known answer."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return args[0]
    if origin in (typing.Union, types.UnionType):
        if type(None) in args:
            return None
        return _value_for(args[0], name, text)
    if origin in (list, tuple, set, frozenset) or annotation in (list, tuple, set):
        return []
    if origin is dict or annotation is dict:
        return {}
    if annotation is bool:
        return False
    if annotation is int:
        return 0
    if annotation is float:
        return 0.0
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return fill_schema(annotation, {}, text)
    return text or f"{name} (offline coder)"


def fill_schema(schema: type[BaseModel], known: dict[str, Any], text: str = "") -> dict[str, Any]:
    """Arguments for `schema`: known values by field name, defaults, else a value of the field's type."""
    data: dict[str, Any] = {}
    for name, field in schema.model_fields.items():
        if name in known:
            data[name] = known[name]
        elif not field.is_required():
            continue
        else:
            data[name] = _value_for(field.annotation, name, text)
    try:
        return schema.model_validate(data).model_dump(mode="json")
    except ValidationError as exc:
        raise LLMError(f"offline coder could not fill tool schema {schema.__name__}: {exc}") from exc
