"""Journal DAG queries, JSON round trips, atomic save, validation and the bounded memory summary."""

import json
import math
import os
import random

import pytest

from swarm.journal import Journal, JournalError, Node, NodeMeta
from swarm.journal.memory import memory_summary
from swarm.journal.step_record import EXECUTION_KEYS, REVIEW_KEYS, Execution, Review
from swarm.metric import MetricValue, ValidationSource


def make(task="draft", parents=(), metric=None, lower=False, buggy=False, **kw):
    value = MetricValue(metric, lower) if metric is not None or not buggy else None
    review = {key: kw.pop(key) for key in REVIEW_KEYS if key in kw}
    execution = {key: kw.pop(key) for key in EXECUTION_KEYS if key in kw}
    return Node(
        code=kw.pop("code", "print(1)\n"),
        plan=kw.pop("plan", f"a {task} plan"),
        task_type=task,
        parent_ids=tuple(p.id for p in parents),
        review=Review(metric=value, is_buggy=buggy, **review),
        execution=Execution(**execution),
        **kw,
    )


def full_node(parent_ids=()):
    return Node(
        code="# [SECTION: DATA]\nimport pandas as pd\n",
        plan="Use gradient boosting ✓",
        task_type="merge",
        parent_ids=parent_ids,
        genes={"DATA": "import pandas as pd\n", "MODEL": "m = 1\n"},
        agent_id="agent-2",
        created_at=1712345678.123456,
        epoch=3,
        generation=4,
        fitness=-0.125,
        meta=NodeMeta(
            validation_source=ValidationSource.HARNESS,
            claimed_metric=0.5,
            crossover_plan={"DATA": 0, "MODEL": 1},
            extra={"crossover": {"DATA": "a", "MODEL": "b"}, "tags": [1, 2.5, None]},
        ),
        execution=Execution(
            term_out="line\n" * 50 + "Traceback ...\n",
            exec_time=12.75,
            exit_code=1,
            timed_out=True,
            oom_killed=True,
            exc_type="KeyError",
            exc_info={"args": ["'x'"], "note": None},
            exc_stack=[("solution.py", 12, "<module>", "df['x']"), ("pandas/core.py", 3, "get", None)],
        ),
        review=Review(
            analysis="Fails on a missing column.",
            metric=MetricValue(0.125, True),
            is_buggy=True,
            bug_reason="The code reads column 'x' which the data does not have.",
            metric_conflict=True,
        ),
    )


# -- nodes ----------------------------------------------------------------------------------------


def test_node_defaults_and_parent_id():
    node = Node(code="x = 1")
    assert len(node.id) == 32 and int(node.id, 16) >= 0
    assert node.parent_id is None and node.parent_ids == ()
    assert Node(parent_ids=["a", "b"], task_type="merge").parent_id == "a"
    assert Node().id != Node().id


def test_the_direction_is_the_metrics_and_is_saved_beside_it():
    node = make(metric=0.5)
    assert node.lower_is_better is node.metric.lower_is_better and Node().lower_is_better is None
    data = node.to_dict()
    keys = list(data)
    assert data["lower_is_better"] == node.metric.lower_is_better  # the saved key, as journals have it
    assert keys.index("lower_is_better") == keys.index("bug_reason") + 1
    assert Node.from_dict(data).to_dict() == data
    with pytest.raises(
        JournalError, match="lower_is_better is True beside a metric whose lower_is_better is"
    ):
        Node.from_dict({**data, "lower_is_better": not node.metric.lower_is_better})
    with pytest.raises(JournalError, match="beside no metric"):
        Node.from_dict({**data, "metric": None, "lower_is_better": True})


def test_node_rejects_bad_task_type_and_gene_names():
    with pytest.raises(JournalError, match="task_type 'fix'"):
        Node(task_type="fix")
    with pytest.raises(JournalError, match="unknown gene sections"):
        Node(genes={"data": "x"})
    with pytest.raises(JournalError, match="not a string"):
        Node(parent_ids="abc")


def test_term_out_kept_whole_and_trimmed_for_prompts():
    out = "".join(f"line {i}\n" for i in range(5000))
    node = Node(execution=Execution(term_out=out))
    assert node.term_out == out
    short = node.term_out_for_prompt(1000)
    assert len(short) <= 1000
    assert short.startswith("line 0\n") and short.endswith("line 4999\n")
    assert "chars" in short and "cut" in short
    assert node.term_out_for_prompt(10**6) == out


# -- DAG queries -----------------------------------------------------------------------------------


@pytest.fixture
def tree():
    j = Journal()
    d1 = j.append(make("draft", metric=0.70))
    d2 = j.append(make("draft", buggy=True, bug_reason="NameError"))
    i1 = j.append(make("improve", [d1], metric=0.80))
    i2 = j.append(make("improve", [d1], metric=0.75))
    g1 = j.append(make("debug", [d2], buggy=True))
    g2 = j.append(make("debug", [g1], buggy=True))
    g3 = j.append(make("debug", [g2], metric=0.60))
    m1 = j.append(make("merge", [i1, g3], metric=0.85))
    return j, dict(d1=d1, d2=d2, i1=i1, i2=i2, g1=g1, g2=g2, g3=g3, m1=m1)


def test_append_assigns_steps_in_order(tree):
    j, n = tree
    assert [node.step for node in j] == list(range(8))
    assert len(j) == 8 and n["m1"].id in j and "nope" not in j
    assert j[n["i2"].id] is n["i2"] and j.get(n["i2"].id) is n["i2"]


def test_append_rejects_unknown_parent_and_duplicate(tree):
    j, n = tree
    with pytest.raises(JournalError, match="not in the journal"):
        j.append(Node(task_type="improve", parent_ids=("ghost",)))
    with pytest.raises(JournalError, match="already in the journal"):
        j.append(n["d1"])
    with pytest.raises(KeyError, match="ghost"):
        j.get("ghost")


def test_node_lists(tree):
    j, n = tree
    assert j.draft_nodes() == [n["d1"], n["d2"]]
    assert j.buggy_nodes() == [n["d2"], n["g1"], n["g2"]]
    assert j.good_nodes() == [n["d1"], n["i1"], n["i2"], n["g3"], n["m1"]]


def test_children_parents_siblings(tree):
    j, n = tree
    assert j.children(n["d1"]) == [n["i1"], n["i2"]]
    assert j.children(n["i1"].id) == [n["m1"]]
    assert j.children(n["g3"]) == [n["m1"]]
    assert j.parents(n["m1"]) == [n["i1"], n["g3"]]
    assert n["m1"].parent_id == n["i1"].id
    assert j.siblings(n["i1"]) == [n["i2"]]
    assert j.siblings(n["d1"]) == [n["d2"]]  # roots are siblings of each other
    assert j.siblings(n["m1"]) == []


def test_is_leaf(tree):
    j, n = tree
    leaves = {name for name, node in n.items() if j.is_leaf(node)}
    assert leaves == {"i2", "m1"}


def test_debug_depth_on_a_chain(tree):
    j, n = tree
    assert [j.debug_depth(n[k]) for k in ("d2", "g1", "g2", "g3", "m1", "d1")] == [0, 1, 2, 3, 0, 0]
    # a debug of an improve restarts the count
    fix = j.append(make("debug", [n["i2"]], buggy=True))
    fix2 = j.append(make("debug", [fix], buggy=True))
    assert j.debug_depth(fix) == 1 and j.debug_depth(fix2.id) == 2


def test_best_node_and_best_k_higher_is_better(tree):
    j, n = tree
    assert j.best_node() is n["m1"]
    assert j.best_k(3) == [n["m1"], n["i1"], n["i2"]]
    assert j.best_k(0) == []
    assert len(j.best_k(100)) == 5
    with pytest.raises(ValueError, match="k must be"):
        j.best_k(-1)


def test_best_node_lower_is_better_and_only_good():
    j = Journal()
    a = j.append(make(metric=0.30, lower=True))
    b = j.append(make(metric=0.10, lower=True, buggy=True))
    c = j.append(make(metric=0.20, lower=True))
    j.append(make(metric=float("nan"), lower=True))
    j.append(make(metric=None, lower=True))
    assert j.best_node() is c
    assert j.best_node(only_good=False) is b
    assert j.best_k(5) == [c, a]


def test_best_node_ties_pick_earliest_and_none_when_empty():
    j = Journal()
    assert j.best_node() is None
    first = j.append(make(metric=0.5))
    j.append(make(metric=0.5))
    assert j.best_node() is first
    assert j.best_k(2)[0] is first


def test_the_best_deliverable_skips_nodes_flagged_inconsistent_while_another_is_not():
    j = Journal()
    flagged = j.append(make(metric=0.9, meta=NodeMeta(consistency={"consistent": False})))
    checked = j.append(make(metric=0.7, meta=NodeMeta(consistency={"consistent": True})))
    unchecked = j.append(make(metric=0.8))
    assert flagged.inconsistent and not checked.inconsistent and not unchecked.inconsistent
    assert j.best_node() is flagged and j.best_deliverable() is unchecked
    assert j.deliverable_nodes() == [checked, unchecked]
    checked.meta.consistency = unchecked.meta.consistency = {"consistent": False}
    assert j.best_deliverable() is flagged  # every good node flagged: the flags choose nothing


def test_unreviewed_nodes_are_neither_good_nor_buggy():
    j = Journal([Node(code="x=1")])
    assert j.good_nodes() == [] and j.buggy_nodes() == []
    assert memory_summary(j) == "No solutions have been tried yet."


# -- serialisation ----------------------------------------------------------------------------------


def test_json_round_trip_is_lossless(tree, tmp_path):
    j, n = tree
    parent = j.append(full_node(parent_ids=(n["i1"].id, n["i2"].id)))
    j.append(make("debug", [parent], metric=0.9))
    again = Journal.from_json(j.to_json())
    assert again == j
    assert again.to_json() == j.to_json()
    loaded = again.get(parent.id)
    assert (
        loaded.execution == parent.execution and loaded.review == parent.review
    )  # the step record, as values
    assert loaded.exc_stack == parent.exc_stack and isinstance(loaded.exc_stack[0], tuple)
    assert loaded.parent_ids == parent.parent_ids and isinstance(loaded.parent_ids, tuple)
    assert loaded.metric == MetricValue(0.125, True)
    assert loaded.meta == parent.meta and loaded.meta.validation_source is ValidationSource.HARNESS
    assert loaded.meta.extra == {"crossover": {"DATA": "a", "MODEL": "b"}, "tags": [1, 2.5, None]}
    assert again.children(n["i1"].id)[-1].id == parent.id
    saved = j.save(tmp_path / "sub" / "journal.jsonl")
    assert Journal.load(saved) == j
    assert [p.name for p in saved.parent.iterdir()] == ["journal.jsonl"]  # no temp file left, no sidecar


@pytest.mark.parametrize(
    ("fitness", "exec_time", "saved"),
    [
        (float("-inf"), float("nan"), ("-inf", "nan")),
        (float("inf"), float("inf"), ("inf", "inf")),
        (None, 0.0, (None, 0.0)),
        (-2.5, None, (-2.5, None)),
    ],
)
def test_non_finite_floats_round_trip(tmp_path, fitness, exec_time, saved):
    node = make(metric=0.5, fitness=fitness, exec_time=exec_time)
    text = Journal([node]).to_json()
    data = json.loads(text)["nodes"][0]
    assert (data["fitness"], data["exec_time"]) == saved  # strict JSON: no NaN/Infinity tokens
    Journal([node]).save(tmp_path / "j.json")
    for again in (Journal.from_json(text)[node.id], Journal.load(tmp_path / "j.json")[node.id]):
        for name, value in (("fitness", fitness), ("exec_time", exec_time)):
            got = getattr(again, name)
            if value is None:
                assert got is None
            elif math.isnan(value):
                assert math.isnan(got)
            else:
                assert got == value and type(got) is float


@pytest.mark.parametrize("bad", ["fast", "Infinity", True, [1.0]])
def test_bad_saved_float_names_node_and_field(bad):
    data = json.loads(Journal([make(metric=0.5)]).to_json())
    data["nodes"][0]["exec_time"] = bad
    with pytest.raises(JournalError, match=rf"node {data['nodes'][0]['id']}: exec_time must be a number"):
        Journal.from_dict(data)


def test_meta_is_json_data_tuples_come_back_as_lists():
    node = make(
        metric=0.5, meta=NodeMeta(missing_genes=("DATA",), extra={"pair": (1, 2), "nested": {"k": [1, "a"]}})
    )
    again = Journal.from_json(Journal([node]).to_json())[node.id]
    assert again.meta.to_dict() == {"missing_genes": ["DATA"], "pair": [1, 2], "nested": {"k": [1, "a"]}}
    assert again.meta.missing_genes == ["DATA"] and again.meta.extra == {
        "pair": [1, 2],
        "nested": {"k": [1, "a"]},
    }


def test_unserialisable_meta_names_the_node():
    node = make(metric=0.5)
    node.meta.extra["obj"] = object()
    with pytest.raises(JournalError, match=node.id):
        Journal([node]).to_json()


def test_save_is_atomic_on_failure(tmp_path):
    path = tmp_path / "j.json"
    Journal([make(metric=0.1)]).save(path)
    before = path.read_text()
    bad = make(metric=0.2)
    bad.meta.extra["x"] = {1, 2}
    with pytest.raises(JournalError):
        Journal([bad]).save(path)
    assert path.read_text() == before
    assert os.listdir(tmp_path) == ["j.json"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"nodes": []}', "not a swarm journal"),
        ('{"format": "swarm-journal", "version": 99, "nodes": []}', "unsupported journal version"),
        ('{"format": "swarm-journal", "version": 1, "nodes": {}}', "must be a list"),
        ('{"format": "swarm-journal", "version": 1, "nodes": [{"code": "x"}]}', "has no 'id'"),
        ('{"format": "swarm-journal", "version": 1, "nodes": [{"id": "a", "colour": 1}]}', "unknown fields"),
        (
            '{"format": "swarm-journal", "version": 1, "nodes": [{"id": "a", "metric": {"value": 1}}]}',
            "bad metric",
        ),
        (
            '{"format": "swarm-journal", "version": 1, "nodes": [{"id": "a"}, {"id": "a"}]}',
            "duplicate node id",
        ),
        ('{"format": "swarm-journal", "version": 1, "nodes": [{"id": "a", "step": 5}]}', "saved with step 5"),
    ],
)
def test_from_json_rejects_bad_input_clearly(text, message):
    with pytest.raises(JournalError, match=message):
        Journal.from_json(text)


def test_load_missing_file_names_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.json"):
        Journal.load(tmp_path / "nope.json")


def test_load_error_names_the_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("[]")
    with pytest.raises(JournalError, match="broken.json"):
        Journal.load(path)


# -- validation -------------------------------------------------------------------------------------


def _raw(nodes):
    return json.dumps({"format": "swarm-journal", "version": 1, "nodes": nodes})


def test_validate_finds_unknown_parent_and_cycle():
    text = _raw(
        [
            {"id": "a", "task_type": "improve", "parent_ids": ["c"]},
            {"id": "b", "task_type": "improve", "parent_ids": ["a"]},
            {"id": "c", "task_type": "improve", "parent_ids": ["b"]},
            {"id": "d", "task_type": "improve", "parent_ids": ["ghost"]},
            {"id": "e", "task_type": "improve", "parent_ids": ["e"]},
        ]
    )
    with pytest.raises(JournalError) as info:
        Journal.from_json(text)
    message = str(info.value)
    assert "unknown parent ghost" in message
    assert "e is its own parent" in message
    assert "cycle: " in message and "a" in message.split("cycle: ")[1]
    # loading without validation still works and the problem is found later
    j = Journal.from_json(text, validate=False)
    assert len(j) == 5
    with pytest.raises(JournalError, match="cycle"):
        j.validate()
    assert j.debug_depth("a") == 0


def test_validate_catches_duplicate_parent_and_passes_good_journal(tree):
    j, n = tree
    j.validate()
    j2 = Journal.from_json(
        _raw([{"id": "a"}, {"id": "b", "task_type": "merge", "parent_ids": ["a", "a"]}]), False
    )
    with pytest.raises(JournalError, match="lists a parent twice"):
        j2.validate()


def test_debug_depth_terminates_on_a_debug_cycle():
    text = _raw(
        [
            {"id": "a", "task_type": "debug", "parent_ids": ["b"]},
            {"id": "b", "task_type": "debug", "parent_ids": ["a"]},
        ]
    )
    j = Journal.from_json(text, validate=False)
    assert j.debug_depth("a") == 2


# -- memory summary ---------------------------------------------------------------------------------


def test_memory_summary_marks_buggy_and_best(tree):
    j, n = tree
    text = memory_summary(j, max_chars=10_000)
    assert "[BUGGY]: NameError" in text
    assert text.count("[BUGGY]") == 3
    assert text.count("- Step") == 8
    assert "metric 0.85 (higher is better)" in text
    assert text.index("Step 7 (merge) [BEST]") < text.index("Step 6 (debug)")  # best first
    assert "left out" not in text
    assert "```python" not in text
    with_code = memory_summary(j, max_chars=10_000, include_code=True)
    assert with_code.count("```python") == 8


def test_memory_summary_prefers_newest_after_best(tree):
    j, n = tree
    text = memory_summary(j, max_chars=420, num_best=1)
    assert len(text) <= 420
    assert "Step 7 (merge) [BEST]" in text
    assert "Step 6 (debug)" in text
    assert "Step 0 (draft)" not in text
    assert "more entries left out" in text


@pytest.mark.parametrize("budget", [0, 1, 10, 50, 80, 150, 500, 3000])
def test_memory_summary_never_exceeds_small_budgets(tree, budget):
    j, _ = tree
    assert len(memory_summary(j, max_chars=budget, include_code=True)) <= budget
    with pytest.raises(ValueError, match="max_chars"):
        memory_summary(j, max_chars=-1)


def test_memory_summary_budget_with_10k_nodes():
    rng = random.Random(0)
    j = Journal()
    for i in range(10_000):
        parents = [] if i % 40 == 0 else [j.nodes[rng.randrange(len(j.nodes))]]
        buggy = rng.random() < 0.3
        j.append(
            make(
                "draft" if not parents else rng.choice(["improve", "debug"]),
                parents,
                metric=None if buggy else rng.random(),
                buggy=buggy,
                bug_reason="ValueError: " + "x" * rng.randrange(2000) if buggy else None,
                plan="p" * rng.randrange(3000),
                code="y = 1\n" * rng.randrange(500),
                analysis="a" * rng.randrange(1000),
            )
        )
    best = j.best_node()
    for budget in (200, 2000, 8000, 30_000):
        for include_code in (False, True):
            text = memory_summary(j, max_chars=budget, include_code=include_code)
            assert len(text) <= budget
            if budget >= 2000:
                assert f"Step {best.step} (" in text
                assert "more entries left out" in text
    assert f"Step {len(j) - 1} (" in memory_summary(j, max_chars=8000)
