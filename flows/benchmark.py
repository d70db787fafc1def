"""The benchmark flow: one competition run per competition, one after another, and a summary table artifact.

    prefect deployment run 'benchmark/weekly-benchmark'            # through a server and a worker
    python flows/benchmark.py titanic house-prices --steps 4       # in-process, on Prefect's ephemeral API
    swarm benchmark titanic house-prices --steps 4                 # the same, through the console script

A competition whose run fails is reported in the table (status `failed` and the reason); the others still run.
The benchmark's own run is Failed when any competition failed (`fail_on_error`), so a scheduled run shows it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from prefect import flow
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.states import Failed, State
from pydantic import BaseModel, Field

from flows.competition import CompetitionParams, competition_flow
from swarm.competitions import list_bundled
from swarm.metric import ValidationSource

SUMMARY_KEY = "benchmark-summary"
ENGINE_PREFIX = "Flow run encountered an exception: "  # what Prefect puts before a failed run's exception
BUNDLED = ("titanic", "house-prices", "telco-churn")


class BenchmarkParams(BaseModel):
    """Parameters of a benchmark (the Prefect UI shows them as a form)."""

    competitions: list[str] = Field(
        default_factory=lambda: list(BUNDLED),
        min_length=1,
        description="Bundled competition ids or MLE-bench prepared competition dirs, run one after another.",
    )
    overrides: list[str] = Field(
        default_factory=list, description="Config overrides for every run: section.field=value."
    )
    config_path: str | None = Field(None, description="A YAML config file for every run.")
    max_steps: int | None = Field(
        6, ge=1, description="Step budget per competition (agent.max_steps); empty keeps the config's."
    )
    time_limit_s: float | None = Field(
        None, gt=0, description="Time budget per competition in seconds (agent.time_limit_s)."
    )
    fail_on_error: bool = Field(
        True, description="Mark the benchmark run Failed when any competition failed (after running all)."
    )


def competition_params(target: str, params: BenchmarkParams) -> CompetitionParams:
    """The competition run for one entry: a bundled id, else a prepared competition dir."""
    overrides = list(params.overrides)
    if params.max_steps is not None:
        overrides.append(f"agent.max_steps={params.max_steps}")
    if params.time_limit_s is not None:
        overrides.append(f"agent.time_limit_s={params.time_limit_s}")
    bundled = target in list_bundled()
    return CompetitionParams(
        competition=target if bundled else None,
        data_dir=None if bundled else target,
        config_path=params.config_path,
        overrides=overrides,
    )


def summary_row(target: str, state: State, elapsed_s: float) -> dict[str, Any]:
    """One table row from a finished competition run (completed or failed)."""
    row: dict[str, Any] = {
        "competition": target,
        "status": "completed" if state.is_completed() else state.type.value.lower(),
        "score": None,
        "medal": None,
        "gold": None,
        "silver": None,
        "bronze": None,
        "median": None,
        "steps": None,
        "minutes": round(elapsed_s / 60, 2),
        "validation": None,
        "note": "",
        "run_dir": None,
    }
    if not state.is_completed():
        row["note"] = _one_line((state.message or "no message").removeprefix(ENGINE_PREFIX))
        return row
    summary: dict[str, Any] = state.result(raise_on_failure=False) or {}
    grade = summary.get("grade") or {}
    row.update(
        competition=summary.get("competition") or target,
        steps=summary.get("steps"),
        run_dir=summary.get("run_dir"),
        score=grade.get("score"),
        medal=(grade.get("medal") or "none") if grade else None,
        gold=grade.get("gold_threshold"),
        silver=grade.get("silver_threshold"),
        bronze=grade.get("bronze_threshold"),
        median=grade.get("median_threshold"),
        validation=_validation(summary),
    )
    if not grade:
        row["note"] = _one_line(summary.get("grade_error") or "no valid solution to grade")
    elif not grade.get("valid"):
        row["note"] = _one_line(f"invalid submission: {grade.get('reason')}")
    elif summary.get("stopped_reason"):
        row["note"] = summary["stopped_reason"]
    return row


def _validation(summary: dict[str, Any]) -> str:
    """`harness`, or `unverified: <why no harness split>` (the solutions' own scores ranked them)."""
    if summary.get("validation_source") == ValidationSource.HARNESS:
        return str(ValidationSource.HARNESS)
    return f"unverified: {_one_line(summary.get('unverified_reason') or 'no harness split')}"


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def summary_markdown(rows: list[dict[str, Any]]) -> str:
    """A short account of the table: how many ran, medals, failures."""
    done = [r for r in rows if r["status"] == "completed"]
    medals = [r["medal"] for r in done if r["medal"] not in (None, "none")]
    lines = [
        "# Benchmark",
        f"- competitions: {len(rows)} ({len(done)} completed, {len(rows) - len(done)} failed)",
        f"- medals: {len(medals)}" + (f" ({', '.join(medals)})" if medals else ""),
        f"- validated by the harness: {sum(r['validation'] == 'harness' for r in done)} of {len(done)} completed",
    ]
    lines += [
        f"- **{r['competition']}** {r['validation']}"
        for r in done
        if r["validation"] and r["validation"] != ValidationSource.HARNESS
    ]
    lines += [f"- **{r['competition']}** failed: {r['note']}" for r in rows if r["status"] != "completed"]
    return "\n".join(lines)


@flow(name="benchmark", log_prints=True)
def benchmark_flow(params: BenchmarkParams) -> list[dict[str, Any]] | State:
    """Run `competition_flow` once per competition (as subflows, in order) and publish the summary table."""
    rows: list[dict[str, Any]] = []
    for target in params.competitions:
        name = Path(target).name if target not in list_bundled() else target
        started = time.monotonic()
        run = competition_flow.with_options(flow_run_name=f"benchmark-{name}")
        state = run(competition_params(target, params), return_state=True)
        row = summary_row(target, state, time.monotonic() - started)
        print(f"{target}: {row['status']} score={row['score']} medal={row['medal']} {row['note']}")
        rows.append(row)
    create_table_artifact(
        rows,
        key=SUMMARY_KEY,
        description="Benchmark: score on the hidden answers, medal and thresholds per competition",
    )
    create_markdown_artifact(summary_markdown(rows), key=f"{SUMMARY_KEY}-text")
    failed = [r["competition"] for r in rows if r["status"] != "completed"]
    if failed and params.fail_on_error:
        return Failed(
            message=f"{len(failed)} of {len(rows)} competitions failed: {', '.join(failed)}", data=rows
        )
    return rows


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run a benchmark in this process (ephemeral Prefect API unless PREFECT_API_URL is set); `prog` names the
    command in usage and errors (`swarm benchmark`)."""
    import argparse
    import json

    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("competitions", nargs="*", default=list(BUNDLED), help="ids or prepared dirs")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="SECTION.FIELD=VALUE")
    parser.add_argument("--steps", type=int, default=6, help="step budget per competition")
    parser.add_argument("--time-limit", type=float, help="time budget per competition, seconds")
    args = parser.parse_args(argv)
    params = BenchmarkParams(
        competitions=args.competitions,
        overrides=args.overrides,
        max_steps=args.steps,
        time_limit_s=args.time_limit,
        fail_on_error=False,
    )
    rows = benchmark_flow(params)
    print(json.dumps(rows, indent=2, default=str))
    return 0 if all(r["status"] == "completed" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
