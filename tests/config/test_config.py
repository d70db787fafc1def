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


@pytest.mark.parametrize(
    ("override", "field", "words"),
    [
        ("data.metric=bleu", "data.metric", "unknown metric 'bleu'; known metrics: accuracy"),
        ("evaluation.split=sideways", "evaluation.split", "unknown split 'sideways': use auto"),
    ],
)
def test_names_the_library_or_harness_does_not_know_are_refused_by_preflight(
    override: str, field: str, words: str
) -> None:
    """The config (below the metric library and the harness) only strips these; preflight checks them."""
    from swarm.pipeline.preflight import check_named_settings

    cfg = load_config(overrides=[override], env_file=None)
    with pytest.raises(ConfigError, match=f"{field}: {words}".replace(".", r"\.").replace("(", r"\(")):
        check_named_settings(cfg)
    check_named_settings(
        load_config(overrides=["data.metric= rmse ", "evaluation.split=time:date"], env_file=None)
    )


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


OPENAI_SECRET = "sk-dotenv-0123456789abcdef"
GH_SECRET = "ghp_SECRET0123456789"


@pytest.fixture
def dotenv_with_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `.env` in the working dir holding API keys and one SWARM_ setting; no key in the environment."""
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GH_PAT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SWARM_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / ".env"
    path.write_text(
        f"OPENAI_API_KEY={OPENAI_SECRET}\nGH_PAT={GH_SECRET}\nSWARM_SEARCH__PARALLEL=5\n", encoding="utf-8"
    )
    return path


def test_dotenv_keys_are_not_config_but_serve_as_api_key(dotenv_with_keys: Path) -> None:
    cfg = load_config()
    assert cfg.search.parallel == 5  # the SWARM_ line still counts
    assert cfg.llm.code.api_key() == OPENAI_SECRET  # provider auto, an OpenAI model
    assert cfg.model_copy(deep=True).llm.feedback.api_key() == OPENAI_SECRET
    assert "OPENAI_API_KEY" not in __import__("os").environ
    for text in (cfg.to_yaml(), repr(cfg), str(cfg.safe_dump())):
        assert OPENAI_SECRET not in text and GH_SECRET not in text
    assert load_config(env_file=None).llm.code.api_key() is None


def test_environment_key_beats_dotenv_key(dotenv_with_keys: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    assert load_config().llm.code.api_key() == "sk-from-the-environment"
    claude = load_config(overrides=["llm.code.model=claude-haiku-4-5"]).llm.code
    assert claude.key_env_name() == "ANTHROPIC_API_KEY" and claude.api_key() is None


def test_cli_runs_with_api_keys_in_dotenv(dotenv_with_keys: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from swarm.cli import main

    assert main(["competitions", "list", "--json"]) == 0
    captured = capsys.readouterr()
    assert OPENAI_SECRET not in captured.out + captured.err and GH_SECRET not in captured.out + captured.err


@pytest.mark.parametrize(
    ("line", "field"),
    [("SWARM_SEARCH__PARALLEL=zero", "search.parallel"), (f"SWARM_GH_TOKEN={GH_SECRET}", "swarm_gh_token")],
)
def test_bad_swarm_line_in_dotenv_fails_naming_the_field(
    dotenv_with_keys: Path, line: str, field: str
) -> None:
    dotenv_with_keys.write_text(dotenv_with_keys.read_text() + line + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=field) as info:
        load_config()
    assert OPENAI_SECRET not in str(info.value) and GH_SECRET not in str(info.value)


def test_error_messages_echo_harmless_values_only() -> None:
    with pytest.raises(ConfigError) as info:
        load_config(overrides=["search.num_drafts=abc"], env_file=None)
    assert "(got 'abc')" in str(info.value)
    with pytest.raises(ConfigError) as info:
        load_config(overrides=["search.typo=visible"], env_file=None)  # an unknown field: never echoed
    assert "search.typo" in str(info.value) and "visible" not in str(info.value)
    with pytest.raises(ConfigError) as info:
        load_config(overrides=["search.num_drafts=x9y8z7w6v5u4t3s2r1"], env_file=None)  # key-like value
    assert "search.num_drafts" in str(info.value) and "x9y8z7w6v5u4t3s2r1" not in str(info.value)


def test_cache_dir_follows_swarm_cache_dir_at_load_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SWARM_CACHE_DIR", raising=False)
    (tmp_path / ".env").write_text(f"SWARM_CACHE_DIR={tmp_path / 'from-dotenv'}\n", encoding="utf-8")
    assert load_config().project.cache_dir == tmp_path / "from-dotenv"
    monkeypatch.setenv("SWARM_CACHE_DIR", str(tmp_path / "from-env"))
    assert load_config().project.cache_dir == tmp_path / "from-env"  # environment over .env
    assert load_config(env_file=None).project.cache_dir == tmp_path / "from-env"


@pytest.mark.parametrize(
    ("url", "secrets"),
    [
        ("https://user:hunter2@llm.example.com/v1", ["user", "hunter2"]),
        ("https://tok3n@llm.example.com/v1", ["tok3n"]),
        ("https://llm.example.com/v1?api-version=2&key=abc123", ["abc123"]),
        ("http://h.example/v1?access_token=t0k&code=1", ["t0k"]),
    ],
)
def test_base_url_credentials_are_redacted_when_saved(tmp_path: Path, url: str, secrets: list[str]) -> None:
    cfg = load_config(overrides=[f"llm.code.base_url={url}"], env_file=None)
    assert cfg.llm.code.base_url == url  # the live config keeps the real URL
    for text in (cfg.to_yaml(), repr(cfg)):
        assert "llm.example.com" in text or "h.example" in text
        assert not any(secret in text for secret in secrets)
    saved = tmp_path / "saved.yaml"
    saved.write_text(cfg.to_yaml(), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"llm\.code\.base_url: .*redacted"):
        load_config(saved, env_file=None)
    fixed = load_config(saved, [f"llm.code.base_url={url}"], env_file=None)
    assert fixed.llm.code.base_url == url


def test_base_url_without_credentials_is_saved_verbatim(tmp_path: Path) -> None:
    url = "http://127.0.0.1:8000/v1?api-version=2024-01"
    cfg = load_config(overrides=[f"llm.feedback.base_url={url}"], env_file=None)
    saved = tmp_path / "saved.yaml"
    saved.write_text(cfg.to_yaml(), encoding="utf-8")
    assert load_config(saved, env_file=None).llm.feedback.base_url == url


def test_prices_add_to_the_default_table_field_by_field() -> None:
    cfg = load_config(
        overrides=["llm.prices.my-model.input_per_mtok=1.5", "llm.prices.gpt-4o.input_per_mtok=9"],
        env_file=None,
    )
    assert cfg.llm.prices["my-model"].input_per_mtok == 1.5
    assert cfg.llm.prices["gpt-4o"].input_per_mtok == 9 and cfg.llm.prices["gpt-4o"].output_per_mtok == 10.0
    assert cfg.llm.prices["claude-haiku-4-5"].output_per_mtok == 5.0  # the rest of the table stays


@pytest.mark.parametrize("source", ["override", "environment", "yaml"])
def test_a_stage_keeps_its_own_defaults_when_one_of_its_fields_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    """The review stage answers at temperature 0.0 and evolution at 0.7 by default; pointing either at another
    model, from any source, keeps those defaults rather than the generic stage's 0.5."""
    settings = {"feedback": "local-model", "evolution": "other-model"}
    overrides, config_file = [], None
    if source == "override":
        overrides = [f"llm.{stage}.model={model}" for stage, model in settings.items()]
    elif source == "environment":
        for stage, model in settings.items():
            monkeypatch.setenv(f"SWARM_LLM__{stage.upper()}__MODEL", model)
    else:
        config_file = tmp_path / "run.yaml"
        lines = [f"  {stage}:\n    model: {model}\n" for stage, model in settings.items()]
        config_file.write_text("llm:\n" + "".join(lines), encoding="utf-8")
    cfg = load_config(config_file, overrides, env_file=None)
    assert (cfg.llm.feedback.model, cfg.llm.feedback.temperature) == ("local-model", 0.0)
    assert (cfg.llm.evolution.model, cfg.llm.evolution.temperature) == ("other-model", 0.7)
    assert cfg.llm.code.temperature == 0.5
    given = load_config(None, ["llm.feedback.temperature=0.3"], env_file=None).llm.feedback
    assert given.temperature == 0.3  # what the user sets still wins
