"""The model's reading of description.md: which library metric scores the submissions.

A forced `choose_metric` tool call to the run's code model (the offline coder answers with the rules); its
answer becomes a `MetricChoice` whose direction is the library's. `metric_reader` gives `resolve_metric`
(`swarm.evaluation.metric_choice`) this reading as a plain function, a failed call turned into ValueError, so the
evaluation room needs no LLM client. The call is charged to the client's ledger (the run's usage file and cap).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from swarm.competitions import metrics as metric_lib
from swarm.competitions.metric_wording import K_NEARBY, evaluation_section, k_from, one_line
from swarm.evaluation.metric_choice import (
    SOURCE_MODEL,
    SOURCE_RULES,
    MetricChoice,
    MetricReader,
    describe_direction,
    library_names,
)
from swarm.llm.base import CallContext, LLMClient, LLMError, Message, ToolSpec

TOOL_NAME = "choose_metric"
# How much of description.md the model reads (when it is cut, its Evaluation section is kept).
DESCRIPTION_LIMIT = 12_000

_SYSTEM_PROMPT = """\
You read the description of a Kaggle-style competition and name the metric its submissions are scored with.
Call choose_metric once:
- name: the metric from this library that computes that score (formulas below); prefer the Evaluation section;
- lower_is_better: that metric's direction;
- reason: one line quoting the words of the description that name the metric;
- k: only for map_at_k, the K of MAP@K.

Metric library:
"""


@lru_cache(maxsize=8)
def _tool_for(names: tuple[str, ...]) -> ToolSpec:
    schema: type[BaseModel] = create_model(
        "ChooseMetric",
        name=(Literal[names], Field(description="the library metric that scores the submissions")),  # type: ignore[valid-type]
        lower_is_better=(bool, Field(description="true when a lower score is better")),
        reason=(str, Field(description="one line quoting the words that name the metric")),
        k=(int | None, Field(default=None, ge=1, description="for map_at_k only: K of MAP@K")),
    )
    return ToolSpec(TOOL_NAME, "Name the metric the competition's submissions are scored with.", schema)


def metric_tool() -> ToolSpec:
    """The `choose_metric` tool; its `name` is an enum of the library's names as they are now."""
    return _tool_for(tuple(library_names()))


def _excerpt(description: str, limit: int = DESCRIPTION_LIMIT) -> str:
    if len(description) <= limit:
        return description
    section = (evaluation_section(description) or "")[: limit // 2]
    head = description[: limit - len(section)]
    return f"{head}\n\n[...]\n\n## Evaluation (excerpt)\n{section}" if section else head


def metric_messages(description: str) -> list[Message]:
    """The system prompt (with the library's formulas) and the description, trimmed to a sane length."""
    lines = [
        f"- {name}: {metric.formula} ({describe_direction(metric.lower_is_better)})"
        for name, metric in sorted(metric_lib.METRICS.items())
    ]
    return [
        Message("system", _SYSTEM_PROMPT + "\n".join(lines)),
        Message("user", f"The competition's description.md:\n\n{_excerpt(description or '')}"),
    ]


def infer_metric_with_model(
    client: LLMClient, description: str, ctx_run_id: str | None = None
) -> MetricChoice:
    """The metric the model names for `description` (a forced `choose_metric` call).

    Raises LLMError when the call fails and ValueError when the model names a metric outside the library; a
    direction that disagrees with the library's is replaced by the library's, and the reason says so.
    """
    ctx = CallContext(stage="code", kind="metric", run_id=ctx_run_id, hints={"description": description})
    args = client.call_tool(metric_messages(description), metric_tool(), ctx)
    name = args.get("name")
    if not isinstance(name, str) or name not in metric_lib.METRICS:
        raise ValueError(
            f"the model named metric {name!r}, which is not in the metric library ({', '.join(library_names())})"
        )
    library_lower = metric_lib.METRICS[name].lower_is_better
    reason = one_line(args.get("reason") or "") or f"{client.provider} model {client.model} chose it"
    said = args.get("lower_is_better")
    if said is not library_lower:
        reason += (
            f" (the model said {describe_direction(bool(said)) if isinstance(said, bool) else repr(said)}, but {name} is "
            f"{describe_direction(library_lower)} in the metric library, which is used)"
        )
    params: dict[str, Any] = {}
    if name == "map_at_k":
        k = args.get("k")
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            k = k_from(description or "", K_NEARBY)
        params = {"k": k} if k else {}
    # The offline coder answers with the rules (it is not a model): the source says which chose the metric.
    source = SOURCE_RULES if getattr(client, "provider", None) == "offline" else SOURCE_MODEL
    return MetricChoice(name, library_lower, source, reason, params)


def metric_reader(client: LLMClient | None, run_id: str | None = None) -> MetricReader | None:
    """`infer_metric_with_model` over `client` as `resolve_metric` takes it (a failed call raises ValueError);
    None without a client (the rules read the description)."""
    if client is None:
        return None

    def read(description: str) -> MetricChoice:
        try:
            return infer_metric_with_model(client, description, run_id)
        except LLMError as exc:
            raise ValueError(str(exc)) from exc

    return read
