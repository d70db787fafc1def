"""Config precedence, validation messages and secret handling."""

from __future__ import annotations

from pathlib import Path

import pytest

from swarm.config import Config, ConfigError, load_config, parse_overrides


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(__import__("os").environ):
        if name.startswith("SWARM_") and name != "SWARM_CACHE_DIR":
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def test_defaults_match_the_design() -> None:
    cfg = load_config(env_file=None)
    evo = cfg.evolution
    assert (evo.population_size, evo.elite_size, evo.tournament_k) == (12, 3, 3)
    assert (evo.mutation_rate, evo.num_agents, evo.evolution_interval) == (0.2, 4, 3)
    assert (evo.epsilon, evo.learning_rate, evo.min_records_for_evolution) == (0.3, 0.3, 20)
    assert cfg.execution.sandbox == "auto"


def test_precedence_defaults_yaml_env_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config_file = tmp_path / "run.yaml"
    config_file.write_text("search:\n  num_drafts: 7\n  parallel: 3\n  debug_prob: 0.9\n", encoding="utf-8")
    dotenv = tmp_path / ".env"
    dotenv.write_text("SWARM_SEARCH__PARALLEL=4\nSWARM_SEARCH__DEBUG_PROB=0.7\n", encoding="utf-8")
    monkeypatch.setenv("SWARM_SEARCH__DEBUG_PROB", "0.6")

    cfg = load_config(config_file, ["search.max_debug_depth=5"], env_file=dotenv)

    assert cfg.search.num_drafts == 7  # YAML over default
    assert cfg.search.parallel == 4  # .env over YAML
    assert cfg.search.debug_prob == 0.6  # environment over .env
    assert cfg.search.max_debug_depth == 5  # override over everything
    assert load_config(config_file, ["search.num_drafts=2"], env_file=None).search.num_drafts == 2


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ("search.num_drafts=abc", "search.num_drafts"),
        ("evolution.mutation_rate=1.5", "evolution.mutation_rate"),
        ("execution.sandbox=vm", "execution.sandbox"),
        ("llm.code.provider=nobody", "llm.code.provider"),
        ("search.typo=1", "search.typo"),
    ],
)
def test_wrong_value_names_the_field(override: str, field: str) -> None:
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        load_config(overrides=[override], env_file=None)


def test_broken_yaml_and_missing_file_fail_clearly(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "absent.yaml", env_file=None)
    bad = tmp_path / "bad.yaml"
    bad.write_text("search: [unclosed\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad, env_file=None)
    listy = tmp_path / "list.yaml"
    listy.write_text("- 1\n- 2\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(listy, env_file=None)


def test_malformed_override_is_rejected() -> None:
    with pytest.raises(ConfigError, match="section.field=value"):
        parse_overrides(["no_equals_sign"])


def test_secrets_never_appear_in_config_or_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    cfg = load_config(overrides=["llm.code.provider=openai"], env_file=None)
    assert cfg.llm.code.api_key() == secret
    assert secret not in cfg.to_yaml()
    assert secret not in repr(cfg)
    with pytest.raises(ConfigError) as info:
        load_config(overrides=[f"llm.code.api_key={secret}"], env_file=None)
    assert "llm.code.api_key" in str(info.value)
    assert secret not in str(info.value)


def test_config_round_trips_through_its_yaml(tmp_path: Path) -> None:
    cfg = load_config(overrides=["search.num_drafts=4", "llm.spend_cap_usd=2.5"], env_file=None)
    saved = tmp_path / "saved.yaml"
    saved.write_text(cfg.to_yaml(), encoding="utf-8")
    again = load_config(saved, env_file=None)
    assert again.safe_dump() == cfg.safe_dump()
    assert isinstance(again, Config)
