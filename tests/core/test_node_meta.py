"""A node's NodeMeta: typed fields for what the steps record, other keys kept in `extra`, and a saved node's
meta written back exactly as it was read (data/journal_written_by_main.jsonl: a journal as main wrote it when
meta was a plain dict, at 489fdd1: every key steps.py writes, nulls, and keys NodeMeta does not know)."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import pickle
import shutil
from pathlib import Path

import pytest

from swarm.journal import Journal, JournalError, Node, NodeMeta
from swarm.metric import ValidationSource

FIXTURE = Path(__file__).parent / "data" / "journal_written_by_main.jsonl"
FIELDS = [f.name for f in dataclasses.fields(NodeMeta) if f.name != "extra"]
# Fields added after the fixture was written (a step's replies; the harness's consistency check; the score's
# interval; the step's timings); the fixture sets all the others.
LATER_FIELDS = {
    "reply_head",
    "reasked",
    "review_error",
    "review_overruled",
    "consistency",
    "score_interval",
    "score_se",
    "score_interval_note",
    "score_warning",
    "timings",
}
FIXTURE_FIELDS = [name for name in FIELDS if name not in LATER_FIELDS]


def node_lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()[1:]  # the header's token differs between writes


def test_a_journal_written_before_nodemeta_is_written_back_byte_identical(tmp_path: Path) -> None:
    journal = Journal.load(FIXTURE)
    first, every, extra = journal.nodes
    # the fixture sets every field it knew, in the order steps.py sets them
    assert list(every.meta.to_dict()) == FIXTURE_FIELDS
    assert every.meta.validation_source is ValidationSource.HARNESS and every.meta.claimed_metric == 0.9
    assert every.meta.crossover_plan == {"DATA": 0, "MODEL": 1} and every.meta.missing_genes == ["DATA"]
    assert every.meta.metric_conflict["claimed_metric"] == 0.95 and every.meta.extra == {}
    assert first.meta.submission_path is None and "submission_path" in first.meta.to_dict()  # a null kept
    assert first.meta.validation_source is ValidationSource.SOLUTION and first.meta.gene is None
    assert extra.meta.extra == {
        "crossover": {"DATA": "a", "MODEL": "b"},
        "tags": [1, 2.5, None],
        "text": "naïve ✓",
    }
    assert extra.meta.agent_versions == {} and extra.meta.search_mode == "final"

    rewritten = journal.save(
        tmp_path / "journal.jsonl"
    )  # another file: every line written again from the nodes
    assert node_lines(rewritten) == node_lines(FIXTURE)
    saved = [json.loads(line)["meta"] for line in node_lines(FIXTURE)]
    assert [n.to_dict()["meta"] for n in journal.nodes] == saved
    assert [json.dumps(n.meta.to_dict(), ensure_ascii=False) for n in journal.nodes] == [
        json.dumps(meta, ensure_ascii=False) for meta in saved
    ]
    assert Journal.load(rewritten) == journal
    assert Journal.from_json(journal.to_json()).to_json() == journal.to_json()


def test_appending_to_a_journal_written_before_nodemeta_keeps_its_lines(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    shutil.copyfile(FIXTURE, path)
    journal = Journal.load(path)
    last = journal.nodes[-1]
    journal.append(Node(task_type="improve", parent_ids=(last.id,), meta=NodeMeta(plan_step=3, worker="w:1")))
    journal.save(path)
    assert path.read_bytes().startswith(FIXTURE.read_bytes())
    assert json.loads(path.read_bytes().splitlines()[-1])["meta"] == {"plan_step": 3, "worker": "w:1"}


def test_a_field_is_saved_when_set_none_included_in_the_order_first_set() -> None:
    meta = NodeMeta(
        agent_versions={}, plan_step=0, worker="w:1", gene=None
    )  # None to the constructor: not set
    assert meta.to_dict() == {"agent_versions": {}, "plan_step": 0, "worker": "w:1"}
    meta.submission_path = None  # assigned: a null saved, as a step whose run left no submission
    meta.solution_submission_path = meta.submission_path
    meta.submission_path = "test.csv"  # set again: keeps its place
    meta.validation_source = ValidationSource.HARNESS
    meta.extra["old"] = 1
    saved = meta.to_dict()
    assert list(saved) == [
        "agent_versions",
        "plan_step",
        "worker",
        "submission_path",
        "solution_submission_path",
        "validation_source",
        "old",
    ]
    assert saved["solution_submission_path"] is None and saved["submission_path"] == "test.csv"
    assert type(saved["validation_source"]) is str and saved["validation_source"] == "harness"
    assert NodeMeta.from_dict(saved) == meta and NodeMeta.from_dict(saved).to_dict() == saved
    assert NodeMeta() != NodeMeta.from_dict({"gene": None})  # a saved null is not an absent key
    assert pickle.loads(pickle.dumps(meta)).to_dict() == saved and copy.deepcopy(meta).to_dict() == saved
    assert NodeMeta() == NodeMeta(gene=None) and NodeMeta().to_dict() == {}


def test_bad_saved_meta_names_the_node() -> None:
    data = Node(id="n1", meta=NodeMeta(validation_source=ValidationSource.HARNESS)).to_dict()
    data["meta"]["validation_source"] = "model"
    with pytest.raises(
        JournalError, match="node n1: bad meta: validation_source must be one of harness, solution"
    ):
        Node.from_dict(data)
    data["meta"] = ["not", "an", "object"]
    with pytest.raises(JournalError, match="node n1: bad meta: meta must be a JSON object, got list"):
        Node.from_dict(data)


def test_meta_is_a_nodemeta_and_extra_holds_no_field() -> None:
    with pytest.raises(JournalError, match="node n1: meta must be a NodeMeta, got dict"):
        Node(id="n1", meta={"gene": "MODEL"})  # type: ignore[arg-type]
    node = Node(id="n2")
    node.meta.extra["gene"] = "MODEL"
    with pytest.raises(
        JournalError, match=r"node n2: meta.extra holds \['gene'\], which are NodeMeta fields"
    ):
        Journal([node]).to_json()


def test_non_finite_meta_values_are_refused_as_before() -> None:
    node = Node(id="n1", meta=NodeMeta(claimed_metric=math.inf))
    with pytest.raises(JournalError, match="node n1 cannot be written as JSON"):
        Journal([node]).to_json()


def test_old_journal_lines_load_without_an_interval_and_a_new_one_round_trips(tmp_path: Path) -> None:
    journal = Journal.load(FIXTURE)  # written before nodes kept their score's interval
    assert all(n.meta.score_interval is None and n.meta.score_se is None for n in journal.nodes)
    assert all(n.meta.score_warning is None and n.meta.score_interval_note is None for n in journal.nodes)
    node = journal.nodes[1]
    node.meta.score_interval, node.meta.score_se = [0.74, 0.85], 0.028
    node.meta.score_warning = "only 12 held-out rows for 4 classes (about 3.0 a class): too few"
    reread = Journal.load(journal.save(tmp_path / "journal.jsonl"))
    meta = reread.nodes[1].meta
    assert meta.score_interval == [0.74, 0.85] and meta.score_se == 0.028
    assert meta.score_warning.startswith("only 12 held-out rows") and meta.score_interval_note is None
