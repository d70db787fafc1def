"""Rendered prompts: layers per task type and parent state (snapshots), strictness, budgets, validation."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

import pytest

from swarm.agents.experience import AgentStats, ExperienceRecord
from swarm.agents.prompting import (
    LAYERS,
    ParentView,
    PromptBudget,
    PromptBuilder,
    PromptError,
    extract_evolved_text,
    layers_of,
)
from swarm.agents.store import PARTS, REPO_ROOT, read_seed_profile
from swarm.llm.base import Message
from swarm.protocol import GENE_SECTIONS, parse_metric_line, section_marker
from swarm.text import trim_middle

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("SWARM_UPDATE_SNAPSHOTS") == "1"

GOOD = ParentView(
    code="# [SECTION: DATA]\nimport pandas as pd\ntrain = pd.read_csv('./input/train.csv')\n",
    output='fold 1: 0.8123\nSWARM_METRIC {"name": "accuracy", "value": 0.8123, "lower_is_better": false}',
    metric=0.8123,
    metric_name="accuracy",
    lower_is_better=False,
    node_id="n3",
    summary="LightGBM on raw columns, 5-fold CV.",
)
BUGGY = ParentView(
    code="# [SECTION: DATA]\nimport pandas as pd\nX = train['Agee']\n",
    output="Traceback (most recent call last):\n  File \"runfile.py\", line 3\nKeyError: 'Agee'",
    is_buggy=True,
    bug_reason="KeyError: the column is named 'Age'.",
    node_id="n4",
)
OTHER = ParentView(
    code="# [SECTION: DATA]\nimport numpy as np\n",
    output="ok",
    metric=0.79,
    metric_name="accuracy",
    lower_is_better=False,
    node_id="n5",
)
EXAMPLES = [
    ExperienceRecord(
        "agent_2",
        "improve",
        "h1",
        0.93,
        True,
        "Title from Name + family size; LightGBM.",
        "n9",
        timestamp=1.0,
        metric=0.84,
    ),
    ExperienceRecord(
        "agent_0",
        "draft",
        "h2",
        0.71,
        True,
        "Logistic regression baseline, one-hot.",
        "n2",
        timestamp=2.0,
        metric=0.79,
    ),
]
COMMON = dict(
    task_desc="Predict who survived the Titanic. Metric: accuracy.",
    memory="- n3: LightGBM 0.8123",
    data_preview="train.csv: 891 rows; columns PassengerId, Survived, Pclass, Name, Sex, Age",
    time_remaining_s=2712,
    steps_remaining=7,
    packages=["joblib 1.6.0", "lightgbm 4.7.0", "pandas 3.1.0"],
    metric_name="accuracy",
    lower_is_better=False,
    cpus=2,
    memory_mb=4096,
    timeout_s=600,
)
NO_EXTRAS = dict(
    metric_name=None, lower_is_better=None, cpus=None, memory_mb=None, timeout_s=None, packages=()
)

CASES = {
    "draft": dict(task_type="draft", examples=EXAMPLES),
    "draft_no_examples": dict(task_type="draft", **NO_EXTRAS),
    "improve": dict(task_type="improve", parent=GOOD, examples=EXAMPLES),
    "debug": dict(task_type="debug", parent=BUGGY, examples=EXAMPLES),
    "merge": dict(
        task_type="merge",
        parents=(GOOD, OTHER),
        crossover_plan={"DATA": 0, "MODEL": 1, "LOSS": "A's loss with B's class weights"},
        examples=EXAMPLES,
    ),
    "mutate": dict(task_type="mutate", parent=GOOD, gene="REGULARIZATION", examples=EXAMPLES),
}
EXPECTED_USER_LAYERS = {
    "draft": ["TASK", "CONTEXT", "STRATEGY", "EXAMPLES", "GUIDELINES"],
    "draft_no_examples": ["TASK", "CONTEXT", "STRATEGY", "GUIDELINES"],
    "improve": ["TASK", "CONTEXT", "STRATEGY", "EXAMPLES", "GUIDELINES"],
    "debug": ["TASK", "CONTEXT", "STRATEGY", "GUIDELINES"],
    "merge": ["TASK", "CONTEXT", "STRATEGY", "EXAMPLES", "GUIDELINES"],
    "mutate": ["TASK", "CONTEXT", "STRATEGY", "EXAMPLES", "GUIDELINES"],
}


@pytest.fixture(scope="module")
def builder() -> PromptBuilder:
    return PromptBuilder()


def _build(builder: PromptBuilder, case: str, agent: str = "agent_1") -> list[Message]:
    kwargs = dict(CASES[case])
    task_type = kwargs.pop("task_type")
    return builder.build(task_type, read_seed_profile(agent), **{**COMMON, **kwargs})


def _check_snapshot(name: str, messages: list[Message]) -> None:
    text = "".join(f"===== {m.role} =====\n{m.content}" for m in messages)
    path = SNAPSHOTS / f"{name}.txt"
    if UPDATE or not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"snapshot {path} was missing and has been written; review it and rerun")
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} differs from {path}; rerun with SWARM_UPDATE_SNAPSHOTS=1 after reviewing the change"
    )


@pytest.mark.parametrize("case", list(CASES))
def test_code_prompt_layers_and_snapshot(builder: PromptBuilder, case: str) -> None:
    system, user = _build(builder, case)
    assert (system.role, user.role) == ("system", "user")
    assert layers_of(system.content) == ["ROLE", "FORMAT"]
    assert layers_of(user.content) == EXPECTED_USER_LAYERS[case]
    _check_snapshot(case, [system, user])


def test_guidelines_state_the_gpus_a_solution_has_or_that_it_has_none(builder: PromptBuilder) -> None:
    none = _build(builder, "draft")[1].content
    assert "- No GPU: every script runs on the CPU alone" in none and "- GPUs:" not in none
    kwargs = dict(CASES["draft"])
    task_type = kwargs.pop("task_type")
    facts = "1 GPU: NVIDIA H100 80GB HBM3 (81559 MB); torch can use them"
    user = builder.build(task_type, read_seed_profile("agent_1"), **{**COMMON, **kwargs}, gpus=facts)[
        1
    ].content
    guidelines = user[user.index("# GUIDELINES") :]
    assert f"- GPUs: {facts}." in guidelines and "No GPU" not in guidelines


def test_format_layer_uses_the_protocol(builder: PromptBuilder) -> None:
    system = _build(builder, "draft")[0].content
    positions = [system.index(section_marker(name)) for name in GENE_SECTIONS]
    assert positions == sorted(positions)
    example = next(line for line in system.splitlines() if "SWARM_METRIC {" in line)
    assert parse_metric_line(example) is not None
    assert read_seed_profile("agent_1").role.strip() in system


def test_context_adapts_to_the_parent(builder: PromptBuilder) -> None:
    draft, improve, debug = (_build(builder, c)[1].content for c in ("draft", "improve", "debug"))
    assert "Parent solution" not in draft and "draft a new solution" in draft
    assert GOOD.code.strip() in improve and "accuracy = 0.8123 (higher is better)" in improve
    assert "improve the parent" in improve
    assert "KeyError: 'Agee'" in debug and BUGGY.bug_reason in debug and "Status: FAILED" in debug
    assert "Debugging:\n" in debug and "Debugging:\n" not in improve  # the debug skill only for debug
    merge = _build(builder, "merge")[1].content
    assert GOOD.code.strip() in merge and OTHER.code.strip() in merge
    assert "| DATA | A |" in merge and "| MODEL | B |" in merge and "Crossover strategies" in merge
    mutate = _build(builder, "mutate")[1].content
    assert "mutate the REGULARIZATION gene" in mutate and "Mutation strategies" in mutate
    assert "Crossover strategies" not in mutate


def test_agents_get_their_own_role_and_strategy(builder: PromptBuilder) -> None:
    a0 = builder.build("mutate", read_seed_profile("agent_0"), **COMMON, parent=GOOD, gene="MODEL")
    a3 = builder.build("mutate", read_seed_profile("agent_3"), **COMMON, parent=GOOD, gene="MODEL")
    assert read_seed_profile("agent_0").texts["strategy_mutate"].strip() in a0[1].content
    assert read_seed_profile("agent_3").texts["strategy_mutate"].strip() in a3[1].content
    assert a0[0].content != a3[0].content


def test_guidelines_state_workspace_and_budget(builder: PromptBuilder) -> None:
    user = _build(builder, "improve")[1].content
    guidelines = user[user.index("# GUIDELINES") :]
    for needle in (
        "./input/",
        "./working/",
        "./submission/submission.csv",
        "45 min 12 s",
        "Steps left: 7",
        "lightgbm 4.7.0",
    ):
        assert needle in guidelines


def test_review_and_evolution_prompts(builder: PromptBuilder) -> None:
    review = builder.build_review(
        task_desc="Titanic.",
        code=GOOD.code,
        output=GOOD.output,
        metric=parse_metric_line(GOOD.output),
        exec_time_s=3.2,
    )
    assert [layers_of(m.content) for m in review] == [["ROLE", "FORMAT"], ["TASK", "CONTEXT", "GUIDELINES"]]
    assert "accuracy = 0.8123 (higher is better)" in review[1].content
    no_metric = builder.build_review(
        task_desc="Titanic.", code="x", output="", timed_out=True, exec_time_s=600
    )
    assert (
        "No well-formed `SWARM_METRIC` line" in no_metric[1].content and "time limit" in no_metric[1].content
    )
    _check_snapshot("review", review)
    agent, elite = read_seed_profile("agent_1"), read_seed_profile("agent_2")
    role = builder.build_evolution(
        "role",
        agent,
        task_desc="Titanic.",
        stats=AgentStats(9, 0.5, 0.4),
        elite=elite,
        elite_stats=AgentStats(8, 1.0, 0.8),
        examples=EXAMPLES,
    )
    assert [layers_of(m.content) for m in role] == [
        ["ROLE", "FORMAT"],
        ["TASK", "CONTEXT", "EXAMPLES", "GUIDELINES"],
    ]
    assert agent.role.strip() in role[1].content and elite.role.strip() in role[1].content
    _check_snapshot("evolve_role", role)
    strat = builder.build_evolution(
        "strategy_explore", agent, task_desc="Titanic.", stats=AgentStats(1, 0, 0)
    )
    assert layers_of(strat[1].content) == ["TASK", "CONTEXT", "GUIDELINES"]
    assert agent.texts["strategy_explore"].strip() in strat[1].content
    strat = builder.build_evolution(
        "strategy_merge",
        agent,
        task_desc="Titanic.",
        stats=AgentStats(9, 0.5, 0.4),
        elite=elite,
        elite_stats=AgentStats(8, 1.0, 0.8),
        examples=EXAMPLES,
    )
    assert [layers_of(m.content) for m in strat] == [
        ["ROLE", "FORMAT"],
        ["TASK", "CONTEXT", "EXAMPLES", "GUIDELINES"],
    ]
    _check_snapshot("evolve_strategy", strat)
    assert extract_evolved_text("Why.\n```markdown\nYou now do X.\n```\n") == "You now do X.\n"
    with pytest.raises(PromptError, match="no non-empty ```markdown block"):
        extract_evolved_text("just prose")


def test_a_missing_variable_is_an_error(builder: PromptBuilder, tmp_path: Path) -> None:
    with pytest.raises(PromptError, match="'role' is undefined"):
        builder.render("code.system.j2", format_skills="x", markers=[], metric_prefix="P", metric_example="E")
    templates = tmp_path / "prompts"
    shutil.copytree(REPO_ROOT / "prompts", templates)
    path = templates / "layers" / "guidelines.j2"
    path.write_text(path.read_text() + "\n{{ gpu_count }}\n")
    strict = PromptBuilder(templates_dir=templates)
    with pytest.raises(PromptError, match="'gpu_count' is undefined"):
        strict.build("draft", read_seed_profile("agent_0"), **COMMON)


def test_budgets_hold_on_huge_inputs(builder: PromptBuilder) -> None:
    b = builder.budget
    agent = read_seed_profile("agent_0")
    small = builder.build("merge", agent, task_desc="t", parents=(OTHER, OTHER), crossover_plan={"DATA": "A"})
    huge_parent = ParentView(
        code="x = 1\n" * 200_000, output="line\n" * 300_000, is_buggy=False, summary="s" * 50_000, metric=1.0
    )
    many = [
        ExperienceRecord("agent_1", "merge", f"h{i}", 0.5, True, "y" * 100_000, f"n{i}") for i in range(50)
    ]
    big = builder.build(
        "merge",
        agent,
        task_desc="T" * 1_000_000,
        parents=(huge_parent, huge_parent),
        crossover_plan={"DATA": "A"},
        memory="m" * 1_000_000,
        data_preview="d" * 1_000_000,
        examples=many,
        packages=[f"pkg{i}" for i in range(10_000)],
    )
    per_parent = b.parent_code + b.parent_output + b.bug_reason
    allowance = (
        b.task_desc
        + 2 * per_parent
        + b.memory
        + b.data_preview
        + b.packages
        + b.max_examples * (b.example + 100)
    )
    assert len(big[1].content) <= len(small[1].content) + allowance
    assert len(big[0].content) <= len(small[0].content) + b.role
    assert big[1].content.count("lines cut ...]") >= 6
    assert big[1].content.count("[merge by agent_1, quality 0.50]") == b.max_examples


@pytest.mark.parametrize("limit", [100, 101, 500, 4096])
def test_trim_middle_bounds_and_keeps_both_ends(limit: int) -> None:
    text = "HEAD" + "x" * 10_000 + "TAIL"
    out = trim_middle(text, limit)
    assert len(out) <= limit and out.startswith("HEAD") and out.endswith("TAIL")
    assert "lines cut ...]" in out
    assert trim_middle("short", limit) == "short"
    assert trim_middle(text, limit, head_fraction=1.0).startswith("HEAD")


def test_inconsistent_requests_are_rejected(builder: PromptBuilder) -> None:
    agent = read_seed_profile("agent_0")
    bad = [
        (dict(task_type="explore"), "unknown task type 'explore'"),
        (dict(task_type="draft", parent=GOOD), "takes no parent"),
        (dict(task_type="improve"), "needs parent=ParentView"),
        (dict(task_type="improve", parent=BUGGY), "needs a non-buggy parent"),
        (dict(task_type="debug", parent=GOOD), "needs a buggy parent"),
        (dict(task_type="merge", parents=(GOOD,), crossover_plan={"DATA": "A"}), "needs parents="),
        (dict(task_type="merge", parents=(GOOD, OTHER)), "needs a crossover_plan"),
        (dict(task_type="merge", parents=(GOOD, OTHER), crossover_plan={"FEATURES": "A"}), "unknown gene"),
        (dict(task_type="mutate", parent=GOOD, gene="FEATURES"), "needs gene"),
        (dict(task_type="draft", gene="DATA"), "takes no gene"),
    ]
    for kwargs, message in bad:
        with pytest.raises(PromptError, match=message):
            builder.build(agent=agent, **COMMON, **kwargs)
    with pytest.raises(PromptError, match="task_desc must be a non-empty string"):
        builder.build("draft", agent, task_desc=" ")
    with pytest.raises(PromptError, match="unknown agent part 'style'"):
        builder.build_evolution("style", agent, task_desc="t", stats=AgentStats(0, 0, 0))
    with pytest.raises(PromptError, match="PromptBudget.memory must be"):
        PromptBudget(memory=5)
    assert set(LAYERS) >= set(EXPECTED_USER_LAYERS["draft"])


def test_skills_index_lists_every_skill_file() -> None:
    builder = PromptBuilder()
    listed = {e["path"] for e in builder.skill_index}
    on_disk = {str(p.relative_to(REPO_ROOT / "skills")) for p in (REPO_ROOT / "skills").rglob("*.md")}
    assert listed == on_disk
    assert builder.skills_for("GUIDELINES", "review").startswith("Review checklist")
    assert "Execution rules" not in builder.skills_for("GUIDELINES", "review")


@pytest.mark.parametrize(
    ("part", "kind", "intro"),
    [
        ("strategy_explore", "explore", "drafting new solutions, improving good ones and debugging"),
        ("strategy_merge", "merge", "combining two parent solutions, gene section by gene section"),
        ("strategy_mutate", "mutate", "changing one gene section of a solution"),
    ],
)
def test_every_strategy_part_renders_its_own_text(
    builder: PromptBuilder, part: str, kind: str, intro: str
) -> None:
    agent, elite = read_seed_profile("agent_3"), read_seed_profile("agent_0")
    system, user = builder.build_evolution(
        part,
        agent,
        task_desc="T.",
        stats=AgentStats(3, 1.0, 0.5),
        elite=elite,
        elite_stats=AgentStats(3, 1, 1),
    )
    text = user.content
    assert f"rewrite the {kind} strategy of agent_3" in text and intro in text
    assert agent.texts[part].strip() in text and elite.texts[part].strip() in text
    others = [p for p in PARTS if p != part]
    assert not any(agent.texts[p].strip() in text for p in others)
    assert f"{kind.capitalize()} strategy of the best agent, agent_0" in text
    assert f"under {builder.budget.strategy} characters" in system.content


def test_packages_are_listed_key_ones_first_within_budget(builder: PromptBuilder) -> None:
    long = [f"aaa-tool-{i:03d} 1.0.{i}" for i in range(300)] + [
        "torch 2.13.0",
        "scikit-learn 1.9.1",
        "numpy 2.4.6",
    ]
    user = builder.build("draft", read_seed_profile("agent_0"), **{**COMMON, "packages": long})[1].content
    listed = user[user.index("- Installed Python packages") : user.index("Nothing else can be installed")]
    assert "numpy 2.4.6, scikit-learn 1.9.1, torch 2.13.0, aaa-tool-000 1.0.0" in listed
    assert "lines cut ...]" in listed and len(listed) <= builder.budget.packages + 100
    assert "pandas 3.1.0, lightgbm 4.7.0, joblib 1.6.0" in _build(builder, "draft")[1].content
    assert "standard scientific stack" in _build(builder, "draft_no_examples")[1].content
    for bad, message in (("numpy 2.4.6", "not one string"), (["numpy", 2], "entries must be strings")):
        with pytest.raises(PromptError, match=message):
            builder.build("draft", read_seed_profile("agent_0"), task_desc="t", packages=bad)


def test_guidelines_state_the_sandbox_limits_given(builder: PromptBuilder) -> None:
    agent = read_seed_profile("agent_0")
    user = builder.build("draft", agent, task_desc="t", cpus=1.5, memory_mb=2048, timeout_s=900)[1].content
    guidelines = user[user.index("# GUIDELINES") :]
    assert "CPUs: 1.5. Use at most 2 threads" in guidelines
    assert "Memory: 2048 MB" in guidelines and "killed after 15 min 00 s" in guidelines
    one = builder.build("draft", agent, task_desc="t", cpus=1)[1].content
    assert "CPUs: 1. Use at most 1 thread (" in one and "Memory:" not in one and "killed after" not in one
    bare = _build(builder, "draft_no_examples")[1].content
    assert "CPUs:" not in bare and "Memory:" not in bare and "has a hard time limit" in bare
    for text in (user, bare):  # no hard-coded machine in the skills any more
        assert "one or two CPUs" not in text and "no GPU" not in text
    for bad in (dict(cpus=0), dict(memory_mb=-1), dict(timeout_s=float("nan")), dict(cpus=True)):
        with pytest.raises(PromptError, match="must be a positive number"):
            builder.build("draft", agent, task_desc="t", **bad)


def test_format_example_uses_the_competition_metric(builder: PromptBuilder) -> None:
    agent = read_seed_profile("agent_0")
    system, user = builder.build(
        "improve",
        agent,
        task_desc="t",
        parent=dataclasses.replace(OTHER, metric_name=None),
        metric_name="auc",
        lower_is_better=False,
    )
    example = next(line for line in system.content.splitlines() if "SWARM_METRIC {" in line)
    reported = parse_metric_line(example)
    assert reported is not None and (reported.name, reported.lower_is_better) == ("auc", False)
    assert "scored by `auc` (higher is better)" in system.content
    assert "validation auc = 0.79" in user.content  # the parent's metric is named after the competition's
    rmse = builder.build("draft", agent, task_desc="t", metric_name="rmse", lower_is_better=True)[0].content
    assert '"name": "rmse"' in rmse and '"lower_is_better": true' in rmse and "(lower is better)" in rmse
    generic = _build(builder, "draft_no_examples")[0].content
    assert "scored by" not in generic and parse_metric_line(generic) is not None
    review = builder.build_review(
        task_desc="t", code="x", output="", metric_name="auc", lower_is_better=False
    )
    assert '"name": "auc"' in review[0].content
    for bad in (
        dict(metric_name="auc"),
        dict(lower_is_better=True),
        dict(metric_name=" ", lower_is_better=True),
    ):
        with pytest.raises(PromptError, match="metric_name"):
            builder.build("draft", agent, task_desc="t", **bad)


def test_crossover_plan_cells_map_indices_and_trim_notes(builder: PromptBuilder) -> None:
    agent = read_seed_profile("agent_0")
    note = "line one\nline | two " + "x" * 5_000
    plan = {"DATA": 0, "MODEL": 1, "LOSS": "B", "TRAINING_TRICKS": note}
    user = builder.build("merge", agent, task_desc="t", parents=(GOOD, OTHER), crossover_plan=plan)[1].content
    rows = [line for line in user.splitlines() if line.startswith("| ") and not line.startswith("| Gene")]
    assert len(rows) == len(GENE_SECTIONS)
    assert "| DATA | A |" in rows and "| MODEL | B |" in rows and "| LOSS | B |" in rows
    tricks = next(r for r in rows if r.startswith("| TRAINING_TRICKS |"))
    assert "line one line \\| two" in tricks and "lines cut ...]" in tricks
    assert len(tricks) <= builder.budget.plan_note + len("| TRAINING_TRICKS |  |")
    assert tricks.count("|") - tricks.count("\\|") == 3  # the note cannot open a new cell
    for bad in ({"DATA": 2}, {"DATA": None}, {"DATA": " "}):
        with pytest.raises(PromptError, match="crossover_plan"):
            builder.build("merge", agent, task_desc="t", parents=(GOOD, OTHER), crossover_plan=bad)
