"""OfflineClient without running code: reply format, determinism, one-section edits, merge, review, evolution."""

from __future__ import annotations

import ast
import json
import random

import pytest
from pydantic import BaseModel

from swarm.agents.prompting import extract_evolved_text
from swarm.llm.base import CallContext, LLMClient, LLMError, ToolSpec
from swarm.offline_coder import OfflineClient
from swarm.offline_coder.client import task_from_hints
from swarm.offline_coder.genome import draft_genome, safe_genome
from swarm.offline_coder.render import render_solution
from swarm.offline_coder.sections import read_genome, split_code
from swarm.protocol import GENE_SECTIONS, SECTION_MARKER_RE, metric_line


def ctx(kind, comp=None, node="n1", **hints):
    if comp is not None:
        hints["input_dir"] = str(comp.input_dir)
    return CallContext(stage="code", kind=kind, node_id=node, hints=hints)


def changed_sections(a: str, b: str) -> list[str]:
    sa, sb = split_code(a), split_code(b)
    assert sa.preamble == sb.preamble, "the preamble changed"
    return [name for name in GENE_SECTIONS if sa.sections[name] != sb.sections[name]]


def test_is_an_llm_client():
    client = OfflineClient(seed=3)
    assert isinstance(client, LLMClient)
    assert (client.provider, client.model) == ("offline", "offline-coder")


def test_draft_reply_format(competitions, tools):
    reply = OfflineClient().complete([], ctx("draft", competitions["titanic"]))
    plan = reply.split("```python", 1)[0].strip()
    assert plan.startswith("Plan:") and "accuracy" in plan
    code = tools.code_of(reply)
    ast.parse(code)
    assert [m.group(1) for m in SECTION_MARKER_RE.finditer(code)] == list(GENE_SECTIONS)
    assert "import swarm" not in code and "from swarm" not in code
    for path in ("./input", "train.csv", "test.csv", "sample_submission.csv", "submission.csv"):
        assert path in code
    assert read_genome(split_code(code)).keys() == set(GENE_SECTIONS)


def test_drafts_are_deterministic_per_seed_and_varied(competitions, tools):
    comp = competitions["ames"]
    first = OfflineClient(seed=7).complete([], ctx("draft", comp, seed=1))
    assert OfflineClient(seed=7).complete([], ctx("draft", comp, seed=1)) == first
    codes = {tools.code_of(OfflineClient(seed=7).complete([], ctx("draft", comp, seed=s))) for s in range(6)}
    assert len(codes) >= 4
    families = {read_genome(split_code(c))["MODEL"]["family"] for c in codes}
    assert len(families) >= 2


@pytest.mark.parametrize("node", ["a", "b", "c", "d", "e", "f"])
def test_improve_changes_exactly_one_section(competitions, tools, node):
    comp = competitions["churn"]
    client = OfflineClient(seed=2)
    parent = tools.code_of(client.complete([], ctx("draft", comp, seed=5)))
    child = tools.code_of(client.complete([], ctx("improve", comp, node=node, parent_code=parent)))
    assert len(changed_sections(parent, child)) == 1
    ast.parse(child)


def test_an_improvement_depends_on_its_parents_genome_not_on_the_wording_of_its_code(competitions, tools):
    """A run repeats under the same seed even where the templates' wording changed between two versions: the
    parent's choices (its `# offline-choice:` lines), not its code text, seed the child's."""
    comp = competitions["churn"]
    parent = tools.code_of(OfflineClient(seed=2).complete([], ctx("draft", comp, seed=5)))
    reworded = parent.replace("\n", "\n# a comment the templates gained\n", 3)
    other = tools.code_of(OfflineClient(seed=2).complete([], ctx("draft", comp, seed=6)))
    assert read_genome(split_code(other)) != read_genome(split_code(parent))
    children = {
        name: [
            tools.code_of(OfflineClient(seed=2).complete([], ctx("improve", comp, seed=s, parent_code=code)))
            for s in range(4)
        ]
        for name, code in (("parent", parent), ("reworded", reworded), ("other", other))
    }
    genomes = {name: [read_genome(split_code(c)) for c in codes] for name, codes in children.items()}
    assert genomes["reworded"] == genomes["parent"] != genomes["other"]


@pytest.mark.parametrize("gene", GENE_SECTIONS)
def test_mutate_changes_the_given_gene(competitions, tools, gene):
    comp = competitions["ames" if gene == "LOSS" else "titanic"]
    client = OfflineClient(seed=4)
    parent = tools.code_of(client.complete([], ctx("draft", comp, seed=9)))
    child = tools.code_of(client.complete([], ctx("mutate", comp, parent_code=parent, gene=gene)))
    assert changed_sections(parent, child) == [gene]


def test_mutate_of_a_single_choice_gene_changes_another(competitions, tools):
    """Accuracy offers one training objective (balanced class weights lose accuracy), so a LOSS mutation
    changes some other section instead of writing the parent again."""
    comp = competitions["titanic"]
    client = OfflineClient(seed=4)
    parent = tools.code_of(client.complete([], ctx("draft", comp, seed=9)))
    child = tools.code_of(client.complete([], ctx("mutate", comp, parent_code=parent, gene="LOSS")))
    changed = changed_sections(parent, child)
    assert len(changed) == 1 and changed != ["LOSS"]
    assert read_genome(split_code(parent))["LOSS"] == {"objective": "standard"}


def test_improve_climbs_toward_stronger_choices(competitions, tools):
    """Repeated improves on a weak parent mostly take upgrades, so the end state is stronger than the start.
    "Mostly": over five client seeds (one seed's walk may stay on the linear model by chance, and which walk a
    seed takes changes with any change to the solution template, as the parent's code seeds it)."""
    comp = competitions["ames"]
    task = task_from_hints({"input_dir": str(comp.input_dir)})
    finals = []
    for seed in range(5):
        code = render_solution(task, safe_genome(task) | {"MODEL": {"family": "linear"}})
        client = OfflineClient(seed=seed)
        for step in range(12):
            code = tools.code_of(client.complete([], ctx("improve", comp, node=f"s{step}", parent_code=code)))
        finals.append(read_genome(split_code(code)))
    assert sum(final["MODEL"]["family"] != "linear" for final in finals) >= 4
    assert sum(final["TRAINING_TRICKS"]["target_transform"] == "log1p" for final in finals) >= 4
    assert (
        sum(final["OPTIMIZER"]["step"] > 0 or final["DATA"]["features"] != "basic" for final in finals) >= 4
    )


def test_merge_takes_sections_per_plan(competitions, tools):
    comp = competitions["titanic"]
    client = OfflineClient(seed=1)
    a = tools.code_of(client.complete([], ctx("draft", comp, seed=1)))
    b = tools.code_of(client.complete([], ctx("draft", comp, seed=2)))
    assert a != b
    plan = {name: i % 2 for i, name in enumerate(GENE_SECTIONS)}
    merged = tools.code_of(client.complete([], ctx("merge", comp, parent_codes=[a, b], crossover_plan=plan)))
    sm, sa, sb = split_code(merged), split_code(a), split_code(b)
    assert sm.preamble == sa.preamble
    for name, index in plan.items():
        assert sm.sections[name] == (sa, sb)[index].sections[name], name
    ast.parse(merged)


def test_bad_hints_raise_clear_errors(competitions, tmp_path):
    client = OfflineClient()
    with pytest.raises(LLMError, match="parent_code"):
        client.complete([], ctx("improve", competitions["titanic"]))
    with pytest.raises(LLMError, match="gene"):
        client.complete([], ctx("mutate", competitions["titanic"], parent_code="x = 1", gene="NOPE"))
    with pytest.raises(LLMError, match="crossover_plan"):
        client.complete([], ctx("merge", parent_codes=["a", "b"], crossover_plan={"DATA": 5}))
    with pytest.raises(
        LLMError,
        match=r"lacks train.csv \(or train_labels.csv, labels.csv, train.json records, a train parquet table, training files labelled by "
        r"their names or folders, target images, label sets in text lines, COCO-style JSON labels, training sentences a line where a word was taken out of each test sentence, a mask file in each example folder, a labels table in each example folder, or a log of events whose later ones the sample asks for\) and sample_subm",
    ):
        client.complete([], CallContext(stage="code", kind="draft", hints={"input_dir": "/nonexistent"}))
    # Only what is missing is named (labels in a parquet file beside the sample submission).
    partial = tmp_path / "parquet-layout"
    partial.mkdir()
    (partial / "sample_submission.csv").write_text("id,y\n1,0\n")
    (partial / "train.parquet").write_bytes(b"PAR1")
    with pytest.raises(
        LLMError,
        match=r"lacks train.csv \(or train_labels.csv, labels.csv, train.json records, a train parquet table, training files labelled by "
        r"their names or folders, target images, label sets in text lines, COCO-style JSON labels, training sentences a line where a word was taken out of each test sentence, a mask file in each example folder, a labels table in each example folder, or a log of events whose later ones the sample asks for\) \(the offline",
    ):
        client.complete([], CallContext(stage="code", kind="draft", hints={"input_dir": str(partial)}))


def test_improve_of_foreign_code_writes_a_fresh_solution(competitions, tools):
    reply = OfflineClient().complete([], ctx("improve", competitions["titanic"], parent_code="print('hi')\n"))
    assert "fresh solution" in reply
    assert len(read_genome(split_code(tools.code_of(reply)))) == len(GENE_SECTIONS)


@pytest.mark.parametrize("family", ["lgbm", "hgb"])
def test_debug_rewrites_the_failing_section(competitions, tools, family):
    """A failure in a non-safe section rewrites that section; in an already safe one, the whole solution."""
    comp = competitions["titanic"]
    task = task_from_hints({"input_dir": str(comp.input_dir)})
    genome = safe_genome(task) | {"MODEL": {"family": family}, "DATA": {"features": "rich"}}
    split = split_code(render_solution(task, genome))
    split.sections["MODEL"] = split.sections["MODEL"].replace(
        "MODEL_FAMILY = ", "MODEL_FAMILY = undefined_name or "
    )
    broken = split.join()
    line = next(i for i, text in enumerate(broken.splitlines(), 1) if "undefined_name" in text)
    output = (
        f'Traceback (most recent call last):\n  File "/w/solution.py", line {line}, in <module>\nNameError: x'
    )
    reply = OfflineClient().complete([], ctx("debug", comp, parent_code=broken, parent_output=output))
    fixed = tools.code_of(reply)
    assert "undefined_name" not in fixed
    if family == "lgbm":
        assert changed_sections(broken, fixed) == ["MODEL"]
        assert 'MODEL_FAMILY = "hgb"' in fixed or "MODEL_FAMILY = 'hgb'" in fixed
    else:
        assert read_genome(split_code(fixed)) == safe_genome(task)
        assert "whole solution" in reply


def test_review_reads_the_metric_line():
    client = OfflineClient()
    spec = ToolSpec("submit_review", "review", ReviewArgs)
    good = "training...\n" + metric_line("rmse", 0.25, True) + "\n"
    answer = client.call_tool(
        [], spec, CallContext(stage="feedback", kind="review", hints={"output": good, "has_submission": True})
    )
    assert (
        answer["is_bug"] is False
        and answer["metric"] == pytest.approx(0.25)
        and answer["lower_is_better"] is True
    )
    bad = 'Traceback (most recent call last):\n  File "s.py", line 3\nValueError: boom\n'
    answer = client.call_tool(
        [], spec, CallContext(stage="feedback", kind="review", hints={"output": bad, "has_submission": False})
    )
    assert answer["is_bug"] is True and answer["metric"] is None and answer["has_csv_submission"] is False
    assert "boom" in answer["summary"]


class ReviewArgs(BaseModel):
    is_bug: bool
    has_csv_submission: bool
    summary: str
    metric: float | None
    lower_is_better: bool


class OtherArgs(BaseModel):
    choice: int
    label: str
    tags: list[str]
    mode: str = "fast"


def test_other_schemas_are_filled_and_validated():
    answer = OfflineClient().call_tool([], ToolSpec("t", "t", OtherArgs), CallContext(stage="feedback"))
    assert OtherArgs.model_validate(answer).mode == "fast"
    assert answer["choice"] == 0 and answer["tags"] == []


def test_evolution_text_is_marked_and_not_stacked():
    client = OfflineClient()
    hints = {
        "current_text": "You are a careful ML engineer.",
        "stats": {"bug_rate": 0.5, "best": {"score": 0.9}},
    }
    reply = client.complete([], CallContext(stage="evolution", kind="evolve_role", hints=hints))
    first = extract_evolved_text(reply)  # the format the evolution prompts ask for
    assert first.startswith("You are a careful ML engineer.")
    assert "offline coder" in first and "bug_rate is 50%" in first and "best" in first
    again = client.complete(
        [], CallContext(stage="evolution", kind="evolve_role", hints={**hints, "current_text": first})
    )
    assert extract_evolved_text(again).count("offline-coder lessons: start") == 1


def test_review_flags_timeouts_and_nonzero_exits():
    spec = ToolSpec("submit_review", "review", ReviewArgs)
    output = "fitting...\n" + metric_line("auc", 0.8, False) + "\n"
    for extra in ({"timed_out": True}, {"exit_code": 137}):
        hints = {"output": output, "has_submission": True, **extra}
        answer = OfflineClient().call_tool(
            [], spec, CallContext(stage="feedback", kind="review", hints=hints)
        )
        assert answer["is_bug"] is True and answer["metric"] is None


def test_competition_dir_hint_finds_prepared_public(competitions, tmp_path, tools):
    import shutil

    public = tmp_path / "comp" / "prepared" / "public"
    shutil.copytree(competitions["churn"].input_dir, public)
    hints = {"competition_dir": str(tmp_path / "comp")}
    reply = OfflineClient().complete([], CallContext(stage="code", kind="draft", hints=hints))
    assert "METRIC = 'auc'" in tools.code_of(reply)


def test_debug_of_foreign_code_writes_the_safe_solution(competitions, tools):
    task = task_from_hints({"input_dir": str(competitions["ames"].input_dir)})
    output = 'Traceback (most recent call last):\n  File "/w/runfile.py", line 1, in <module>\nImportError: x'
    reply = OfflineClient().complete(
        [], ctx("debug", competitions["ames"], parent_code="import xgboost\n", parent_output=output)
    )
    genome = read_genome(split_code(tools.code_of(reply)))
    assert genome.keys() == set(GENE_SECTIONS)
    assert {s: c for s, c in genome.items() if s != "INITIALIZATION"} == {
        s: c for s, c in safe_genome(task).items() if s != "INITIALIZATION"
    }
    assert "ImportError" in reply


def test_improving_the_same_parent_again_gives_a_new_child(competitions, tools):
    """Search keeps improving its best node; the coder does not hand back a child it already proposed."""
    comp = competitions["churn"]
    client = OfflineClient(seed=2)
    parent = tools.code_of(client.complete([], ctx("draft", comp, seed=5)))
    children = [
        tools.code_of(client.complete([], ctx("improve", comp, node="same", parent_code=parent)))
        for _ in range(4)
    ]
    assert len(set(children)) == 4
    assert all(len(changed_sections(parent, child)) == 1 for child in children)
    fresh = OfflineClient(seed=2)  # another client (process) has no memory: same request, same first child
    assert (
        tools.code_of(fresh.complete([], ctx("improve", comp, node="same", parent_code=parent)))
        == children[0]
    )


def test_improve_skips_sections_the_model_ignores(competitions, tools):
    """A linear model ignores the boosting schedule and has no seed: improve never spends a step there."""
    comp = competitions["titanic"]
    task = task_from_hints({"input_dir": str(comp.input_dir)})
    parent = render_solution(task, safe_genome(task) | {"MODEL": {"family": "linear"}})
    client = OfflineClient(seed=3)
    for node in range(20):
        child = tools.code_of(client.complete([], ctx("improve", comp, node=f"n{node}", parent_code=parent)))
        (section,) = changed_sections(parent, child)
        assert section not in ("OPTIMIZER", "INITIALIZATION"), node
        if section == "TRAINING_TRICKS":
            assert read_genome(split_code(child))["TRAINING_TRICKS"]["seed_bag"] == 1


def test_a_linear_model_is_upgraded_to_a_blend(competitions, tools):
    comp = competitions["ames"]
    task = task_from_hints({"input_dir": str(comp.input_dir)})
    parent = render_solution(task, safe_genome(task) | {"MODEL": {"family": "linear"}})
    request = [ctx("mutate", comp, node=f"m{i}", parent_code=parent, gene="MODEL") for i in range(10)]
    firsts = [tools.code_of(OfflineClient().complete([], r)) for r in request]  # fresh clients: no memory
    families = [read_genome(split_code(child))["MODEL"]["family"] for child in firsts]
    assert families.count("blend") >= 7, families  # the upgrade, bar the occasional exploratory change
    blend = firsts[families.index("blend")]
    assert "VotingRegressor" in blend and "from sklearn.ensemble import VotingClassifier" in blend
    client = OfflineClient()  # one client asked again and again proposes each model choice at most once
    again = [read_genome(split_code(tools.code_of(client.complete([], r))))["MODEL"] for r in request[:5]]
    assert len({json.dumps(a, sort_keys=True) for a in again}) == 5, again


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        ("accuracy", {"standard"}),
        ("auc", {"standard"}),
        ("logloss", {"standard"}),
        ("f1", {"standard", "balanced"}),
    ],
)
def test_drafts_weigh_classes_only_for_metrics_that_reward_it(metric, expected):
    task = {"metric": metric, "targets": [{"task": "binary"}]}
    rng = random.Random(0)
    drawn = {draft_genome(task, rng)["LOSS"]["objective"] for _ in range(200)}
    assert drawn == expected
