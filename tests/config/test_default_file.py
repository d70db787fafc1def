"""config/default.yaml is the config model written out (every field, its default, what it does) and changes
nothing when loaded; .env.example names the variables the project reads, and each of them works."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel

from swarm.config import CACHE_DIR_ENV, DEFAULT_KEY_ENV, Config, load_config
from swarm.default_config import DEFAULT_FILE, main, render

REPO = Path(__file__).resolve().parents[2]
ENV_EXAMPLE = REPO / ".env.example"


def leaf_fields(model: type[BaseModel], prefix: str = "") -> list[str]:
    out: list[str] = []
    for name, field in model.model_fields.items():
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            out += leaf_fields(kind, f"{prefix}{name}.")
        else:
            out.append(prefix + name)
    return out


@pytest.fixture
def no_swarm_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("SWARM_"):
            monkeypatch.delenv(name)


def test_the_default_file_is_the_model_written_out() -> None:
    assert DEFAULT_FILE == REPO / "config" / "default.yaml"
    assert DEFAULT_FILE.read_text(encoding="utf-8") == render(), "run: python -m swarm.default_config"
    assert main(["--check"]) == 0


def test_every_field_is_in_the_file_with_a_comment_above_it() -> None:
    lines = DEFAULT_FILE.read_text(encoding="utf-8").splitlines()
    fields = leaf_fields(Config)
    assert len(fields) > 90 and "evaluation.folds" in fields
    for path in fields:
        name = path.split(".")[-1]
        found = [i for i, line in enumerate(lines) if re.fullmatch(rf"\s*(# )?{name}:.*", line)]
        assert found, f"{path} is not in {DEFAULT_FILE.name}"
        assert any(lines[i - 1].lstrip().startswith("# ") for i in found), f"{path} has no comment above it"


def test_loading_the_default_file_changes_nothing(no_swarm_environment: None) -> None:
    assert load_config(DEFAULT_FILE, env_file=None) == load_config(None, env_file=None)


def test_a_changed_default_is_caught(tmp_path: Path) -> None:
    stale = tmp_path / "default.yaml"
    stale.write_text(render().replace("  num_drafts: 3\n", "  num_drafts: 4\n"), encoding="utf-8")
    assert stale.read_text(encoding="utf-8") != render()
    assert main(["--check", "--path", str(stale)]) == 1


def test_the_env_example_names_what_the_project_reads(
    tmp_path: Path, no_swarm_environment: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    named = set(re.findall(r"^# ([A-Z][A-Z0-9_]+)=", text, flags=re.M))
    read_in_code = {
        m
        for root in ("swarm", "sandbox", "flows")
        for path in (REPO / root).rglob("*.py")
        for m in re.findall(r"environ\.get\(\"(SWARM_[A-Z0-9_]+)\"", path.read_text(encoding="utf-8"))
    }
    assert read_in_code >= {"SWARM_BWRAP", "SWARM_SANDBOX_PYTHON"}
    assert {*DEFAULT_KEY_ENV.values(), CACHE_DIR_ENV, *read_in_code} <= named
    # Each SWARM_<SECTION>__<FIELD> example is a real config field, and sets it.
    for name in sorted(n for n in named if "__" in n):
        value = re.search(rf"^# {name}=(.*)$", text, flags=re.M).group(1)  # type: ignore[union-attr]
        monkeypatch.setenv(name, value)
        path = name.removeprefix("SWARM_").lower().split("__")
        node: object = load_config(None, env_file=None)
        for part in path:
            node = getattr(node, part)
        assert node == yaml.safe_load(value) or str(node) == value, name
        monkeypatch.delenv(name)


def test_a_config_saved_with_the_retired_workspace_dir_still_loads(tmp_path: Path) -> None:
    saved = tmp_path / "config.yaml"  # what runs saved before the field was retired (nothing read it)
    saved.write_text("project:\n  workspace_dir: workspaces\n  seed: 3\n", encoding="utf-8")
    assert load_config(saved, env_file=None).project.seed == 3
    assert "workspace_dir" not in load_config(saved, env_file=None).to_yaml()
