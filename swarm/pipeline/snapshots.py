"""Epoch snapshots and rerun branches.

After epoch k the run writes `epochs/<k>/state.json`: the state, how many journal nodes, experience records and
model calls existed, the journal's mutable fields then (`Journal.field_overrides`: the few nodes whose GA fitness
changed after they were recorded), and which agent text versions were current. Its size does not grow with the
journal. Rerunning epoch k starts a new branch `branches/<name>/` from the snapshot of epoch k-1: the journal
(its first nodes, whose lines never change, with the fields of then), the pool and the usage log as they were
then, the agent texts as they were then (later versions stay on disk, not current). The original run is never
touched. Epoch 0's snapshot is the empty run. Snapshots written before the append-only journal hold the whole
journal (`"journal"`), and branch as they did.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from swarm.atomic import read_json, write_json_atomic, write_text_atomic
from swarm.journal import Journal, write_journal_prefix
from swarm.pipeline.state import RunPaths, RunState, save_state


def _complete_lines(path: Path) -> int:
    if not path.is_file():
        return 0
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.endswith(b"\n"))


def write_snapshot(paths: RunPaths, epoch: int, journal: Journal, state: RunState) -> Path:
    """Snapshot the run after `epoch`. The journal is saved first (its new nodes and changed fields), so the
    nodes the snapshot counts are on disk."""
    journal.save(paths.journal)
    target = paths.epoch_snapshot(epoch)
    lineage = paths.root / "skills" / "meta" / "lineage.json"
    write_json_atomic(
        target,
        {
            "epoch": epoch,
            "written_at": time.time(),
            "state": state.model_dump(mode="json"),
            "journal_nodes": len(journal),
            "journal_fields": journal.field_overrides(),
            "experience_lines": _complete_lines(paths.experience),
            "usage_lines": _complete_lines(paths.usage),
            "agent_lineage": read_json(lineage) if lineage.is_file() else None,
            "dispatcher": read_json(paths.dispatcher) if paths.dispatcher.is_file() else None,
        },
    )
    return target


def branch_from_snapshot(paths: RunPaths, epoch: int, name: str | None = None) -> RunPaths:
    """A new branch of the run holding the state from before `epoch`, ready to run `epoch` again."""
    source = paths.epoch_snapshot(epoch - 1)
    if not source.is_file():
        raise FileNotFoundError(
            f"cannot rerun epoch {epoch} of {paths.root}: its starting snapshot {source} does not exist"
        )
    snapshot = read_json(source)
    name = name or f"epoch{epoch}-{time.strftime('%Y%m%d-%H%M%S')}"
    branch = paths.branch(name)
    if branch.state.exists():
        raise FileExistsError(f"branch {branch.root} already exists; pick another name")
    branch.root.mkdir(parents=True)
    shutil.copyfile(paths.config, branch.config)
    for sub in ("agent_configs", "skills", "prompts"):
        if (paths.root / sub).is_dir():
            shutil.copytree(paths.root / sub, branch.root / sub)
    _copy_lines(paths.experience, branch.experience, snapshot["experience_lines"])
    if "usage_lines" in snapshot:  # the spend so far counts against the branch's cap too
        _copy_lines(paths.usage, branch.usage, snapshot["usage_lines"])
    if snapshot.get("dispatcher"):
        write_json_atomic(branch.dispatcher, snapshot["dispatcher"])
    if snapshot.get("agent_lineage"):
        _restore_agent_texts(branch.root, snapshot["agent_lineage"])
    if "journal" in snapshot:  # written before the append-only journal: the whole journal
        Journal.from_dict(snapshot["journal"]).save(branch.journal)
    else:
        write_journal_prefix(
            paths.journal, branch.journal, snapshot["journal_nodes"], snapshot["journal_fields"]
        )
    state = RunState.model_validate(snapshot["state"])
    state.branch = name
    state.pending = []
    state.stopped_reason = None
    state.finished = False
    state.meta["branched_from"] = {"run": str(paths.root), "epoch": epoch - 1}
    save_state(branch, state)
    write_json_atomic(branch.epoch_snapshot(epoch - 1), snapshot)
    return branch


def _restore_agent_texts(root: Path, lineage: dict) -> None:
    """Make the agent texts current at the snapshot current again in a branch (every version file stays)."""
    meta = root / "skills" / "meta"
    known = {
        (agent, part, entry["version"])
        for agent, parts in lineage["agents"].items()
        for part, record in parts.items()
        for entry in record["versions"]
    }
    history_path = meta / "history.json"
    if history_path.is_file():
        history = read_json(history_path)
        kept = [e for e in history if (e["agent_id"], e["part"], e["version"]) in known]
        write_json_atomic(history_path, kept)
    for agent, parts in lineage["agents"].items():
        for part, record in parts.items():
            entry = next(e for e in record["versions"] if e["version"] == record["current"])
            shutil.copyfile(root / entry["path"], root / "agent_configs" / agent / f"{part}.md")
    write_json_atomic(meta / "lineage.json", lineage)


def _copy_lines(source: Path, target: Path, count: int) -> None:
    lines: list[str] = []
    if source.is_file():
        with source.open(encoding="utf-8") as handle:
            for line in handle:
                if len(lines) >= count:
                    break
                lines.append(line)
    write_text_atomic(target, "".join(lines))
