"""Warnings before a run: a `.env` or a competition's private answers readable by other users, unsafe-local."""

from __future__ import annotations

import logging
from types import SimpleNamespace

from sandbox.exposure import exposure_warnings
from swarm.config import load_config
from swarm.pipeline.preflight import warn_exposure


def test_private_answers_readable_by_others_warn(comp_dir):
    private = comp_dir / "private"
    assert exposure_warnings([], private) == []  # 0700 dir, 0600 file: nobody else can read them
    private.chmod(0o755)
    (private / "answers.csv").chmod(0o644)
    (warning,) = exposure_warnings([], private)
    assert "private files are readable by other users" in warning and "answers.csv" in warning
    assert f"chmod -R o-rwx {private}" in warning


def test_dotenv_readable_by_others_warns(comp_dir):
    env = comp_dir / ".env"
    env.write_text("OPENAI_API_KEY=sk-nope\n", encoding="utf-8")
    env.chmod(0o600)
    assert exposure_warnings([env], None) == []
    env.chmod(0o644)
    (warning,) = exposure_warnings([env, env], None)  # named once
    assert str(env) in warning and "chmod 600" in warning and "sk-nope" not in warning


def test_preflight_logs_each_warning_and_unsafe_local(comp_dir, caplog, monkeypatch):
    monkeypatch.chdir(comp_dir)
    (comp_dir / ".env").write_text("X=1\n", encoding="utf-8")
    (comp_dir / ".env").chmod(0o644)
    cfg = load_config(overrides=["execution.sandbox=unsafe-local"], env_file=None)
    competition = SimpleNamespace(public_only=False, private_dir=comp_dir / "private")
    with caplog.at_level(logging.WARNING, logger="swarm.pipeline.preflight"):
        warnings = warn_exposure(cfg, competition)
    assert len(warnings) == 2 and "NOT isolated" in warnings[1]
    assert [r.message for r in caplog.records if r.name == "swarm.pipeline.preflight"] == warnings
