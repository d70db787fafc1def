"""Seeding a run from the repo's agent configs and skills, and versioning evolved texts."""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
from pathlib import Path

import pytest

from swarm.agents.prompting import PromptBuilder
from swarm.agents.store import (
    PARTS,
    REPO_ROOT,
    AgentStore,
    AgentStoreError,
    prompt_assets_hash,
    read_seed_profile,
)


def _tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def test_seeds_are_four_distinct_complete_agents() -> None:
    ids = sorted(p.name for p in (REPO_ROOT / "agent_configs").glob("agent_*"))
    assert ids == ["agent_0", "agent_1", "agent_2", "agent_3"]
    profiles = [read_seed_profile(a) for a in ids]
    for part in PARTS:
        texts = [p.texts[part] for p in profiles]
        assert all(len(t) > 200 for t in texts), part
        assert len(set(texts)) == 4, f"{part} is not distinct across agents"


def test_seed_run_copies_and_never_touches_the_repo(tmp_path: Path) -> None:
    seeds = ("agent_configs", "skills", "prompts")
    before = [_tree_digest(REPO_ROOT / name) for name in seeds]
    store = AgentStore.seed_run(tmp_path / "run")
    store.write_version("agent_0", "role", "You are changed.\n", "test", "v1")
    (tmp_path / "run/prompts/layers/guidelines.j2").write_text("edited in the run\n")
    assert [_tree_digest(REPO_ROOT / name) for name in seeds] == before
    assert store.agent_ids() == ["agent_0", "agent_1", "agent_2", "agent_3"]
    assert (tmp_path / "run/skills/static/output_format.md").is_file()
    assert (tmp_path / "run/skills/meta/index.json").is_file()
    prof = store.current("agent_2")
    assert prof.versions == dict.fromkeys(PARTS, "v1")
    assert prof.texts == read_seed_profile("agent_2").texts


def test_write_version_keeps_every_version_and_lineage(tmp_path: Path) -> None:
    run = tmp_path / "run"
    store = AgentStore.seed_run(run)
    v2 = store.write_version("agent_1", "strategy_merge", "Merge carefully.\n", "low success rate", "v1")
    v3 = store.write_version("agent_1", "strategy_merge", "Merge boldly.\n", "low quality", "v2")
    v4 = store.write_version("agent_1", "strategy_merge", "Branch from the seed.\n", "retry", "v1")
    assert (v2, v3, v4) == ("v2", "v3", "v4")
    cur = store.current("agent_1")
    assert cur.texts["strategy_merge"] == "Branch from the seed.\n"
    assert cur.versions["strategy_merge"] == "v4" and cur.versions["role"] == "v1"
    assert (run / "agent_configs/agent_1/strategy_merge.md").read_text() == "Branch from the seed.\n"
    assert (run / "agent_configs/agent_1/versions/strategy_merge.v3.md").read_text() == "Merge boldly.\n"
    old = store.load("agent_1", {"strategy_merge": "v2"})
    assert old.texts["strategy_merge"] == "Merge carefully.\n" and old.versions["strategy_merge"] == "v2"
    entries = store.lineage("agent_1")["strategy_merge"]["versions"]
    assert [(e["version"], e["parent"]) for e in entries] == [
        ("v1", None),
        ("v2", "v1"),
        ("v3", "v2"),
        ("v4", "v1"),
    ]
    assert entries[2]["sha256"] == hashlib.sha256(b"Merge boldly.\n").hexdigest()
    history = json.loads((run / "skills/meta/history.json").read_text())
    assert [h["reason"] for h in history[-3:]] == ["low success rate", "low quality", "retry"]
    assert len(history) == 4 * len(PARTS) + 3
    # seeding again resumes the run instead of resetting it
    assert AgentStore.seed_run(run).current("agent_1").versions["strategy_merge"] == "v4"


def test_concurrent_writers_get_distinct_versions(tmp_path: Path) -> None:
    store = AgentStore.seed_run(tmp_path / "run")
    made: list[str] = []

    def work(i: int) -> None:
        made.append(store.write_version("agent_3", "role", f"text {i}\n", f"thread {i}", "v1"))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(made, key=lambda v: int(v[1:])) == [f"v{i}" for i in range(2, 10)]
    assert len(store.lineage("agent_3")["role"]["versions"]) == 9


def test_errors_name_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(AgentStoreError, match="is not seeded"):
        AgentStore(tmp_path / "nothing")
    store = AgentStore.seed_run(tmp_path / "run")
    with pytest.raises(AgentStoreError, match="unknown agent 'agent_9'"):
        store.current("agent_9")
    with pytest.raises(AgentStoreError, match="unknown part 'style'"):
        store.write_version("agent_0", "style", "x", "r", "v1")
    with pytest.raises(AgentStoreError, match="agent_0/role has no version 'v7'"):
        store.write_version("agent_0", "role", "x", "r", "v7")
    with pytest.raises(AgentStoreError, match="is empty"):
        store.write_version("agent_0", "role", "  \n", "r", "v1")
    with pytest.raises(AgentStoreError, match="a reason is required"):
        store.write_version("agent_0", "role", "x", "", "v1")
    with pytest.raises(AgentStoreError, match="no strategy for task type 'review'"):
        store.current("agent_0").strategy("review")
    empty = tmp_path / "src"
    (empty / "agent_configs").mkdir(parents=True)
    (empty / "skills").mkdir()
    with pytest.raises(AgentStoreError, match="no agent_\\* dirs"):
        AgentStore.seed_run(tmp_path / "run2", source_root=empty)


def test_seed_run_copies_the_templates_and_the_run_uses_them(tmp_path: Path) -> None:
    run = tmp_path / "run"
    AgentStore.seed_run(run)
    assert _tree_digest(run / "prompts") == _tree_digest(REPO_ROOT / "prompts")
    assert not list((run / "prompts").rglob(".*"))
    extra = run / "prompts/layers/guidelines.j2"
    extra.write_text(extra.read_text() + "\n- Run-local rule.\n")
    builder = PromptBuilder(templates_dir=run / "prompts", skills_dir=run / "skills")
    user = builder.build("draft", read_seed_profile("agent_0"), task_desc="t")[1].content
    assert "- Run-local rule." in user
    AgentStore.seed_run(run)  # resuming keeps the run's templates
    assert "Run-local rule" in extra.read_text()
    # a run seeded before templates were copied gets them when it is opened again
    old = tmp_path / "old"
    AgentStore.seed_run(old)
    shutil.rmtree(old / "prompts")
    AgentStore.seed_run(old)
    assert _tree_digest(old / "prompts") == _tree_digest(REPO_ROOT / "prompts")


def test_prompt_assets_hash_is_stable_and_tracks_templates_and_skills(tmp_path: Path) -> None:
    repo_hash = prompt_assets_hash(REPO_ROOT / "prompts", REPO_ROOT / "skills")
    assert len(repo_hash) == 64 and repo_hash == prompt_assets_hash(
        REPO_ROOT / "prompts", REPO_ROOT / "skills"
    )
    run = tmp_path / "run"
    store = AgentStore.seed_run(run)
    builder = PromptBuilder(templates_dir=run / "prompts", skills_dir=run / "skills")
    assert builder.assets_hash() == repo_hash  # a fresh copy hashes like its seeds
    store.write_version("agent_1", "role", "You are new.\n", "evolved", "v1")  # lineage/history change
    assert builder.assets_hash() == repo_hash  # agent texts are traced by version, not by this hash
    template = run / "prompts/merge.user.j2"
    original = template.read_text()
    template.write_text(original + "\n")
    changed = builder.assets_hash()
    assert changed != repo_hash
    template.write_text(original)
    assert builder.assets_hash() == repo_hash
    skill = run / "skills/static/modalities.md"
    skill.write_text(skill.read_text().replace("CPU", "cpu", 1))
    edited = builder.assets_hash()
    assert edited not in (repo_hash, changed)
    skill.rename(run / "skills/static/modalities2.md")  # same bytes under another name: another asset set
    renamed = builder.assets_hash()
    assert renamed not in (repo_hash, changed, edited)
    # swapping which dir is which changes the hash even when the files are the same
    assert prompt_assets_hash(run / "skills", run / "prompts") != renamed
    with pytest.raises(AgentStoreError, match="templates dir"):
        prompt_assets_hash(tmp_path / "none", run / "skills")
