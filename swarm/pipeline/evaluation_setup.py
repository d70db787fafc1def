"""How a run is evaluated, decided once before its first step and saved in `<run>/evaluation.json`.

- the metric, its direction and where it came from (`swarm.evaluation.metric_choice.resolve_metric`);
- the harness's validation split (`swarm.layouts.holdout`), or, where none is possible, why not: then the
  run ranks by the metric each solution prints, and every such score is marked "unverified".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from swarm.atomic import read_json, write_json_atomic
from swarm.competitions import Competition
from swarm.evaluation.metric_choice import MetricChoice
from swarm.layouts.holdout import Holdout, NoHoldout, build_holdout, harness_root
from swarm.metric import ValidationSource

EVALUATION_FILE = "evaluation.json"


@dataclass(frozen=True)
class EvaluationSetup:
    """The run's metric and, when there is one, its harness split."""

    metric: MetricChoice
    holdout: Holdout | None
    unverified_reason: str | None = None  # why scores are the solutions' own claims (no harness split)

    @property
    def validation_source(self) -> ValidationSource:
        """`harness` when the harness scores every solution, else `solution` (the printed metric)."""
        return ValidationSource.HARNESS if self.holdout is not None else ValidationSource.SOLUTION

    def lines(self) -> list[str]:
        """What a run prints before its first step."""
        first = self.metric.describe()
        if self.holdout is not None:
            relation = [f"split: {line}" for line in self.holdout.relation]
            return [
                first,
                f"validation: {self.holdout.describe()}",
                f"ids: {self.holdout.describe_ids()}",
                *relation,
            ]
        return [
            first,
            f"validation: UNVERIFIED, no harness split ({self.unverified_reason}); solutions are ranked by the "
            "metric they print themselves",
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric.to_dict(),
            "validation_source": str(self.validation_source),
            "unverified_reason": self.unverified_reason,
            "holdout": self.holdout.describe() if self.holdout else None,
            "ids": self.holdout.describe_ids() if self.holdout else None,
            "relation": self.holdout.relation if self.holdout else [],
        }


def prepare_evaluation(
    run_root: Path,
    competition: Competition,
    metric: MetricChoice,
    *,
    holdout_fraction: float,
    split: str,
    seed: int,
    max_train_mb: float,
    labels_table: str | None = None,
) -> EvaluationSetup:
    """Build the harness split (or find why there can be none) and save the setup in the run dir."""
    holdout: Holdout | None = None
    reason: str | None = None
    try:
        holdout = build_holdout(
            competition,
            harness_root(run_root),
            fraction=holdout_fraction,
            split=split,
            seed=seed,
            max_train_mb=max_train_mb,
            labels_table=labels_table,
        )
    except NoHoldout as exc:
        reason = str(exc)
    setup = EvaluationSetup(metric=metric, holdout=holdout, unverified_reason=reason)
    write_json_atomic(Path(run_root) / EVALUATION_FILE, setup.to_dict())
    return setup


def load_evaluation(run_root: Path) -> EvaluationSetup | None:
    """The saved setup of a run (None for a run made before runs saved one)."""
    path = Path(run_root) / EVALUATION_FILE
    if not path.is_file():
        return None
    data = read_json(path)
    holdout = (
        Holdout.load(harness_root(run_root))
        if data.get("validation_source") == ValidationSource.HARNESS
        else None
    )
    return EvaluationSetup(
        metric=MetricChoice.from_dict(data["metric"]),
        holdout=holdout,
        unverified_reason=data.get("unverified_reason"),
    )
