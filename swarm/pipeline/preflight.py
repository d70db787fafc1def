"""Everything a run needs checked before it writes anything, calls a model or executes code.

`check_request` loads the config of a new run or of the run to resume and checks it: the config itself
(types, unknown fields; the names it gives the metric library and the harness: `check_named_settings`), the run
dir (a new run's must not hold one; a resumed one must), the competition (its
dir, sample submission, train and test files), and each LLM stage (its key, and that its endpoint serves its
model). Each problem raises an error whose message is one sentence naming what is wrong; nothing is written,
so an existing run dir stays as it was. Some things only warrant a warning, logged before the first step: host
files a solution could read (`warn_exposure`), and a stage whose model's context is too small for its prompt
at its smallest and its reply (`warn_context`).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from sandbox import make_sandbox
from sandbox.exposure import exposure_warnings
from swarm.agents.fitted_prompts import smallest_code_prompt, smallest_evolution_prompt
from swarm.agents.prompting import PromptBuilder
from swarm.competitions import Competition, CompetitionError
from swarm.competitions.competition import folder_listing
from swarm.competitions.metrics import get_metric
from swarm.competitions.public_files import check_public_files
from swarm.competitions.task_description import task_description
from swarm.config import Config, ConfigError, load_config
from swarm.evaluation.split import check_split
from swarm.evaluation.table_io import first_not_utf8
from swarm.llm.context_window import STAGES, find_context_limits
from swarm.llm.factory import resolve_provider
from swarm.llm.preflight import check_models
from swarm.llm.prompt_fit import shortfall
from swarm.offline_coder.task import infer_task_from_dir, missing_tables
from swarm.pipeline.context import resolve_competition
from swarm.pipeline.review import smallest_review_tokens
from swarm.pipeline.state import RunPaths, load_state

log = logging.getLogger(__name__)


def check_named_settings(cfg: Config) -> None:
    """ConfigError naming the field where the config names a metric the library does not know (`data.metric`)
    or a split the harness does not make (`evaluation.split`). Checked here, not by the config's own
    validators: the config sits below the metric library and the harness, and imports neither."""
    problems = []
    if cfg.data.metric is not None:
        try:
            get_metric(cfg.data.metric)  # the library's own check and message
        except (CompetitionError, ValueError) as exc:
            problems.append(f"data.metric: {exc}")
    try:
        check_split(cfg.evaluation.split)
    except ValueError as exc:
        problems.append(f"evaluation.split: {exc}")
    if problems:
        raise ConfigError("invalid configuration: " + "; ".join(problems))


def warn_exposure(cfg: Config, competition: Competition) -> list[str]:
    """Log (and return) a warning for each host file a solution could read: a `.env` or the competition's
    private answers readable by other users, and solutions run unconfined (execution.sandbox=unsafe-local)."""
    stages = (cfg.llm.code, cfg.llm.feedback, cfg.llm.evolution)
    env_files = [Path(".env"), *filter(None, (getattr(stage, "_env_file", None) for stage in stages))]
    private = None if competition.public_only else competition.private_dir
    warnings = exposure_warnings(env_files, private)
    if cfg.execution.sandbox == "unsafe-local":
        warnings.append(
            "execution.sandbox=unsafe-local: solutions run with your own rights, NOT isolated (they can read "
            "your files and keys and reach your network)."
        )
    for line in warnings:
        log.warning(line)
    return warnings


def warn_context(cfg: Config, competition: Competition) -> list[str]:
    """Log (and return) one sentence per stage whose prompt, even at its smallest, and reply do not fit its
    model's context (stages whose context is not known are not checked: their prompts are not fitted)."""
    windows = find_context_limits(cfg.llm)
    builder = PromptBuilder()
    task = competition.description
    warnings = []
    for stage in STAGES:
        window = windows[stage]
        if window.tokens is None:
            continue
        if stage == "code":
            task_type, tokens = smallest_code_prompt(builder, task)
            what = f"the code prompt (of a {task_type} step)"
        elif stage == "feedback":
            what, tokens = "the review prompt", smallest_review_tokens(task)
        else:
            what, tokens = "the evolution prompt", smallest_evolution_prompt(builder, task)
        reply = getattr(cfg.llm, stage).max_tokens
        line = shortfall(stage, what, tokens, reply, window.tokens, window.source)
        if line is not None:
            warnings.append(line)
            log.warning(line)
    return warnings


def check_offline_coder_inputs(cfg: Config, competition: Competition) -> None:
    """The built-in offline coder reads labelled examples (train.csv, train_labels.csv, labels.csv, train.json
    records, training files labelled by their names or folders, target images, label sets in text lines, or COCO-style JSON labels), the
    sample submission and the test table
    where there is one; where the code stage is offline and those are not there, or it cannot tell the id and
    the targets from them, stop before the first step with one sentence naming the competition's files and
    what is missing or unreadable (else every step fails alike)."""
    if resolve_provider(cfg.llm.code) != "offline":
        return
    public = competition.public_dir
    missing = missing_tables(str(public))
    if missing:
        problem = f"{public} has no {' and no '.join(missing)} (it holds {folder_listing(public)})"
    else:
        try:  # the tables are there: can it tell the id, the targets and their kind from them?
            infer_task_from_dir(str(public))  # as the coder will, on the same rows
            return
        except UnicodeDecodeError:
            tables = sorted(
                p for p in public.iterdir() if p.suffix.lower() in (".csv", ".txt", ".json", ".jsonl")
            )
            where = first_not_utf8(tables) or f"one of {public}'s tables is not UTF-8 text"
            problem = f"{where}, and it reads tables as UTF-8: save them as UTF-8"
        except (ValueError, OSError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            problem = f"it cannot read {public}'s tables: {' '.join(str(exc).split())}"
    raise CompetitionError(
        f"competition {competition.id!r}: the built-in offline coder (the code stage is offline: no API key is "
        f"set) reads a labelled table and the sample submission, and {problem}; set OPENAI_API_KEY or "
        "ANTHROPIC_API_KEY (or llm.code.base_url) so that a model writes solutions for this layout"
    )


def check_run_inputs(cfg: Config) -> Competition:
    """The competition the config names, after checking it and the LLM stages; raises on the first problem."""
    check_named_settings(cfg)
    competition = resolve_competition(cfg)
    warn_exposure(cfg, competition)
    if cfg.data.check_inputs:
        try:
            check_public_files(competition)
        except CompetitionError as exc:
            raise CompetitionError(f"{exc} (data.check_inputs=false skips this check)") from None
    task_description(competition, cfg.data.obfuscate)  # data.obfuscate: the version without its name exists
    check_offline_coder_inputs(cfg, competition)
    make_sandbox(
        cfg.execution, cfg.search.parallel
    )  # SandboxUnavailable, in one sentence, when no backend can confine solutions
    check_models(cfg.llm)
    warn_context(cfg, competition)
    return competition


def new_run_config(
    config_path: str | Path | None, overrides: list[str], run_dir: str | Path | None = None
) -> Config:
    """The checked config of a new run (to be created in `run_dir`, default under `project.runs_dir`)."""
    cfg = load_config(config_path, overrides)
    target = Path(run_dir) if run_dir else None
    if target is None and cfg.project.run_name:
        target = cfg.project.runs_dir / cfg.project.run_name
    if target is not None and RunPaths(target).state.exists():
        raise FileExistsError(f"{target} already holds a run; resume it with --resume {target}")
    check_run_inputs(cfg)
    return cfg


def resumed_run_config(run_dir: str | Path, overrides: list[str]) -> Config:
    """The checked config of the run in `run_dir` with `overrides` applied (nothing is saved here)."""
    paths = RunPaths(Path(run_dir))
    load_state(paths)  # a run dir, or FileNotFoundError naming what is missing
    cfg = load_config(paths.config, overrides, env_file=None).use_env_file(".env")
    check_run_inputs(cfg)
    return cfg


def run_overrides(overrides: list[str], competition: str | None, data_dir: str | None) -> list[str]:
    """`overrides` with the competition of a new run appended (as `data.competition` / `data.data_dir`)."""
    extra = [f"data.competition={competition}"] if competition else []
    if data_dir:
        extra.append(f"data.data_dir={data_dir}")
    return [*overrides, *extra]


def check_request(
    *,
    competition: str | None = None,
    data_dir: str | None = None,
    config_path: str | Path | None = None,
    overrides: list[str] | None = None,
    run_dir: str | Path | None = None,
    resume: bool = False,
) -> Config:
    """The checked config of a run request (a new run, or `resume` of `run_dir`); writes nothing."""
    if resume:
        if not run_dir:
            raise ValueError("resume needs the run dir to continue")
        return resumed_run_config(run_dir, list(overrides or []))
    return new_run_config(config_path, run_overrides(list(overrides or []), competition, data_dir), run_dir)
