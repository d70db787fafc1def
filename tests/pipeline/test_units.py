"""Pipeline pieces as plain functions, without Prefect: the AIDE policy, cache keys, the competition's metric
direction, artifact keys, failure messages, and rerun branches restoring what was current at the snapshot."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import SimpleNamespace

import pytest

from flows.artifacts import artifact_key, curve_lines, journal_rows, markdown_table
from sandbox import ExecutionResult
from sandbox.resources import HostResources, resolve_resources
from swarm.agents.store import AgentStore
from swarm.config import load_config
from swarm.evaluation.review import ReviewOutcome
from swarm.journal import Journal, Node
from swarm.journal.step_record import Review
from swarm.metric import MetricValue, ValidationSource
from swarm.pipeline import steps
from swarm.pipeline.context import create_run
from swarm.pipeline.finalize import score_curve
from swarm.pipeline.policy import choose_next
from swarm.pipeline.snapshots import branch_from_snapshot, write_snapshot
from swarm.pipeline.state import RunPaths, StepPlan, load_state


def good(value: float, parent: str | None = None, task: str = "draft", lower: bool = False) -> Node:
    return Node(
        task_type=task,
        parent_ids=(parent,) if parent else (),
        review=Review(is_buggy=False, metric=MetricValue(value, lower)),
    )


def buggy(parent: str | None = None, task: str = "draft") -> Node:
    return Node(
        task_type=task,
        parent_ids=(parent,) if parent else (),
        review=Review(is_buggy=True, bug_reason="boom"),
    )


def cfg(**search: object):
    return load_config(overrides=[f"search.{k}={v}" for k, v in search.items()], env_file=None)


# -- AIDE policy --------------------------------------------------------------------------------------------


def test_policy_drafts_until_num_drafts_counting_pending_drafts() -> None:
    journal = Journal([good(0.5)])
    pending = [StepPlan(step=1, epoch=1, task_type="draft")]
    rng = random.Random(0)
    assert choose_next(journal, [], cfg(num_drafts=3), rng).task_type == "draft"
    assert choose_next(journal, pending, cfg(num_drafts=2), rng).task_type != "draft"


def test_policy_improves_the_best_honouring_direction() -> None:
    low, high = good(0.2, lower=True), good(0.9, lower=True)
    choice = choose_next(Journal([low, high]), [], cfg(num_drafts=2, debug_prob=0.0), random.Random(0))
    assert (choice.task_type, choice.parent_ids) == ("improve", [low.id])


def test_policy_debugs_buggy_leaves_within_depth_and_not_twice() -> None:
    root = buggy()
    journal = Journal([good(0.5), root])
    always = cfg(num_drafts=2, debug_prob=1.0, max_debug_depth=3)
    choice = choose_next(journal, [], always, random.Random(0))
    assert (choice.task_type, choice.parent_ids) == ("debug", [root.id])
    busy = [StepPlan(step=2, epoch=1, task_type="debug", parent_ids=[root.id])]
    assert choose_next(journal, busy, always, random.Random(0)).task_type == "improve"  # not twice
    chain = [root]
    for _ in range(4):
        chain.append(buggy(chain[-1].id, task="debug"))
        journal.append(chain[-1])
    too_deep = chain[-1]
    assert journal.debug_depth(too_deep.id) > 3
    assert choose_next(journal, [], always, random.Random(0)).task_type == "improve"


def test_policy_drafts_again_when_nothing_is_good() -> None:
    journal = Journal([buggy(), buggy()])
    assert choose_next(journal, [], cfg(num_drafts=2, debug_prob=0.0), random.Random(0)).task_type == "draft"


# -- cache keys -------------------------------------------------------------------------------------------


def planned(content: str) -> steps.PlannedStep:
    return steps.PlannedStep(
        plan=StepPlan(step=0, epoch=1, task_type="draft"), messages=[{"role": "user", "content": content}]
    )


def test_generation_key_depends_on_prompt_and_model_only() -> None:
    a, b = planned("same prompt"), planned("same prompt")  # different node ids
    key = steps.generation_cache_key(a, "m", "openai", 0.5)
    assert key == steps.generation_cache_key(b, "m", "openai", 0.5)
    assert key != steps.generation_cache_key(planned("other prompt"), "m", "openai", 0.5)
    assert key != steps.generation_cache_key(a, "m2", "openai", 0.5)
    assert key != steps.generation_cache_key(a, "m", "anthropic", 0.5)
    assert key != steps.generation_cache_key(a, "m", "openai", 0.7)


HOST = HostResources(tuple(range(16)), 128 * 1024)


def test_execution_key_depends_on_code_data_and_sandbox_settings() -> None:
    base = load_config(env_file=None)

    def context(cfg, parallel: int = 1, **changes) -> SimpleNamespace:
        sandbox = SimpleNamespace(cfg=resolve_resources(cfg.execution, parallel, HOST))
        return SimpleNamespace(
            **{"cfg": cfg, "sandbox": sandbox, "data_hash": "d1", "sandbox_kind": "LocalSandbox", **changes}
        )

    rc = context(base)
    key = steps.execution_cache_key(rc, "print(1)")
    assert key == steps.execution_cache_key(rc, "print(1)")
    assert key != steps.execution_cache_key(rc, "print(2)")
    assert key != steps.execution_cache_key(context(base, data_hash="d2"), "print(1)")
    assert key != steps.execution_cache_key(context(base, sandbox_kind="DockerSandbox"), "print(1)")
    slower = load_config(overrides=["execution.timeout_s=5"], env_file=None)
    assert key != steps.execution_cache_key(context(slower), "print(1)")
    # The limits a solution really had: `auto` resources resolve differently with more parallel steps.
    assert key != steps.execution_cache_key(context(base, parallel=4), "print(1)")


# -- review direction, failure message, artifacts -----------------------------------------------------------


def outcome(lower: bool, conflict: str | None = None) -> ReviewOutcome:
    return ReviewOutcome(
        is_buggy=False,
        bug_reason=None,
        metric=0.3,
        lower_is_better=lower,
        summary="ok",
        metric_conflict=conflict,
    )


def test_competition_direction_wins_and_the_disagreement_is_recorded() -> None:
    fixed = steps.with_competition_direction(outcome(lower=False), lower_is_better=True)
    assert fixed.lower_is_better is True and "lower-is-better" in fixed.metric_conflict
    kept = steps.with_competition_direction(
        outcome(lower=True, conflict="value differs"), lower_is_better=True
    )
    assert kept.lower_is_better is True and kept.metric_conflict == "value differs"
    unknown = steps.with_competition_direction(outcome(lower=False), lower_is_better=None)
    assert unknown.lower_is_better is False and unknown.metric_conflict is None


def test_failure_message_has_the_reason_and_the_output_tail() -> None:
    result = ExecutionResult(
        output="line\n" * 10 + "fatal: out of ideas", exit_code=3, exec_time=1.0, backend="x"
    )
    message = steps.failure_message(result)
    assert message.startswith("exited with status 3") and message.endswith("fatal: out of ideas")
    assert steps.failure_headline(result) == "exited with status 3"


def test_a_crashs_headline_is_one_line_naming_the_error_and_the_script_line() -> None:
    """What a failed execute task's state message says in the Prefect UI: one line, not the traceback."""
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "/work/node/solution.py", line 12, in <module>\n'
        '    print(row["Age"])\n'
        "KeyError: 'Age'\n"
    )
    result = ExecutionResult(
        output="loading\n" + traceback,
        exit_code=1,
        exc_type="KeyError",
        exc_info="'Age'",
        exec_time=1.0,
        backend="x",
    )
    headline = steps.failure_headline(result)
    assert headline == "raised KeyError: 'Age' at line 12" and "\n" not in headline
    assert steps.failure_message(result).splitlines()[-1] == "KeyError: 'Age'"  # the log keeps the lines
    long = result.model_copy(update={"exc_info": "x" * 1000, "output": "y\n" * 5})
    assert len(steps.failure_headline(long)) <= steps.HEADLINE_CHARS and "\n" not in steps.failure_headline(
        long
    )


def test_artifact_keys_are_valid_and_differ_by_branch() -> None:
    main = artifact_key("My.Run_1 (test)", "main", 2)
    branch = artifact_key("My.Run_1 (test)", "again", 2)
    for key in (main, branch):
        assert key == key.lower() and set(key) <= set("abcdefghijklmnopqrstuvwxyz0123456789-")
    assert main != branch and main.endswith("-e2")


def test_score_curve_lines_show_each_improvement() -> None:
    journal = Journal()
    for value in (0.5, 0.4, 0.45, 0.3):
        node = good(value, lower=True)
        node.step = len(journal)
        journal.append(node)
    lines = curve_lines(score_curve(journal), lower_is_better=True)
    rows = [line for line in lines if line.startswith("step")]
    assert [row.split()[2] for row in rows] == ["0.5", "0.4", "0.4", "0.3"]
    assert rows[-1].count("#") > rows[0].count("#")


def test_journal_table_marks_scores_the_harness_did_not_compute_as_unverified() -> None:
    journal = Journal()
    trusted, claimed = good(0.8, lower=False), good(0.99, lower=False)
    trusted.meta.validation_source, trusted.meta.claimed_metric = ValidationSource.HARNESS, 0.85
    claimed.meta.validation_source, claimed.meta.claimed_metric = ValidationSource.SOLUTION, 0.99
    journal.append(trusted)
    journal.append(claimed)
    trusted.meta.score_interval = [0.7449, 0.8469]
    rows = journal_rows(journal)
    assert [(r["metric"], r["95% interval"], r["scored by"], r["claimed"]) for r in rows] == [
        (0.8, "[0.745, 0.847]", "harness", 0.85),
        (0.99, "", "unverified", 0.99),
    ]


# -- rerun branches -----------------------------------------------------------------------------------------


def test_branch_restores_agent_texts_usage_and_pool_of_the_snapshot(
    tmp_path: Path, competition_cache: Path
) -> None:
    config = load_config(
        overrides=[f"project.cache_dir={competition_cache}", "data.competition=titanic"], env_file=None
    )
    paths = create_run(config, tmp_path / "run")
    store = AgentStore(paths.root)
    state, journal = load_state(paths), Journal.load(paths.journal)
    paths.usage.write_text('{"cost_usd": 0.5}\n')
    paths.experience.write_text("")
    store.write_version("agent_0", "role", "Role v2\n", reason="epoch 1", parent_version="v1")
    write_snapshot(paths, 1, journal, state)
    store.write_version("agent_0", "role", "Role v3\n", reason="epoch 2", parent_version="v2")
    with paths.usage.open("a") as handle:
        handle.write('{"cost_usd": 0.25}\n')
    write_snapshot(paths, 2, journal, state)

    branch = branch_from_snapshot(paths, 2, "again")

    texts = AgentStore(branch.root).current("agent_0")
    assert texts.role == "Role v2\n" and texts.versions["role"] == "v2"
    assert (branch.root / "agent_configs" / "agent_0" / "role.md").read_text() == "Role v2\n"
    assert [e["version"] for e in AgentStore(branch.root).history() if e["agent_id"] == "agent_0"].count(
        "v3"
    ) == 0
    assert branch.usage.read_text().splitlines() == ['{"cost_usd": 0.5}']
    assert AgentStore(paths.root).current("agent_0").versions["role"] == "v3"  # the original is untouched
    assert (
        json.loads((paths.root / "skills" / "meta" / "lineage.json").read_text())["agents"]["agent_0"][
            "role"
        ]["current"]
        == "v3"
    )


def test_branch_needs_the_snapshot_before_the_epoch(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="starting snapshot"):
        branch_from_snapshot(RunPaths(tmp_path), 3)


def draft_prompt(tmp_path: Path, competition_cache: Path, competition: str, *extra: str) -> tuple[str, dict]:
    """The first draft's prompt text and hints for a new run on a bundled competition."""
    from swarm.pipeline.context import RunContext

    overrides = [f"project.cache_dir={competition_cache}", f"data.competition={competition}", *extra]
    config = load_config(overrides=[*overrides, "execution.sandbox=local"], env_file=None)
    paths = create_run(config, tmp_path / "run")
    rc = RunContext(paths, config, load_state(paths))
    messages, hints, _ = rc.build_prompt(StepPlan(step=1, epoch=1, task_type="draft", seed=1), [], Journal())
    return "\n".join(m.content for m in messages), hints


def test_prompts_and_sandbox_json_state_the_resources_auto_gives_each_step(
    tmp_path: Path, competition_cache: Path
) -> None:
    """`auto` CPUs and memory are this host's divided by search.parallel, and that is what a model is told."""
    from sandbox.resources import auto_cpus, auto_memory_mb, host_resources

    prompt, _ = draft_prompt(tmp_path, competition_cache, "titanic", "search.parallel=4")
    host = host_resources()
    cpus, memory = auto_cpus(host, 4), auto_memory_mb(host, 4)
    assert f"- CPUs: {cpus:g}." in prompt
    assert f"- Memory: {memory} MB for the whole script" in prompt
    record = json.loads((tmp_path / "run" / "sandbox.json").read_text())
    assert (record["cpus"], record["memory_mb"]) == (cpus, memory)
    assert record["memory_guard"] and record["gpus"]


def test_prompts_name_the_packages_the_sandbox_has(tmp_path: Path, competition_cache: Path) -> None:
    from importlib import metadata

    prompt, _ = draft_prompt(tmp_path, competition_cache, "titanic")
    assert f"pandas {metadata.version('pandas')}" in prompt
    assert f"scikit-learn {metadata.version('scikit-learn')}" in prompt


def test_prompts_show_the_kinds_of_columns(tmp_path: Path, competition_cache: Path) -> None:
    """A model reads what each column is (issue: free text and dates were taken for ids and dropped)."""
    prompt, hints = draft_prompt(tmp_path, competition_cache, "food-reviews")
    assert "Columns by kind (train.csv with test.csv):" in prompt
    assert "review: free text:" in prompt
    assert hints["metric"] == "auc"


def test_markdown_tables_keep_one_row_per_line_whatever_the_cells_hold() -> None:
    lines = markdown_table([{"node": "a|b", "why": "line one\nline two", "metric": None}])
    assert lines[0] == "| node | why | metric |"
    assert lines[2] == "| a\\|b | line one line two |  |"
    assert markdown_table([]) == []


def test_a_storing_task_is_made_once_per_storage_and_refresh(tmp_path: Path) -> None:
    from flows.epoch import storing
    from tasks import execute, generate

    stored = storing(generate, tmp_path / "cache")
    assert storing(generate, tmp_path / "cache") is stored
    assert stored.result_storage == tmp_path / "cache" and stored.fn is generate.fn
    assert stored.refresh_cache is None  # the setting decides, as on the undecorated task
    refreshing = storing(execute, tmp_path / "cache", True)
    assert refreshing is not storing(execute, tmp_path / "cache") and refreshing.refresh_cache is True
    assert storing(generate, tmp_path / "other").result_storage == tmp_path / "other"


# -- the step record ------------------------------------------------------------------------------------------


def test_a_node_keeps_the_run_and_the_review_as_one_value_each() -> None:
    """What the journal keeps of the sandbox's result and of the review's outcome, made in one place each; the
    node reads them through (`node.exit_code` is its execution's)."""
    result = ExecutionResult(
        output="Traceback ...\nKeyError: 'x'\n",
        exit_code=1,
        exc_type="KeyError",
        exc_info="'x'",
        exc_stack=[{"file": "solution.py", "line": 3, "function": "<module>", "code": "df['x']"}],
        exec_time=1.5,
        timed_out=True,
        backend="bwrap",
    )
    execution = steps.execution_record(result)
    assert (execution.term_out, execution.exit_code, execution.exec_time, execution.timed_out) == (
        result.output,
        1,
        1.5,
        True,
    )
    assert execution.exc_info == {"message": "'x'"}
    assert execution.exc_stack == [("solution.py", 3, "<module>", "df['x']")]
    assert steps.execution_record(None) == type(execution)()  # the code never ran
    outcome = ReviewOutcome(
        is_buggy=True, bug_reason="KeyError", metric=None, lower_is_better=True, summary="Fails on x."
    )
    review = steps.review_record(outcome)
    assert review == Review("Fails on x.", MetricValue(None, True), True, "KeyError", False)
    node = Node(execution=execution, review=review)
    assert (node.exit_code, node.exc_type, node.is_buggy, node.lower_is_better) == (1, "KeyError", True, True)
    again = Node.from_dict(node.to_dict())
    assert again.execution == execution and again.review == review
