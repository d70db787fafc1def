"""The steps of a search, as plain functions over a `RunContext`.

    select_parent -> generate -> execute -> review -> update_population

These are the step names of the README; the Prefect tasks in `tasks/` of the same names wrap them one to one,
so they can also be chained without Prefect: `swarm.pipeline.plain` does that (tests, and the
orchestration-overhead benchmark).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import random
import shutil
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from sandbox import ExecutionResult
from sandbox.tree_ops import remove_tree
from sandbox.workspace import NodeDirs, WorkspaceError
from swarm.agents.evolution import EvolutionReport, evolution_due, evolve_agents
from swarm.agents.experience import ExperienceRecord, input_hash
from swarm.atomic import write_json_atomic
from swarm.evaluation.harness import file_sha256
from swarm.evaluation.review import ExecutionFacts, ReviewOutcome, TrustedScore, describe_exception
from swarm.ga.fitness import score_against
from swarm.ga.genes import missing_sections, split_genes
from swarm.ga.population import next_generation, population_fitness
from swarm.journal import Journal, Node, NodeMeta
from swarm.llm.base import CallContext, LLMError, Message, SpendCapReached, thinking_of, was_truncated
from swarm.llm.response import ResponseParseError, parse_response
from swarm.llm.thinking import join_thinking, split_thinking
from swarm.pipeline.best_so_far import keep_best_so_far
from swarm.pipeline.bounded_review import CheckRequest, check_bounded
from swarm.pipeline.context import RunContext
from swarm.pipeline.mcts import record_tree_stats
from swarm.pipeline.policy import choose_next
from swarm.pipeline.progress import PROGRESS
from swarm.pipeline.records import execution_record, review_record
from swarm.pipeline.reference import flag_inconsistent
from swarm.pipeline.review import review_execution
from swarm.pipeline.state import RunState, StepPlan
from swarm.protocol import GENE_SECTIONS, canonical_markers
from swarm.text import trim_middle

log = logging.getLogger(__name__)
STAGE_BY_TASK = {"draft": "code", "improve": "code", "debug": "code", "merge": "code", "mutate": "code"}
HEADLINE_CHARS = 300  # a failed step's state message, one line
OUTPUT_TAIL_CHARS = 3000  # of a failed solution's output, logged under its execute task
REPLAYED_REPLY_CHARS = 2000  # of a codeless reply, replayed when it is asked for again
REPLY_HEAD_CHARS = 500  # of a reply without code, kept in its node's meta


class PlannedStep(BaseModel):
    """A step with the exact prompt it will send; persisted before the model call so a resume replays it."""

    plan: StepPlan
    messages: list[dict[str, str]]
    hints: dict[str, Any] = Field(default_factory=dict)
    agent_versions: dict[str, str] = Field(default_factory=dict)
    prompt_s: float = 0.0  # choosing the step and building its prompt

    def message_objects(self) -> list[Message]:
        return [Message(role=m["role"], content=m["content"]) for m in self.messages]  # type: ignore[arg-type]


class Generation(BaseModel):
    """What the model wrote for a step, parsed."""

    node_id: str
    raw: str
    plan_text: str = ""
    code: str = ""
    parse_error: str | None = None
    truncated: bool = False  # the reply stopped at the code model's token limit
    thinking: str = ""  # the model's thinking trace: for people to read, never code, plan or prompt
    missing_genes: list[str] = Field(default_factory=list)  # gene sections the code does not mark
    reasked: bool = False  # the first reply had no code, so the model was asked once more
    model_s: float = 0.0  # waiting for the model's replies

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickled (a cached generate result, perhaps saved by an older version): the fields it lacks get
        their defaults, so a resumed run reads its old cache."""
        saved = state.setdefault("__dict__", {})
        for name, info in type(self).model_fields.items():
            if name not in saved and not info.is_required():
                saved[name] = info.get_default(call_default_factory=True)
        super().__setstate__(state)


def generation_cache_key(planned: PlannedStep, model: str, provider: str, temperature: float) -> str:
    """The generation cache key: the full prompt and the model that answers it."""
    payload = json.dumps(
        {"messages": planned.messages, "model": model, "provider": provider, "temperature": temperature},
        sort_keys=True,
    )
    return "generate-" + hashlib.sha256(payload.encode()).hexdigest()


def _sha(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def execution_cache_key(rc: RunContext, code: str) -> str:
    """The execution cache key: the code, the input data and the sandbox settings (as resolved on this host)."""
    settings = json.dumps(rc.sandbox.cfg.model_dump(mode="json"), sort_keys=True)
    return "execute-" + _sha(code, rc.data_hash, settings, rc.sandbox_kind)


def review_cache_key(
    rc: RunContext, planned: PlannedStep, generation: Generation, result: ExecutionResult | None
) -> str:
    """The review cache key: the node, its code, what it printed, and the feedback model."""
    output = result.output if result is not None else f"no code: {generation.parse_error}"
    model = rc.cfg.llm.feedback
    return "review-" + _sha(planned.plan.node_id, generation.code, output, model.provider, model.model)


# -- select parent + build prompt -------------------------------------------------------------------------


def select_parent(rc: RunContext, journal: Journal, state: RunState) -> PlannedStep:
    """Decide the next step (the configured policy), pick its agent (the dispatcher), build its prompt."""
    started = time.perf_counter()
    rng = random.Random(f"{rc.cfg.project.seed}-{state.branch}-{state.next_step}")
    elapsed = state.elapsed_s + (time.monotonic() - rc.started_monotonic)
    choice = choose_next(journal, state.pending, rc.cfg, rng, state, rc.lower_is_better, elapsed_s=elapsed)
    if choice.mode:
        log.info("step %d: %s (search mode %s)", state.next_step, choice.task_type, choice.mode)
    busy = [p.agent_id for p in state.pending if p.task_type == choice.task_type]
    agent_id = rc.dispatcher.choose(choice.task_type, rng, busy=busy)
    plan = StepPlan(
        step=state.next_step,
        epoch=state.epochs_done + 1,
        task_type=choice.task_type,
        parent_ids=choice.parent_ids,
        agent_id=agent_id,
        gene=choice.gene,
        crossover_plan=choice.crossover_plan,
        mode=choice.mode,
        time_remaining_s=max(0.0, rc.cfg.agent.time_limit_s - elapsed),
        steps_remaining=max(0, rc.cfg.agent.max_steps - state.next_step),
        seed=rng.randrange(2**31),
    )
    parents = [journal.get(pid) for pid in plan.parent_ids]
    messages, hints, versions = rc.build_prompt(plan, parents, journal)
    state.next_step += 1
    return PlannedStep(
        plan=plan,
        messages=[{"role": m.role, "content": m.content} for m in messages],
        hints=hints,
        agent_versions=versions,
        prompt_s=time.perf_counter() - started,
    )


# -- generate -----------------------------------------------------------------------------------------------


def generate(rc: RunContext, planned: PlannedStep) -> Generation:
    """Ask the code model for a solution and parse the reply. A reply without code is asked again once, with
    why (`reask_text`): one more call costs less than a buggy node and a debug step. When the second reply has
    no code either, that is not an error here: the step records a buggy node saying so."""
    plan = planned.plan
    ctx = CallContext(
        stage="code",
        kind=plan.task_type,  # type: ignore[arg-type]
        run_id=rc.run_id,
        epoch=plan.epoch,
        node_id=plan.node_id,
        agent_id=plan.agent_id,
        hints=dict(planned.hints),
    )
    messages = planned.message_objects()
    started = time.perf_counter()
    first = _ask(rc, messages, ctx, plan.node_id)
    if not first.parse_error:
        return first.model_copy(update={"model_s": time.perf_counter() - started})
    # some APIs refuse an empty turn; a long reply is replayed in part, so the turn fits the model's context
    said = trim_middle(first.raw, REPLAYED_REPLY_CHARS) if first.raw.strip() else "(an empty reply)"
    again = [*messages, Message("assistant", said), Message("user", reask_text(rc, first))]
    log.info("node %s: the reply had no code (%s); asking once more", plan.node_id, first.parse_error)
    try:
        second = _ask(rc, again, ctx, plan.node_id)
    except SpendCapReached:
        raise
    except LLMError as exc:  # the first, codeless reply stands; its node says why it was not replaced
        error = f"{first.parse_error}; asking again failed: {exc}"
        return first.model_copy(
            update={"reasked": True, "parse_error": error, "model_s": time.perf_counter() - started}
        )
    thinking = join_thinking(first.thinking, second.thinking)
    update = {"reasked": True, "thinking": thinking, "model_s": time.perf_counter() - started}
    return second.model_copy(update=update)


def reask_text(rc: RunContext, first: Generation) -> str:
    """The user turn that asks again for a reply that had no code: why, and what to send."""
    cut = (
        f" It was cut off at the token limit (llm.code.max_tokens={rc.cfg.llm.code.max_tokens}): keep the plan "
        "short and the code complete."
        if first.truncated
        else ""
    )
    return (
        f"Your reply had no Python code block: {first.parse_error}.{cut} Reply with the whole solution in one "
        "```python block."
    )


def _ask(rc: RunContext, messages: list[Message], ctx: CallContext, node_id: str) -> Generation:
    """One call of the code model, its reply split into thinking, plan and code (a parse error when none)."""
    reply = rc.clients["code"].complete(messages, ctx)
    raw, tagged = split_thinking(str(reply))  # clients that do not separate traces leave tags in the text
    thinking = join_thinking(thinking_of(reply), tagged)
    common = {"node_id": node_id, "raw": raw, "truncated": was_truncated(reply), "thinking": thinking}
    try:
        parsed = parse_response(raw)
    except ResponseParseError as exc:
        return Generation(**common, parse_error=str(exc))
    # Code with a syntax error still runs, so that its traceback reaches the debug step.
    code = canonical_markers(parsed.code)
    return Generation(**common, plan_text=parsed.plan, code=code, missing_genes=missing_sections(code))


# -- execute ------------------------------------------------------------------------------------------------


GPU_WAIT = "waiting for GPU"


def execute(
    rc: RunContext, plan: StepPlan, generation: Generation, notify: Callable[[str], None] | None = None
) -> ExecutionResult | None:
    """Run the generated code in the sandbox, in the node's own dirs. None when there was no code.

    While its GPUs are busy with other steps the step shows as "waiting for GPU" on the live view, and
    `notify` (the Prefect task's logger) is told when it waits and when it gets them.
    """
    if not generation.code:
        return None
    node_dirs = rc.workspace.node_dirs(plan.node_id)
    clear_outputs(node_dirs)

    def on_gpu_wait(waiting: bool) -> None:
        plan_text = rc.sandbox.gpu_plan.describe()
        line = f"{plan.node_id}: {GPU_WAIT} ({plan_text})" if waiting else f"{plan.node_id}: got its GPUs"
        (PROGRESS.wait(plan.node_id, GPU_WAIT) if waiting else PROGRESS.resume(plan.node_id))
        log.info(line)
        if notify is not None:
            notify(line)

    return rc.sandbox.run(
        generation.code, node_dirs, timeout_s=rc.cfg.execution.timeout_s, on_gpu_wait=on_gpu_wait
    )


def clear_outputs(node_dirs: NodeDirs) -> None:
    """Empty a node's working and submission dirs (left by a run killed mid-execution, or an earlier refit)."""
    for stale in (node_dirs.working, node_dirs.submission):
        for entry in list(stale.iterdir()) if stale.is_dir() else []:
            remove_tree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()


def failure_headline(result: ExecutionResult) -> str:
    """One short line on why a solution failed (the error and the script's line): a failed execute task's state
    message, which the Prefect UI shows on one line."""
    if result.timed_out:
        head = f"timed out after {result.exec_time:.3g} s"
    elif result.oom_killed:
        head = "killed: out of memory"
    elif result.disk_exceeded:
        head = "killed: wrote more than its disk limit"
    elif result.exc_type:
        head = describe_exception(result.exc_type, result.output, result.exc_info).removeprefix("the script ")
    else:
        head = f"exited with status {result.exit_code}"
    line = " ".join(head.split())
    return line if len(line) <= HEADLINE_CHARS else line[: HEADLINE_CHARS - 3] + "..."


def failure_message(result: ExecutionResult) -> str:
    """The headline, then the tail of the solution's output (its traceback) as lines: what the execute task
    logs for a failed solution."""
    return f"{failure_headline(result)}\n{result.output[-OUTPUT_TAIL_CHARS:]}".strip()


def adopt_outputs(rc: RunContext, plan: StepPlan, result: ExecutionResult | None) -> ExecutionResult | None:
    """A cached execution may come from another node with the same code: copy its outputs into this node's
    dirs so every node owns its submission."""
    if result is None or result.submission_path is None:
        return result
    dirs = rc.workspace.node_dirs(plan.node_id)
    source = Path(result.submission_path)
    if source.resolve() == dirs.submission_file.resolve():
        return result
    if source.is_file():
        shutil.copyfile(source, dirs.submission_file)
        return result.model_copy(update={"submission_path": dirs.submission_file})
    return result.model_copy(update={"submission_path": None})


# -- review -------------------------------------------------------------------------------------------------


def review(
    rc: RunContext, plan: StepPlan, generation: Generation, result: ExecutionResult | None
) -> ReviewOutcome:
    """Judge an executed node: the model's review checked against hard facts."""
    outcome = _review(rc, plan, generation, result)
    if generation.truncated and outcome.is_buggy:
        note = (
            "the model's reply was cut off at its token limit "
            f"(llm.code.max_tokens={rc.cfg.llm.code.max_tokens}), so its code may be incomplete"
        )
        outcome = dataclasses.replace(outcome, bug_reason=f"{outcome.bug_reason}; {note}")
    return outcome


def _review(
    rc: RunContext, plan: StepPlan, generation: Generation, result: ExecutionResult | None
) -> ReviewOutcome:
    if result is None:
        return ReviewOutcome(
            is_buggy=True,
            bug_reason=f"the reply had no runnable code: {generation.parse_error}",
            metric=None,
            lower_is_better=rc.lower_is_better,
            summary="no code to run",
        )
    problem, trusted, test_submission = None, None, None
    started = time.perf_counter()
    if result.submission_path is not None:
        request = CheckRequest(
            submission=Path(result.submission_path),
            kept=rc.harness_submission(plan.node_id),  # read once, by fd: later writes cannot change it
            heldout=rc.harness_heldout(plan.node_id),
            sample=rc.competition.sample_submission,
            spec=rc.competition.metric,
            harness=rc.harness,
        )
        evaluation = rc.cfg.evaluation
        checks = check_bounded(request, evaluation.review_timeout_s, evaluation.review_memory_mb)
        problem, test_submission = checks.problem, checks.test_submission
        if rc.harness is not None:
            trusted = TrustedScore(checks.score, rc.lower_is_better, checks.interval)
        if checks.note:
            log.info("node %s: %s", plan.node_id, checks.note)
    harness_s, started = time.perf_counter() - started, time.perf_counter()
    facts = ExecutionFacts(
        result=result, submission_problem=problem, timeout_s=rc.cfg.execution.timeout_s, trusted=trusted
    )
    ctx = CallContext(
        stage="feedback",
        kind="review",
        run_id=rc.run_id,
        epoch=plan.epoch,
        node_id=plan.node_id,
        agent_id=plan.agent_id,
    )
    outcome = review_execution(
        rc.clients["feedback"],
        ctx,
        task_description=rc.task_desc,
        code=generation.code,
        facts=facts,
        max_prompt_tokens=rc.prompt_room("feedback"),
    )
    timings = {"harness": harness_s, "review_model": time.perf_counter() - started}
    outcome = dataclasses.replace(outcome, timings=timings)
    if test_submission is not None:
        outcome = dataclasses.replace(outcome, test_submission=str(test_submission))
        outcome = flag_inconsistent(rc, plan.node_id, outcome)
    return with_competition_direction(outcome, rc.lower_is_better)


def with_competition_direction(outcome: ReviewOutcome, lower_is_better: bool | None) -> ReviewOutcome:
    """The competition's metric direction wins over what a solution printed or a reviewer claimed; a
    disagreement is recorded as a metric conflict."""
    if lower_is_better is None or outcome.lower_is_better == lower_is_better:
        return outcome
    said = "lower" if outcome.lower_is_better else "higher"
    truth = "lower" if lower_is_better else "higher"
    note = f"the review said {said} is better, but the competition's metric is {truth}-is-better"
    conflict = f"{outcome.metric_conflict}; {note}" if outcome.metric_conflict else note
    return dataclasses.replace(outcome, lower_is_better=lower_is_better, metric_conflict=conflict)


# -- epoch boundaries -------------------------------------------------------------------------------------


def end_epoch(rc: RunContext, journal: Journal, state: RunState, epoch: int) -> list[str]:
    """Renew the GA population from this epoch's offspring (once per epoch) and set each member's fitness
    relative to the others; returns the new population."""
    if state.population_epoch < epoch:
        offspring = [n.id for n in journal if n.epoch == epoch]
        evolution = rc.cfg.evolution
        state.population = next_generation(
            journal, state.population, offspring, evolution.population_size, evolution.elite_size
        )
        state.population_epoch = epoch
    for node_id, fitness in population_fitness(journal, state.population, rc.lower_is_better).items():
        journal.get(node_id).fitness = fitness
    return state.population


# -- update population -----------------------------------------------------------------------------------------


@dataclass
class StepOutcome:
    planned: PlannedStep
    generation: Generation
    result: ExecutionResult | None
    outcome: ReviewOutcome
    worker: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")  # who ran the step
    timings: dict[str, float] = field(default_factory=dict)  # seconds by phase (`swarm.pipeline.step_timing`)


def make_node(step: StepOutcome) -> Node:
    """The journal node for a finished step."""
    plan, gen, result, outcome = step.planned.plan, step.generation, step.result, step.outcome
    genes = split_genes(gen.code) if gen.code else {}
    node = Node(
        id=plan.node_id,
        code=gen.code,
        plan=gen.plan_text,
        task_type=plan.task_type,
        parent_ids=tuple(plan.parent_ids),
        genes={k: v for k, v in genes.items() if k in GENE_SECTIONS},
        agent_id=plan.agent_id,
        epoch=plan.epoch,
        execution=execution_record(result),
        review=review_record(outcome),
        meta=NodeMeta(agent_versions=step.planned.agent_versions, plan_step=plan.step, worker=step.worker),
    )
    if step.timings:
        node.meta.timings = {phase: round(seconds, 4) for phase, seconds in step.timings.items()}
    if result is not None:
        node.meta.submission_path = str(result.submission_path) if result.submission_path else None
        if outcome.test_submission:  # the harness's copy of its test rows: what is promoted and graded
            node.meta.solution_submission_path = node.meta.submission_path
            node.meta.submission_path = outcome.test_submission
            node.meta.submission_sha256 = file_sha256(Path(outcome.test_submission))
        node.meta.sandbox = result.backend
    node.meta.validation_source = outcome.validation_source
    node.meta.claimed_metric = outcome.claimed_metric  # a null saved when nothing was printed
    if plan.gene:
        node.meta.gene = plan.gene  # the section a mutate step changed
    if plan.mode:
        node.meta.search_mode = plan.mode  # final phase or stagnation: why the policy chose this step
    if plan.crossover_plan:
        node.meta.crossover_plan = plan.crossover_plan  # section -> parent index of a merge
    if gen.parse_error:
        node.meta.parse_error = gen.parse_error
        node.meta.reply_head = gen.raw[:REPLY_HEAD_CHARS]  # the whole reply is in the node's exchanges
    if gen.reasked:
        node.meta.reasked = True  # the first reply had no code; `parse_error` says if the second had none
    if gen.thinking:
        node.meta.thinking = gen.thinking  # for people to read; prompts never show it
    if gen.missing_genes:
        node.meta.missing_genes = gen.missing_genes  # useless to crossover/mutation until marked
    if outcome.has_metric_conflict:
        node.meta.metric_conflict = outcome.conflict_record()  # what was used, what the model claimed
    if outcome.submission_problem:
        node.meta.submission_problem = outcome.submission_problem
    if outcome.review_error:
        node.meta.review_error = outcome.review_error
    if outcome.overruled:
        node.meta.review_overruled = True
    if outcome.consistency:
        node.meta.consistency = outcome.consistency  # held-out vs test agreement with the harness's reference
    for key, value in (outcome.interval.to_meta() if outcome.interval else {}).items():
        setattr(node.meta, key, value)  # the harness score's interval and standard error, or why none
    return node


def update_population(rc: RunContext, journal: Journal, state: RunState, step: StepOutcome) -> Node:
    """Add the node to the journal, feed the experience pool, persist journal and state, and copy the node into
    best_solution/ where it is the new best (`swarm.pipeline.best_so_far`)."""
    node = journal.append(make_node(step))
    node.meta.prompt_assets_hash = rc.prompt_assets_hash
    good = [
        n.metric.value
        for n in journal.good_nodes()
        if n.id != node.id and n.metric and n.metric.value is not None
    ]
    quality = 0.0
    if not node.is_buggy and node.metric is not None and node.metric.value is not None:
        quality = score_against(node.metric.value, good, lower_is_better=bool(node.lower_is_better))
    node.fitness = quality
    node.generation = state.generation if state.generation_epoch == node.epoch else 0
    if rc.cfg.search.policy == "mcts":
        record_tree_stats(journal, rc.lower_is_better)
    rc.dispatcher.update(node.agent_id or "agent_0", node.task_type, quality)
    rc.pool.add(
        ExperienceRecord(
            agent_id=node.agent_id or "agent_0",
            task_type=node.task_type,
            input_hash=input_hash(*(m["content"] for m in step.planned.messages)),
            quality=quality,
            success=not node.is_buggy,
            strategy_summary=(node.plan or node.bug_reason or "")[:500],
            node_id=node.id,
            metric=node.metric.value if node.metric else None,
        )
    )
    state.pending = [p for p in state.pending if p.node_id != node.id]
    state.steps_done += 1
    # Before the save: once the journal holds a good node, best_solution/ holds a scored submission.
    keep_best_so_far(rc, journal, node)
    rc.save(journal, state)
    rc.drop_pending(node.id)
    if rc.cfg.project.archive_nodes:
        archive_node(rc, node)
    return node


def archive_node(rc: RunContext, node: Node) -> None:
    """`<run>/workspace/archives/<node>.zip`: the node's code, outputs and review (`project.archive_nodes`); a
    fault costs the zip, never the step."""
    record = node.to_dict()
    review = {k: record[k] for k in ("step", "task_type", "metric", "is_buggy", "bug_reason", "exec_time")}
    try:
        rc.workspace.archive(node.id, extra=review)
    except (OSError, WorkspaceError) as exc:
        log.warning("node %s was not archived: %s", node.id[:8], exc)


def evolve_if_due(rc: RunContext, epoch: int) -> EvolutionReport | None:
    """Rewrite the weakest agents' texts when evolution is due after `epoch` (None when it is not); what was
    done is saved to `evolution/<epoch>.json` in the run dir."""
    evolution = rc.cfg.evolution
    not_due = evolution_due(
        epoch, evolution.evolution_interval, len(rc.pool), evolution.min_records_for_evolution
    )
    if not_due:
        log.info("no agent evolution after epoch %d: %s", epoch, not_due)
        return None
    report = evolve_agents(
        store=rc.agents,
        pool=rc.pool,
        builder=rc.prompts,
        client=rc.clients["evolution"],
        task_desc=rc.task_desc,
        epoch=epoch,
        agent_ids=rc.agent_ids,
        agents_kept=evolution.agents_kept,
        lower_is_better=rc.lower_is_better,
        run_id=rc.run_id,
        max_prompt_tokens=rc.prompt_room("evolution"),
    )
    write_json_atomic(rc.paths.root / "evolution" / f"{epoch}.json", dataclasses.asdict(report))
    return report


def record_failure(
    rc: RunContext, journal: Journal, state: RunState, plan: StepPlan, exc: BaseException
) -> None:
    """A step whose model or engine fault outlived its retries: no node; the failure is noted in the state,
    its pending entry dropped, and the run saved."""
    log.error("step %s failed: %s", plan.label(), exc)
    state.meta.setdefault("failed_steps", []).append(
        {"node_id": plan.node_id, "error": f"{type(exc).__name__}: {exc}"}
    )
    state.pending = [p for p in state.pending if p.node_id != plan.node_id]
    rc.save(journal, state)
