"""The MLE-bench registration templates in deployments/mlebench/ stay usable: every agent entry's kwargs are
valid config overrides, its API key is the one the stages read, start.sh parses and runs our entry."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from swarm.config import load_config
from swarm.mlebench import settings_from

REPO = Path(__file__).resolve().parents[2]
TEMPLATES = REPO / "deployments" / "mlebench"
SECRET = re.compile(r"\$\{\{\s*secrets\.(\w+)\s*\}\}")  # MLE-bench's agents/utils.py pattern
NOT_AGENTS = ("vars", "defaults", "kwargs_common")


def agents() -> dict[str, dict]:
    config = yaml.safe_load((TEMPLATES / "config.yaml").read_text())
    return {name: entry for name, entry in config.items() if name not in NOT_AGENTS}


def test_there_is_a_main_and_an_offline_agent() -> None:
    assert {"swarm-ev2", "swarm-ev2/offline"} <= set(agents())


@pytest.mark.parametrize("agent_id", sorted(agents()))
def test_agent_entry(agent_id: str) -> None:
    entry = agents()[agent_id]
    assert entry["start"] == "swarm-ev2/start.sh" and entry["dockerfile"] == "swarm-ev2/Dockerfile"
    assert entry["kwargs_type"] == "omegaconf"  # kwargs arrive as key=value: our override syntax
    cfg = load_config(None, [f"{key}={value}" for key, value in entry["kwargs"].items()], env_file=None)
    assert cfg.execution.sandbox == "local"
    env = entry["env_vars"]
    plain = {k: str(v) for k, v in env.items() if not SECRET.fullmatch(str(v))}
    settings = settings_from(plain)
    assert settings.time_limit_s and settings.time_limit_s >= 600 and settings.step_limit
    secrets = {k: SECRET.fullmatch(str(v)).group(1) for k, v in env.items() if SECRET.fullmatch(str(v))}
    for stage in ("code", "feedback", "evolution"):
        stage_cfg = getattr(cfg.llm, stage)
        if stage_cfg.provider != "offline":
            assert secrets.get(stage_cfg.key_env_name()) == stage_cfg.key_env_name(), (agent_id, stage)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_start_script_parses_and_runs_our_entry() -> None:
    script = TEMPLATES / "start.sh"
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
    text = script.read_text()
    assert 'python flows/mlebench_agent.py "$@"' in text and 'cd "${AGENT_DIR}/swarm-ev2"' in text
    assert (REPO / "flows" / "mlebench_agent.py").is_file()


def test_dockerfile_builds_on_mlebench_env() -> None:
    lines = [
        ln for ln in (TEMPLATES / "Dockerfile").read_text().splitlines() if ln and not ln.startswith("#")
    ]
    assert lines[0] == "FROM mlebench-env"
    text = "\n".join(lines)
    assert "pip install --no-cache-dir -e ${AGENT_DIR}/swarm-ev2" in text
    assert "COPY start.sh ${AGENT_DIR}/start.sh" in text


def test_docs_are_linked() -> None:
    docs = (REPO / "deployments" / "MLEBENCH.md").read_text()
    assert "run_agent.py --agent-id swarm-ev2" in docs and "deployments/mlebench/" in docs
    assert "deployments/MLEBENCH.md" in (REPO / "README.md").read_text()
