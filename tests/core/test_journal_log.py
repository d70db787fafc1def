"""The append-only journal file: a save writes the new nodes and changed fields only, a torn last line is
dropped, old journal.json runs migrate once, and snapshots rebuild the journal as it was."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import pytest

from swarm.atomic import read_json
from swarm.journal import Journal, JournalError, Node, NodeMeta, fields_path, write_journal_prefix
from swarm.journal.step_record import Review
from swarm.metric import MetricValue
from swarm.pipeline.snapshots import branch_from_snapshot, write_snapshot
from swarm.pipeline.state import RunPaths, RunState, load_journal, migrate_journal


def node(parent: Node | None = None, metric: float = 0.5, **kwargs) -> Node:
    return Node(
        code=f"print({metric})\n" * 20,
        task_type="improve" if parent else "draft",
        parent_ids=(parent.id,) if parent else (),
        fitness=metric,
        generation=0,
        **kwargs,
        review=Review(metric=MetricValue(metric, False), is_buggy=False),
    )


def grown(count: int) -> Journal:
    journal = Journal()
    previous = None
    for i in range(count):
        previous = journal.append(node(previous, metric=i / 100))
    return journal


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def state_of(journal: Journal) -> list[tuple[str, float | None, int | None]]:
    return [(n.id, n.fitness, n.generation) for n in journal]


def test_a_save_appends_only_the_new_nodes(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = grown(30)
    journal.save(path)
    before = path.read_bytes()
    new = journal.append(node(journal.nodes[-1], metric=0.9))
    journal.save(path)
    after = path.read_bytes()
    assert after.startswith(before)  # nothing written before is touched
    added = after[len(before) :]
    assert added.endswith(b"\n") and added.count(b"\n") == 1
    assert json.loads(added)["id"] == new.id
    assert not fields_path(path).exists()  # no field changed after its node was saved
    assert Journal.load(path) == journal
    assert json.loads(lines(path)[0])["version"] == 2


def test_a_save_with_nothing_new_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = grown(5)
    journal.nodes[0].fitness = math.nan  # NaN is not "changed" on every save
    journal.save(path)
    journal.nodes[1].fitness = math.nan
    journal.save(path)
    stats = path.stat(), fields_path(path).stat()
    journal.save(path)
    Journal.load(path).save(path)
    assert (path.stat(), fields_path(path).stat()) == stats  # same inodes, sizes and times: untouched


def test_changed_fields_go_to_the_sidecar_and_lines_never_change(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = grown(10)
    journal.save(path)
    body = lines(path)[1:]
    journal.nodes[2].fitness, journal.nodes[7].generation = 0.99, 4
    journal.save(path)
    assert lines(path)[1:] == body
    sidecar = read_json(fields_path(path))
    assert sidecar["journal"] == json.loads(lines(path)[0])["id"]
    assert sidecar["nodes"] == {
        journal.nodes[2].id: {"fitness": 0.99},  # only the fields that changed
        journal.nodes[7].id: {"generation": 4},
    }
    loaded = Journal.load(path)
    assert state_of(loaded) == state_of(journal)
    loaded.nodes[2].fitness = 0.02  # back to its line's value: no longer an override
    loaded.save(path)
    assert set(read_json(fields_path(path))["nodes"]) == {journal.nodes[7].id}


@pytest.mark.parametrize("kept", [0, 1, 40, -2, -1])
def test_a_kill_mid_append_leaves_a_loadable_journal(tmp_path: Path, caplog, kept: int) -> None:
    """A kill at any byte of an append: the torn line is dropped with a warning, and the next save cuts it
    off before appending."""
    path = tmp_path / "journal.jsonl"
    journal = grown(3)
    journal.save(path)
    line = json.dumps(node(journal.nodes[-1]).to_dict()).encode() + b"\n"
    with path.open("ab") as handle:
        handle.write(line[: len(line) + kept if kept < 0 else kept])
    with caplog.at_level(logging.WARNING, logger="swarm.journal"):
        loaded = Journal.load(path)
    assert loaded == journal
    assert ("torn last line" in caplog.text) == (kept != 0)
    loaded.append(node(loaded.nodes[-1], metric=0.7))
    loaded.save(path)
    again = Journal.load(path)
    assert [n.id for n in again] == [n.id for n in loaded]
    assert all(json.loads(text) for text in lines(path))  # the torn bytes are gone


def test_zeros_at_the_end_count_as_torn(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    grown(2).save(path)
    with path.open("ab") as handle:
        handle.write(b"\0" * 64)
    assert len(Journal.load(path)) == 2


def test_a_broken_line_in_the_middle_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    grown(3).save(path)
    text = lines(path)
    text[2] = text[2][:50]
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(JournalError, match=r"journal.jsonl: line 3 is not a complete JSON record"):
        Journal.load(path)


def test_a_node_that_cannot_be_written_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = grown(2)
    journal.save(path)
    before = path.read_bytes()
    bad = journal.append(node(journal.nodes[-1]))
    bad.meta.extra["x"] = {1, 2}
    with pytest.raises(JournalError, match=bad.id):
        journal.save(path)
    assert path.read_bytes() == before
    bad.meta.extra.clear()
    journal.save(path)
    assert Journal.load(path) == journal


def test_a_file_changed_by_someone_else_is_written_whole(tmp_path: Path, caplog) -> None:
    path = tmp_path / "journal.jsonl"
    journal = grown(3)
    journal.save(path)
    with path.open("ab") as handle:
        handle.write(b"planted\n")  # a complete line no save wrote
    journal.nodes[0].fitness = 0.5
    journal.append(node(journal.nodes[-1]))
    with caplog.at_level(logging.WARNING, logger="swarm.journal"):
        journal.save(path)
    assert "writing it whole" in caplog.text
    assert state_of(Journal.load(path)) == state_of(journal)
    assert "planted" not in path.read_text()


def test_a_whole_rewrite_keeps_lines_as_recorded_and_fields_in_the_header(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    journal = grown(4)
    journal.save(first)
    journal.nodes[1].fitness = 0.8
    journal.save(first)
    journal.save(second)  # another file: written whole
    header = json.loads(lines(second)[0])
    assert header["fields"] == {journal.nodes[1].id: {"fitness": 0.8}}
    assert json.loads(lines(second)[2])["fitness"] == 0.01  # the line as it was recorded
    assert not fields_path(second).exists()
    assert state_of(Journal.load(second)) == state_of(journal)


def test_a_stale_sidecar_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = grown(3)
    journal.save(path)
    journal.nodes[0].fitness = 0.5
    journal.save(path)
    stale = fields_path(path).read_text()
    fresh = grown(3)
    fresh.save(path)  # a new journal written whole there (new token)
    fields_path(path).write_text(stale.replace(journal.nodes[0].id, fresh.nodes[0].id))
    assert Journal.load(path).nodes[0].fitness == 0.0


def test_prefix_rebuilds_the_journal_as_it_was(tmp_path: Path) -> None:
    path, copy = tmp_path / "journal.jsonl", tmp_path / "copy.jsonl"
    journal = grown(6)
    journal.nodes[1].fitness = 0.3
    journal.save(path)
    journal.nodes[2].fitness = 0.4
    journal.save(path)
    then_nodes, then_fields, then = len(journal), journal.field_overrides(), state_of(journal)
    for extra in range(3):  # the run goes on: more nodes, fields change again, even a whole rewrite
        journal.append(node(journal.nodes[-1], metric=0.6 + extra / 10))
        journal.nodes[2].fitness = journal.nodes[3].fitness = 0.9 + extra / 100
        journal.save(path)
    path.write_bytes(path.read_bytes() + b"{torn")
    journal.save(path)
    write_journal_prefix(path, copy, then_nodes, then_fields)
    assert state_of(Journal.load(copy)) == then
    with pytest.raises(JournalError, match="fewer than the 99"):
        write_journal_prefix(path, copy, 99, {})


def test_load_reads_the_old_whole_document(tmp_path: Path) -> None:
    journal = grown(3)
    for indent in (None, 2):
        path = tmp_path / f"journal{indent}.json"
        path.write_text(journal.to_json(indent=indent))
        assert Journal.load(path) == journal


def legacy_run(tmp_path: Path, journal: Journal) -> RunPaths:
    paths = RunPaths(tmp_path / "run")
    paths.root.mkdir()
    paths.legacy_journal.write_text(journal.to_json())
    return paths


def test_an_old_run_dir_migrates_once_and_keeps_its_old_file(tmp_path: Path) -> None:
    journal = grown(4)
    paths = legacy_run(tmp_path, journal)
    old = paths.legacy_journal.read_text()
    assert load_journal(paths) == journal  # read as it is before a resume migrates it
    assert migrate_journal(paths)
    assert not paths.legacy_journal.exists() and paths.migrated_journal.read_text() == old
    assert load_journal(paths) == journal
    assert not migrate_journal(paths)
    loaded = load_journal(paths)
    loaded.append(node(loaded.nodes[-1]))
    loaded.save(paths.journal)  # appends to the migrated file
    assert len(load_journal(paths)) == 5


def test_a_kill_during_migration_is_finished_by_the_next_one(tmp_path: Path) -> None:
    journal = grown(2)
    paths = legacy_run(tmp_path, journal)
    Journal.load(paths.legacy_journal).save(paths.journal)  # killed before the rename
    assert migrate_journal(paths)
    assert load_journal(paths) == journal and paths.migrated_journal.is_file()


def run_dir(tmp_path: Path) -> tuple[RunPaths, RunState]:
    paths = RunPaths(tmp_path / "run")
    paths.root.mkdir()
    paths.config.write_text("{}\n")
    Journal().save(paths.journal)
    return paths, RunState(run_id="r", competition="c")


def test_snapshots_count_nodes_and_branches_rebuild_the_journal_of_then(tmp_path: Path) -> None:
    paths, state = run_dir(tmp_path)
    journal = load_journal(paths)
    for _ in range(4):
        journal.append(node(journal.nodes[-1] if journal.nodes else None))
    journal.save(paths.journal)
    journal.nodes[0].fitness = 0.25  # an epoch's end sets the population's fitness again
    snapshot = write_snapshot(paths, 1, journal, state)
    then = state_of(journal)
    saved = read_json(snapshot)
    assert "journal" not in saved and saved["journal_nodes"] == 4
    assert saved["journal_fields"] == {journal.nodes[0].id: {"fitness": 0.25}}
    assert state_of(load_journal(paths)) == then  # the snapshot saved the journal first

    journal.nodes[0].fitness = journal.nodes[1].fitness = 0.75  # epoch 2 goes on
    journal.append(node(journal.nodes[-1]))
    journal.save(paths.journal)

    branch = branch_from_snapshot(paths, 2)
    assert state_of(load_journal(branch)) == then
    assert len(load_journal(paths)) == 5  # the run itself is untouched
    copied = read_json(branch.epoch_snapshot(1))
    assert copied["journal_nodes"] == 4 and len(load_journal(branch)) == copied["journal_nodes"]


def test_a_snapshot_from_before_still_branches(tmp_path: Path) -> None:
    paths, state = run_dir(tmp_path)
    journal = grown(3)
    journal.nodes[0].fitness = 0.5
    old = {
        "epoch": 1,
        "state": state.model_dump(mode="json"),
        "journal": journal.to_dict(),
        "experience_lines": 0,
    }
    paths.epoch_snapshot(1).parent.mkdir(parents=True)
    paths.epoch_snapshot(1).write_text(json.dumps(old))
    branch = branch_from_snapshot(paths, 2)
    assert state_of(load_journal(branch)) == state_of(journal)


@pytest.mark.parametrize("block", [1, 7, 1 << 24])
def test_lines_are_read_whole_across_blocks(block: int) -> None:
    import io

    from swarm.journal.store import _lines

    data = b"first\n" + b"x" * 20 + b"\n\nlast without newline"
    assert list(_lines(io.BytesIO(data), block)) == [
        (b"first", True),
        (b"x" * 20, True),
        (b"", True),
        (b"last without newline", False),
    ]


def test_values_the_fast_parser_refuses_still_load(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = grown(1)
    journal.append(
        node(journal.nodes[0], meta=NodeMeta(thinking="naïve ✓", extra={"big": 2**70 + 1, "text": "naïve ✓"}))
    )
    journal.save(path)
    assert Journal.load(path).nodes[1].meta.to_dict() == {
        "thinking": "naïve ✓",
        "big": 2**70 + 1,
        "text": "naïve ✓",
    }
