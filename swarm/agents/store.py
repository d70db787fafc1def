"""Versioned agent configurations (role and strategies) inside a run directory.

The repo's `agent_configs/`, `skills/` and `prompts/` are seeds and are never modified by a run.
`AgentStore.seed_run` copies them into the run dir (`<run>/prompts/` holds the run's own Jinja2 templates);
agent evolution then writes new versions there, keeping every version:

    <run>/agent_configs/agent_0/role.md                 the current text (a convenience copy for readers)
    <run>/agent_configs/agent_0/versions/role.v1.md     the seed
    <run>/agent_configs/agent_0/versions/role.v2.md     written by write_version(..., parent_version="v1")
    <run>/skills/meta/lineage.json                      {"agents": {id: {part: {"current": "v2",
                                                          "versions": [{version, parent, path, sha256,
                                                          created_at, reason}, ...]}}}}
    <run>/skills/meta/history.json                      [{time, agent_id, part, version, parent_version,
                                                          reason}, ...] in write order

Parts are `role`, `strategy_explore`, `strategy_merge` and `strategy_mutate`. Writes hold an `fcntl` lock and
replace files atomically. Every node records `AgentProfile.versions` so the exact texts it was given can be
loaded again with `load(agent_id, versions)`.

API:
    store = AgentStore.seed_run(run_dir, source_root=REPO_ROOT)   # idempotent: an existing copy is reused
    store.agent_ids() -> list[str]
    store.current(agent_id) -> AgentProfile        # texts + version ids
    store.load(agent_id, versions=None) -> AgentProfile
    store.write_version(agent_id, part, text, reason, parent_version) -> str   # the new version id
    store.history() -> list[dict]
    read_seed_profile(agent_id, source_root=REPO_ROOT) -> AgentProfile       # repo seeds, versions "seed"
    prompt_assets_hash(templates_dir, skills_dir) -> str                     # record it on every node

`prompt_assets_hash` is a sha256 over the relative paths and bytes of every file of both dirs, except hidden
files (locks, temporary files) and the run's bookkeeping `skills/meta/lineage.json` and `history.json`
(agent texts are traced by their versions instead). It is the same for the repo's dirs and a run's fresh
copies, and changes whenever a template or a skill file does.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import re
import shutil
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swarm.atomic import PUBLIC, copy_tree_atomic, write_text_atomic

REPO_ROOT = Path(__file__).resolve().parents[2]
PARTS: tuple[str, ...] = ("role", "strategy_explore", "strategy_merge", "strategy_mutate")
STRATEGY_PART_BY_TASK: dict[str, str] = {
    "draft": "strategy_explore",
    "improve": "strategy_explore",
    "debug": "strategy_explore",
    "explore": "strategy_explore",
    "merge": "strategy_merge",
    "mutate": "strategy_mutate",
}
_VERSION_RE = re.compile(r"^v(\d+)$")
# Files of skills/meta/ that record a run's agent history; they are not prompt content.
_BOOKKEEPING: frozenset[str] = frozenset({"meta/lineage.json", "meta/history.json"})


class AgentStoreError(ValueError):
    """An agent, part or version does not exist, or a run dir is not seeded; the message says which."""


@dataclass(frozen=True)
class AgentProfile:
    """What one agent is told: its role and strategy texts, and the version id of each."""

    agent_id: str
    texts: Mapping[str, str]
    versions: Mapping[str, str] = field(default_factory=dict)

    @property
    def role(self) -> str:
        return self.texts["role"]

    def strategy(self, task_type: str) -> str:
        """The strategy text for a task type (draft/improve/debug share `strategy_explore`)."""
        try:
            return self.texts[STRATEGY_PART_BY_TASK[task_type]]
        except KeyError:
            raise AgentStoreError(
                f"no strategy for task type {task_type!r}; expected one of {', '.join(STRATEGY_PART_BY_TASK)}"
            ) from None


def read_seed_profile(agent_id: str, source_root: Path = REPO_ROOT) -> AgentProfile:
    """The repo's seed texts of `agent_id`, with every version id set to "seed"."""
    agent_dir = Path(source_root) / "agent_configs" / agent_id
    if not agent_dir.is_dir():
        raise AgentStoreError(f"no agent config dir {agent_dir}")
    texts = {part: _read_part(agent_dir / f"{part}.md") for part in PARTS}
    return AgentProfile(agent_id, texts, dict.fromkeys(PARTS, "seed"))


class AgentStore:
    """The versioned agent configurations of one run (see the module docstring for the layout)."""

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.configs_dir = self.run_dir / "agent_configs"
        self.meta_dir = self.run_dir / "skills" / "meta"
        self.lineage_path = self.meta_dir / "lineage.json"
        self.history_path = self.meta_dir / "history.json"
        if not self.lineage_path.is_file():
            raise AgentStoreError(
                f"run dir {self.run_dir} is not seeded (no {self.lineage_path}); "
                "call AgentStore.seed_run first"
            )

    @classmethod
    def seed_run(cls, run_dir: str | Path, source_root: str | Path = REPO_ROOT) -> AgentStore:
        """Copy the seeds into `run_dir` (once) and register every part as version v1.

        `<source_root>/prompts/` is copied to `<run_dir>/prompts/` when the run has none yet (also for a run
        seeded before templates were copied: from then on it keeps the templates it got)."""
        run_dir, source_root = Path(run_dir), Path(source_root)
        meta_dir = run_dir / "skills" / "meta"
        meta_dir.mkdir(parents=True, exist_ok=True)
        with _file_lock(meta_dir / ".lock"):
            _copy_templates(source_root / "prompts", run_dir / "prompts")
            if (meta_dir / "lineage.json").is_file():
                return cls(run_dir)
            src_configs, src_skills = source_root / "agent_configs", source_root / "skills"
            agent_ids = sorted(p.name for p in src_configs.glob("agent_*") if p.is_dir())
            if not agent_ids:
                raise AgentStoreError(f"no agent_* dirs under {src_configs}")
            shutil.copytree(src_skills, run_dir / "skills", dirs_exist_ok=True)
            now = time.time()
            lineage: dict[str, Any] = {"agents": {}}
            history: list[dict[str, Any]] = []
            for agent_id in agent_ids:
                dst = run_dir / "agent_configs" / agent_id
                (dst / "versions").mkdir(parents=True, exist_ok=True)
                lineage["agents"][agent_id] = {}
                for part in PARTS:
                    text = _read_part(src_configs / agent_id / f"{part}.md")
                    rel = f"agent_configs/{agent_id}/versions/{part}.v1.md"
                    write_text_atomic(run_dir / rel, text, mode=PUBLIC)
                    write_text_atomic(dst / f"{part}.md", text, mode=PUBLIC)
                    entry = _version_entry("v1", None, rel, text, "seed", now)
                    lineage["agents"][agent_id][part] = {"current": "v1", "versions": [entry]}
                    history.append(_event(agent_id, part, "v1", None, "seed", now))
            write_text_atomic(meta_dir / "history.json", json.dumps(history, indent=2), mode=PUBLIC)
            write_text_atomic(meta_dir / "lineage.json", json.dumps(lineage, indent=2), mode=PUBLIC)
        return cls(run_dir)

    def agent_ids(self) -> list[str]:
        return sorted(self._lineage()["agents"])

    def current(self, agent_id: str) -> AgentProfile:
        """The current texts of `agent_id` with their version ids."""
        return self.load(agent_id)

    def load(self, agent_id: str, versions: Mapping[str, str] | None = None) -> AgentProfile:
        """The texts of `agent_id` at `versions` (part -> version id; missing parts: current)."""
        parts = self._agent(self._lineage(), agent_id)
        versions = dict(versions or {})
        unknown = set(versions) - set(PARTS)
        if unknown:
            raise AgentStoreError(f"unknown part(s) {sorted(unknown)}; expected {', '.join(PARTS)}")
        texts, chosen = {}, {}
        for part in PARTS:
            version = versions.get(part, parts[part]["current"])
            entry = _find_version(parts[part], agent_id, part, version)
            texts[part] = (self.run_dir / entry["path"]).read_text(encoding="utf-8")
            chosen[part] = version
        return AgentProfile(agent_id, texts, chosen)

    def write_version(self, agent_id: str, part: str, text: str, reason: str, parent_version: str) -> str:
        """Store `text` as the next version of `part` (derived from `parent_version`); make it current."""
        if part not in PARTS:
            raise AgentStoreError(f"unknown part {part!r}; expected one of {', '.join(PARTS)}")
        if not isinstance(text, str) or not text.strip():
            raise AgentStoreError(f"new text for {agent_id}/{part} is empty")
        if not reason or not reason.strip():
            raise AgentStoreError(f"a reason is required for a new version of {agent_id}/{part}")
        with _file_lock(self.meta_dir / ".lock"):
            lineage = self._lineage()
            record = self._agent(lineage, agent_id)[part]
            _find_version(record, agent_id, part, parent_version)
            number = 1 + max(int(_VERSION_RE.match(v["version"]).group(1)) for v in record["versions"])
            version = f"v{number}"
            rel = f"agent_configs/{agent_id}/versions/{part}.{version}.md"
            now = time.time()
            write_text_atomic(self.run_dir / rel, text, mode=PUBLIC)
            write_text_atomic(self.configs_dir / agent_id / f"{part}.md", text, mode=PUBLIC)
            record["versions"].append(_version_entry(version, parent_version, rel, text, reason, now))
            record["current"] = version
            history = self.history()
            history.append(_event(agent_id, part, version, parent_version, reason, now))
            write_text_atomic(self.history_path, json.dumps(history, indent=2), mode=PUBLIC)
            write_text_atomic(self.lineage_path, json.dumps(lineage, indent=2), mode=PUBLIC)
        return version

    def history(self) -> list[dict[str, Any]]:
        """Every version event of the run, oldest first."""
        return json.loads(self.history_path.read_text(encoding="utf-8"))

    def lineage(self, agent_id: str) -> dict[str, Any]:
        """The version records of every part of `agent_id`."""
        return self._agent(self._lineage(), agent_id)

    def _lineage(self) -> dict[str, Any]:
        return json.loads(self.lineage_path.read_text(encoding="utf-8"))

    @staticmethod
    def _agent(lineage: dict[str, Any], agent_id: str) -> dict[str, Any]:
        try:
            return lineage["agents"][agent_id]
        except KeyError:
            known = ", ".join(sorted(lineage["agents"]))
            raise AgentStoreError(f"unknown agent {agent_id!r}; this run has {known}") from None


def prompt_assets_hash(templates_dir: str | Path, skills_dir: str | Path) -> str:
    """A stable sha256 hex digest of the prompt templates and skill files (see the module docstring)."""
    h = hashlib.sha256()
    for label, root in (("templates", Path(templates_dir)), ("skills", Path(skills_dir))):
        if not root.is_dir():
            raise AgentStoreError(f"{label} dir {root} does not exist")
        for rel, path in _asset_files(root, skip=_BOOKKEEPING if label == "skills" else frozenset()):
            data = path.read_bytes()
            h.update(f"{label}/{rel}\0{len(data)}\0".encode())
            h.update(data)
    return h.hexdigest()


def _asset_files(root: Path, skip: frozenset[str]) -> list[tuple[str, Path]]:
    """(posix relative path, path) of every non-hidden file under `root`, sorted, minus `skip`."""
    out = []
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if not path.is_file() or rel in skip:
            continue
        if any(part.startswith(".") or part == "__pycache__" for part in rel.split("/")):
            continue
        out.append((rel, path))
    return sorted(out)


def _copy_templates(src: Path, dst: Path) -> None:
    """Copy the template dir `src` to `dst` unless `dst` exists (atomically: a partial copy never shows)."""
    if dst.exists() or not src.is_dir():
        return
    copy_tree_atomic(src, dst, ignore=shutil.ignore_patterns(".*", "__pycache__"))


def _read_part(path: Path) -> str:
    if not path.is_file():
        raise AgentStoreError(f"missing agent config file {path}")
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        raise AgentStoreError(f"agent config file {path} is empty")
    return text


def _find_version(record: dict[str, Any], agent_id: str, part: str, version: str) -> dict[str, Any]:
    for entry in record["versions"]:
        if entry["version"] == version:
            return entry
    known = ", ".join(v["version"] for v in record["versions"])
    raise AgentStoreError(f"{agent_id}/{part} has no version {version!r}; known: {known}")


def _version_entry(version: str, parent: str | None, rel: str, text: str, reason: str, now: float) -> dict:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return {
        "version": version,
        "parent": parent,
        "path": rel,
        "sha256": digest,
        "created_at": now,
        "reason": reason,
    }


def _event(agent_id: str, part: str, version: str, parent: str | None, reason: str, now: float) -> dict:
    return {
        "time": now,
        "agent_id": agent_id,
        "part": part,
        "version": version,
        "parent_version": parent,
        "reason": reason,
    }


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
