"""Create or open a run dir and hold everything its steps need (`RunContext`).

`create_run` lays out a new run dir from a config; `open_run` rebuilds the context from a run dir alone (its
saved `config.yaml`), so a resumed run, a rerun, or a task in another process sees the same run.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sandbox import Workspace, make_sandbox
from swarm.agents.dispatcher import Dispatcher
from swarm.agents.experience import ExperiencePool
from swarm.agents.fitted_prompts import fit_code_prompt
from swarm.agents.prompting import ParentView, PromptBuilder
from swarm.agents.store import REPO_ROOT, AgentStore
from swarm.atomic import read_json, write_json_atomic, write_text_atomic
from swarm.competitions import Competition, load_competition
from swarm.competitions.bundled import SPECS
from swarm.competitions.task_description import task_description
from swarm.config import Config, load_config
from swarm.evaluation.harness import Harness
from swarm.evaluation.holdout_record import harness_root
from swarm.evaluation.metric_choice import (
    SOURCE_COMPETITION_JSON,
    MetricChoice,
    MetricUnknown,
    resolve_metric,
    scored_by_choice,
)
from swarm.journal import Journal, Node
from swarm.journal.memory import memory_summary
from swarm.llm.base import LLMClient, Message
from swarm.llm.context_window import ContextWindow, find_context_limits
from swarm.llm.endpoint_facts import restore_endpoint_facts, save_endpoint_facts
from swarm.llm.exchanges import ExchangeLog
from swarm.llm.factory import make_client
from swarm.llm.prompt_fit import prompt_room as room_beside_reply
from swarm.llm.provider import ProviderClient
from swarm.llm.usage import UsageLedger
from swarm.offline_coder import OfflineClient
from swarm.pipeline.evaluation_setup import EvaluationSetup, load_evaluation, prepare_evaluation
from swarm.pipeline.gpu_probe import describe_facts, run_gpu_facts
from swarm.pipeline.metric_model import metric_reader
from swarm.pipeline.state import (
    RunPaths,
    RunState,
    StepPlan,
    load_journal,
    load_state,
    migrate_journal,
    save_state,
)
from swarm.preview.data import preview

log = logging.getLogger(__name__)

STAGES = ("code", "feedback", "evolution")
STEP_LIMIT = "step limit reached"  # the one limit that leaves time and money for the end of the run


def new_run_id(competition: str) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return f"{competition}-{stamp}-{uuid.uuid4().hex[:6]}"


def resolve_competition(cfg: Config, metric: MetricChoice | None = None) -> Competition:
    """The competition the config names: a data dir if given, else a bundled id; scored by `metric` when it
    was chosen over competition.json (data.metric, or inferred from the description)."""
    target = cfg.data.data_dir or cfg.data.competition
    if target is None:
        raise ValueError("no competition: set data.competition (a bundled id) or data.data_dir")
    competition = load_competition(target, cfg.project.cache_dir, metric=cfg.data.metric)
    return scored_by_choice(competition, metric) if metric is not None else competition


def choose_metric(
    cfg: Config, competition: Competition, run_id: str | None = None, ledger: UsageLedger | None = None
) -> MetricChoice:
    """The run's metric: data.metric > competition.json > inferred from description.md by the code model (the
    offline coder's rules when offline); MetricUnknown when nothing names it. A model call is charged to
    `ledger` (the run's: its usage file and spend cap), else kept in memory."""
    ledger = ledger if ledger is not None else UsageLedger(None)
    client = make_client(cfg.llm.code, cfg.llm.prices, ledger, lambda _: OfflineClient(seed=cfg.project.seed))
    bundled = not cfg.data.data_dir and competition.id in SPECS
    return resolve_metric(
        competition, override=cfg.data.metric, model=metric_reader(client, run_id), bundled=bundled
    )


def create_run(cfg: Config, run_dir: Path | None = None, metric: MetricChoice | None = None) -> RunPaths:
    """Lay out a new run dir: config, state, agent config copies, the metric and the harness split, and the
    workspace with the public inputs (the harness's, when it holds rows out)."""
    competition = resolve_competition(cfg)
    run_id = cfg.project.run_name or new_run_id(competition.id)
    paths = RunPaths(Path(run_dir) if run_dir else cfg.project.runs_dir / run_id)
    if paths.state.exists():
        raise FileExistsError(f"{paths.root} already holds a run; resume it with --resume {paths.root}")
    if metric is None:  # a model's metric call is the run's first spend: in its usage file, under its cap
        made = not paths.root.exists()
        ledger = UsageLedger(paths.usage, spend_cap_usd=cfg.llm.spend_cap_usd)
        try:
            metric = choose_metric(cfg, competition, run_id, ledger)
        except BaseException:
            if (
                made
                and ledger.total_cost_usd == 0
                and {p.name for p in paths.root.iterdir()} <= {paths.usage.name}
            ):
                shutil.rmtree(paths.root)  # nothing was spent (the offline coder's rules): no run dir is left
            raise
    competition = scored_by_choice(competition, metric)
    paths.root.mkdir(parents=True, exist_ok=True)
    saved = cfg.model_copy(deep=True)
    saved.data.data_dir = competition.root if cfg.data.data_dir else None
    write_text_atomic(paths.config, saved.to_yaml())
    AgentStore.seed_run(paths.root)
    evaluation = cfg.evaluation
    setup = prepare_evaluation(
        paths.root,
        competition,
        metric,
        holdout_fraction=evaluation.holdout_fraction,
        split=evaluation.split,
        seed=cfg.project.seed,
        max_train_mb=evaluation.max_train_mb,
        labels_table=evaluation.labels_table,
    )
    Workspace(paths.workspace, setup.holdout.public_dir if setup.holdout else competition.public_dir)
    Journal().save(paths.journal)
    save_state(paths, RunState(run_id=run_id, competition=competition.id))
    return paths


def legacy_evaluation(competition: Competition) -> EvaluationSetup:
    """The setup of a run made before runs saved one: the competition's metric, the solutions' own scores."""
    spec = competition.metric
    if spec is None:
        raise MetricUnknown(f"the run of {competition.id!r} saved no metric and its competition names none")
    metric = MetricChoice(
        spec.name, spec.lower_is_better, SOURCE_COMPETITION_JSON, "saved before runs chose one", {}
    )
    return EvaluationSetup(metric, None, "the run was made before the harness split existed")


class RunContext:
    """Everything the steps of one run need, built once per process from the run dir."""

    def __init__(self, paths: RunPaths, cfg: Config, state: RunState) -> None:
        self.paths = paths
        self.cfg = cfg
        self.run_id = state.run_id
        self.started_monotonic = time.monotonic()
        self.evaluation = load_evaluation(paths.root)
        self.competition = resolve_competition(cfg, self.evaluation.metric if self.evaluation else None)
        if self.evaluation is None:
            self.evaluation = legacy_evaluation(self.competition)
        holdout = self.evaluation.holdout
        spec = self.competition.metric
        self.harness = (
            Harness(holdout, spec, self.competition.sample_submission) if holdout and spec else None
        )
        self.task_desc = task_description(self.competition, cfg.data.obfuscate)
        self.workspace = Workspace(
            paths.workspace, holdout.public_dir if holdout else self.competition.public_dir
        )
        self.data_preview = preview(self.workspace.input_dir)
        self.sandbox = make_sandbox(cfg.execution, cfg.search.parallel)
        self.packages = self.sandbox.packages()  # what solutions can import, told in every prompt
        self.ledger = UsageLedger(paths.usage, spend_cap_usd=cfg.llm.spend_cap_usd)
        # each stage's context length and where it came from: prompts are fitted to it, replies capped by it
        self.context_windows: dict[str, ContextWindow] = find_context_limits(cfg.llm)
        for stage in STAGES:
            log.info(self.context_windows[stage].describe(stage))
        self.exchanges = ExchangeLog(paths.root)  # every model exchange, per node (exchanges/<node>.jsonl)
        self.clients: dict[str, LLMClient] = {
            stage: make_client(
                getattr(cfg.llm, stage),
                cfg.llm.prices,
                self.ledger,
                self._offline,
                context_tokens=self.context_limits[stage],
                exchanges=self.exchanges,
            )
            for stage in STAGES
        }
        self._learn_endpoints()
        self.agents = AgentStore(paths.root)
        self.agent_ids = self.agents.agent_ids()[: cfg.evolution.num_agents]
        self.dispatcher = load_dispatcher(paths.dispatcher, self.agent_ids, cfg)
        self.prompts = self._prompt_builder(paths.root)
        self.prompt_assets_hash = self.prompts.assets_hash()
        self.pool = ExperiencePool(paths.experience, max_records=cfg.evolution.experience_max_records)
        self.lower_is_better = self.evaluation.metric.lower_is_better
        self.sandbox_kind = type(self.sandbox).__name__
        write_json_atomic(paths.root / "sandbox.json", self.sandbox_record())
        self._data_hash: str | None = None

    @property
    def data_hash(self) -> str:
        """A hash of the public input files by name, size and modification time, computed once (reading the
        contents of a large MLE-bench dataset would cost minutes of the run's time)."""
        if self._data_hash is None:
            digest = hashlib.sha256()
            root = self.workspace.input_dir.resolve()
            for path in sorted(p for p in root.rglob("*") if p.is_file()):
                stat = path.stat()
                digest.update(f"{path.relative_to(root)}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
            self._data_hash = digest.hexdigest()
        return self._data_hash

    @property
    def context_limits(self) -> dict[str, int | None]:
        """Each stage's context length in tokens (None: not known, or the offline coder's: no limit)."""
        return {stage: window.tokens for stage, window in self.context_windows.items()}

    def prompt_room(self, stage: str) -> int | None:
        """Tokens a prompt to `stage` may take beside its reply (`max_tokens`); None where the context is not
        known (the prompt is then not fitted)."""
        return room_beside_reply(self.context_limits[stage], getattr(self.cfg.llm, stage).max_tokens)

    @staticmethod
    def _prompt_builder(root: Path) -> PromptBuilder:
        """The run's own copies of the templates and skills (the repo's for runs made before they existed)."""
        templates, skills = root / "prompts", root / "skills"
        return PromptBuilder(
            templates_dir=templates if templates.is_dir() else REPO_ROOT / "prompts",
            skills_dir=skills if (skills / "meta" / "index.json").is_file() else REPO_ROOT / "skills",
        )

    def _learn_endpoints(self) -> None:
        """Give the clients what an earlier process of this run learned of their endpoints (a resumed run
        does not probe again), and have them save what they learn from now on."""
        restored = restore_endpoint_facts(self.paths.llm_endpoints, self.clients)
        if restored:
            log.info("LLM endpoint facts restored for %s", ", ".join(restored))
        for client in self.clients.values():
            if isinstance(client, ProviderClient):
                client.on_learned = self.save_endpoint_facts

    def save_endpoint_facts(self) -> None:
        """Write what the clients learned of their endpoints (`llm_endpoints.json`) when it changed."""
        save_endpoint_facts(self.paths.llm_endpoints, self.clients)

    def _offline(self, stage_cfg: Any) -> LLMClient:
        return OfflineClient(seed=self.cfg.project.seed)

    def sandbox_record(self) -> dict[str, Any]:
        """How this run confines solutions (saved as sandbox.json, shown in the report and the summary)."""
        sandbox = self.sandbox
        return {
            "name": sandbox.name,
            "isolated": sandbox.isolated,
            "description": sandbox.description,
            **sandbox.resources(),
        }

    def harness_submission(self, node_id: str) -> Path:
        """Where the harness keeps a node's test submission (outside every sandbox's reach)."""
        return harness_root(self.paths.root) / "submissions" / f"{node_id}.csv"

    def harness_heldout(self, node_id: str) -> Path:
        """Where the harness keeps a node's scored predictions for the held-out rows (private, like labels)."""
        return harness_root(self.paths.root) / "heldout" / f"{node_id}.csv"

    # -- prompts ----------------------------------------------------------------------------------------

    def parent_view(self, node: Node) -> ParentView:
        return ParentView(
            code=node.code,
            output=node.term_out_for_prompt(),
            is_buggy=bool(node.is_buggy),
            bug_reason=node.bug_reason or "",
            metric=node.metric.value if node.metric else None,
            lower_is_better=node.lower_is_better,
            node_id=node.id,
            summary=node.analysis or "",
        )

    def build_prompt(
        self, plan: StepPlan, parents: list[Node], journal: Journal
    ) -> tuple[list[Message], dict[str, Any], dict[str, str]]:
        """The messages for a step, the offline coder's hints, and the agent text versions used."""
        profile = self.agents.current(plan.agent_id)
        views = [self.parent_view(p) for p in parents]
        evolution = self.cfg.evolution
        examples = self.pool.top_k(
            plan.task_type,
            evolution.experience_top_k,
            min_quality=evolution.experience_min_quality,
            lower_is_better=self.lower_is_better,
        )
        execution = self.sandbox.cfg  # the limits each solution has (`auto` resolved for this host)
        kwargs: dict[str, Any] = {
            "task_desc": self.task_desc,
            "memory": memory_summary(journal, max_chars=self.prompts.budget.memory),
            "data_preview": self.data_preview,
            "examples": examples,
            "time_remaining_s": plan.time_remaining_s,
            "steps_remaining": plan.steps_remaining,
            "cpus": execution.cpus,
            "memory_mb": execution.memory_mb,
            "timeout_s": execution.timeout_s,
            "packages": self.packages,
            "harness_scored": self.harness is not None,
        }
        gpus = run_gpu_facts(self)
        if gpus.count:
            kwargs["gpus"] = describe_facts(gpus)
        metric = self.competition.metric
        if metric is not None:
            kwargs.update(metric_name=metric.name, lower_is_better=bool(metric.lower_is_better))
        if plan.task_type == "merge":
            kwargs.update(parents=(views[0], views[1]), crossover_plan=plan.crossover_plan)
        elif plan.task_type == "mutate":
            kwargs.update(parent=views[0], gene=plan.gene)
        elif views:
            kwargs.update(parent=views[0])
        room = self.prompt_room("code")
        if room is None:
            messages = self.prompts.build(plan.task_type, profile, **kwargs)
        else:
            messages = fit_code_prompt(self.prompts, room, plan.task_type, profile, **kwargs).messages
        hints: dict[str, Any] = {"input_dir": str(self.workspace.input_dir), "seed": plan.seed}
        if metric is not None:
            hints["metric"] = metric.name  # the run's metric, for coders that read hints (the offline one)
        if parents:
            hints["parent_code"] = parents[0].code
            hints["parent_output"] = parents[0].term_out
            hints["parent_codes"] = [p.code for p in parents]
        hints.update(gpus.hints())
        if plan.gene:
            hints["gene"] = plan.gene
        if plan.crossover_plan:
            hints["crossover_plan"] = plan.crossover_plan
        return messages, hints, dict(profile.versions)

    # -- persistence ------------------------------------------------------------------------------------

    def limit_reason(self, state: RunState) -> str | None:
        """Why the run must stop now (step, time or spend limit), or None."""
        if state.next_step >= self.cfg.agent.max_steps:
            return STEP_LIMIT
        if self.elapsed_now(state) >= self.cfg.agent.time_limit_s:
            return "time limit reached"
        if self.ledger.cap_reached:
            return "spend cap reached"
        return None

    def elapsed_now(self, state: RunState) -> float:
        return state.elapsed_s + (time.monotonic() - self.started_monotonic)

    def save(self, journal: Journal, state: RunState) -> None:
        """The journal first (its new nodes appended, its changed fields' sidecar replaced), then the
        dispatcher and the state (each replaced atomically), and what the LLM clients learned of their
        endpoints. Also banks the elapsed time. What it writes does not grow with the journal."""
        now = time.monotonic()
        state.elapsed_s += now - self.started_monotonic
        self.started_monotonic = now
        journal.save(self.paths.journal)
        write_json_atomic(self.paths.dispatcher, self.dispatcher.to_dict())
        save_state(self.paths, state)
        self.save_endpoint_facts()

    def pending_path(self, node_id: str) -> Path:
        return self.paths.root / "pending" / f"{node_id}.json"

    def save_pending(self, planned: Any) -> None:
        """Keep a planned step's prompt until its node is recorded, so a resume can replay it."""
        write_json_atomic(self.pending_path(planned.plan.node_id), planned.model_dump())

    def drop_pending(self, node_id: str) -> None:
        self.pending_path(node_id).unlink(missing_ok=True)


def load_dispatcher(path: Path, agent_ids: list[str], cfg: Config) -> Dispatcher:
    """The run's dispatcher (its saved scores; epsilon and learning rate from the config), or a new one."""
    dispatcher = Dispatcher(agent_ids, cfg.evolution.epsilon, cfg.evolution.learning_rate)
    if path.is_file():
        saved = Dispatcher.from_dict(read_json(path))
        dispatcher.scores, dispatcher.counts = saved.scores, saved.counts
    return dispatcher


def open_run(run_dir: Path) -> tuple[RunContext, Journal, RunState]:
    """Rebuild the context, journal and state of an existing run dir (migrating the journal of a run made
    before the append-only one)."""
    paths = RunPaths(Path(run_dir))
    state = load_state(paths)
    cfg = load_config(paths.config, env_file=None).use_env_file(".env")  # .env keys still usable
    migrate_journal(paths)
    journal = load_journal(paths)
    return RunContext(paths, cfg, state), journal, state
