"""`swarm competitions list|prepare|grade`: the command-line face of this package."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from swarm.competitions.bundled import SPECS, bundled_dir, is_prepared, list_bundled, prepare_bundled
from swarm.competitions.errors import CompetitionError
from swarm.competitions.grading import GradeReport, grade_submission
from swarm.competitions.leaderboard import read_leaderboard
from swarm.competitions.loader import load_competition
from swarm.competitions.metrics import METRICS, get_metric

EXIT_INVALID_SUBMISSION = 1


def default_cache_dir() -> Path:
    """`project.cache_dir` of the run configuration (env/.env aware)."""
    from swarm.config import ConfigError, load_config

    try:
        return load_config().project.cache_dir
    except ConfigError as exc:
        raise CompetitionError(
            f"cannot read the configuration to find the cache dir ({exc}); pass --cache-dir"
        ) from None


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `competitions` command group to the `swarm` parser."""
    group = subparsers.add_parser("competitions", help="list, prepare and grade competitions")
    commands = group.add_subparsers(
        dest="competitions_command", metavar="{list,prepare,grade}", required=True
    )

    cache_help = "where bundled competitions are prepared (default: project.cache_dir of the config)"
    listing = commands.add_parser("list", help="list the bundled competitions")
    listing.add_argument("--cache-dir", type=Path, help=cache_help)
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=cmd_list)

    prepare = commands.add_parser("prepare", help="prepare a bundled competition in the cache dir")
    prepare.add_argument("competition", metavar="ID", help="a bundled competition id")
    prepare.add_argument("--cache-dir", type=Path, help=cache_help)
    prepare.set_defaults(handler=cmd_prepare)

    grade = commands.add_parser("grade", help="grade a submission CSV")
    grade.add_argument("competition", metavar="ID|DIR", help="a bundled id or an MLE-bench competition dir")
    grade.add_argument("submission", type=Path, help="the submission CSV")
    grade.add_argument(
        "--metric",
        help=f"metric for a dir without competition.json, or overriding it ({', '.join(sorted(METRICS))}; "
        "aliases such as roc_auc, mlogloss, kappa, map@3 work too)",
    )
    grade.add_argument("--cache-dir", type=Path, help=cache_help)
    grade.add_argument("--json", action="store_true", help="print the report as JSON")
    grade.set_defaults(handler=cmd_grade)


def cmd_list(args: argparse.Namespace, console: Console) -> int:
    cache = args.cache_dir or default_cache_dir()
    rows = []
    for competition_id in list_bundled():
        spec = SPECS[competition_id]
        metric = get_metric(spec.metric)
        board = Path(__file__).parent / "leaderboards" / f"{competition_id}.csv"
        rows.append(
            {
                "id": competition_id,
                "title": spec.title,
                "metric": metric.name,
                "lower_is_better": metric.lower_is_better,
                "teams": len(read_leaderboard(board)) if board.is_file() else 0,
                "prepared": is_prepared(bundled_dir(competition_id, cache)),
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    table = Table(title=f"Bundled competitions (cache: {cache})")
    for column in ("id", "title", "metric", "teams", "prepared"):
        table.add_column(column)
    for row in rows:
        arrow = "↓" if row["lower_is_better"] else "↑"
        table.add_row(
            row["id"],
            row["title"],
            f"{row['metric']} {arrow}",
            str(row["teams"]),
            "yes" if row["prepared"] else "no",
        )
    console.print(table)
    return 0


def cmd_prepare(args: argparse.Namespace, console: Console) -> int:
    root = prepare_bundled(args.competition, args.cache_dir or default_cache_dir())
    console.print(str(root), highlight=False, soft_wrap=True)
    return 0


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.6g}"


def render_report(report: GradeReport) -> Table:
    """A two-column rich table of a grade report."""
    table = Table(title=f"Grade: {report.competition_id}", show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    table.add_row("submission", report.submission_path)
    direction = "lower is better" if report.lower_is_better else "higher is better"
    table.add_row("valid", "[green]yes[/]" if report.valid else "[red]no[/]")
    if report.reason:
        table.add_row("reason", report.reason)
    if report.note:
        table.add_row("tolerated", report.note)
    params = ", ".join(f"{k}={v}" for k, v in report.metric_params.items())
    table.add_row("metric", f"{report.metric} ({params + '; ' if params else ''}{direction})")
    table.add_row("score", _fmt(report.score))
    if report.num_teams is not None:
        rank = f"{report.rank} of {report.num_teams + 1}" if report.rank is not None else "-"
        table.add_row("rank", rank)
        table.add_row("gold threshold", _fmt(report.gold_threshold))
        table.add_row("silver threshold", _fmt(report.silver_threshold))
        table.add_row("bronze threshold", _fmt(report.bronze_threshold))
        table.add_row("median", _fmt(report.median_threshold))
        table.add_row("medal", report.medal or "none")
        table.add_row("above median", "yes" if report.above_median else "no")
    else:
        table.add_row("leaderboard", "none: no medal thresholds")
    return table


def cmd_grade(args: argparse.Namespace, console: Console) -> int:
    cache = args.cache_dir or (default_cache_dir() if args.competition in SPECS else Path("."))
    # Grading reads the sample and the answers only: no view with the archives extracted (and none in `.`).
    competition = load_competition(args.competition, cache, metric=args.metric, extract=False)
    report = grade_submission(competition, args.submission)
    if args.json:
        print(json.dumps(report.model_dump(), indent=2))
    else:
        console.print(render_report(report))
    return 0 if report.valid else EXIT_INVALID_SUBMISSION
