"""One typed configuration for a run.

Precedence, lowest first: defaults < YAML file < `.env` file < environment (`SWARM_` prefix, `__` between
levels, e.g. `SWARM_SEARCH__NUM_DRAFTS=3`) < command-line overrides (`search.num_drafts=3`).
API keys are read from the environment only (the variable named by `api_key_env`); they are never fields
of the config, so neither printing nor saving a config can leak them.
"""

from __future__ import annotations

import os
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    YamlConfigSettingsSource,
)

Provider = Literal["auto", "openai", "anthropic", "offline"]
SandboxKind = Literal["auto", "docker", "local"]
SearchPolicy = Literal["aide", "ga"]

DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


class ConfigError(ValueError):
    """A configuration value is wrong; the message names the field."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ProjectConfig(_Section):
    workspace_dir: Path = Path("workspaces")
    runs_dir: Path = Path("runs")
    cache_dir: Path = Field(
        default_factory=lambda: Path(os.environ.get("SWARM_CACHE_DIR", "~/.cache/swarm-ev2")).expanduser(),
        description="Where bundled competitions are prepared.",
    )
    run_name: str | None = None
    seed: int = 0


class DataConfig(_Section):
    competition: str | None = Field("titanic", description="A bundled competition id.")
    data_dir: Path | None = Field(None, description="An MLE-bench prepared competition dir (has prepared/).")


class StageLLMConfig(_Section):
    provider: Provider = "auto"
    model: str = "gpt-4o-mini"
    base_url: str | None = None
    temperature: float = Field(0.5, ge=0.0, le=2.0)
    max_tokens: int = Field(4096, gt=0)
    timeout_s: float = Field(120.0, gt=0)
    max_retries: int = Field(4, ge=0)
    api_key_env: str | None = Field(None, description="Name of the env var holding the key.")

    def key_env_name(self) -> str | None:
        """The environment variable this stage reads its API key from."""
        return self.api_key_env or DEFAULT_KEY_ENV.get(self.provider)

    def api_key(self) -> str | None:
        """The API key from the environment, or None."""
        name = self.key_env_name()
        return os.environ.get(name) if name else None


class ModelPrice(_Section):
    input_per_mtok: float = Field(0.0, ge=0)
    output_per_mtok: float = Field(0.0, ge=0)


class LLMConfig(_Section):
    code: StageLLMConfig = StageLLMConfig()
    feedback: StageLLMConfig = StageLLMConfig(temperature=0.0)
    evolution: StageLLMConfig = StageLLMConfig(temperature=0.7)
    prices: dict[str, ModelPrice] = Field(
        default_factory=lambda: {
            "gpt-4o": ModelPrice(input_per_mtok=2.5, output_per_mtok=10.0),
            "gpt-4o-mini": ModelPrice(input_per_mtok=0.15, output_per_mtok=0.6),
            "claude-sonnet-4-5": ModelPrice(input_per_mtok=3.0, output_per_mtok=15.0),
            "claude-haiku-4-5": ModelPrice(input_per_mtok=1.0, output_per_mtok=5.0),
        }
    )
    spend_cap_usd: float | None = Field(None, ge=0)


class ExecutionConfig(_Section):
    sandbox: SandboxKind = "auto"
    timeout_s: float = Field(600.0, gt=0)
    memory_mb: int = Field(4096, ge=64)
    cpus: float = Field(1.0, gt=0)
    pids_limit: int = Field(256, ge=8)
    disk_mb: int = Field(1024, ge=1, description="Largest file / tmpfs a solution may write.")
    max_output_chars: int = Field(200_000, ge=1000, description="Output kept per execution.")
    image: str = "swarm-ev2-sandbox:latest"


class AgentConfig(_Section):
    max_steps: int = Field(20, ge=1)
    time_limit_s: float = Field(3600.0, gt=0)


class SearchConfig(_Section):
    policy: SearchPolicy = "aide"
    num_drafts: int = Field(3, ge=1)
    debug_prob: float = Field(0.5, ge=0.0, le=1.0)
    max_debug_depth: int = Field(3, ge=0)
    parallel: int = Field(2, ge=1)


class EvolutionConfig(_Section):
    population_size: int = Field(12, ge=2)
    elite_size: int = Field(3, ge=0)
    tournament_k: int = Field(3, ge=1)
    crossover_rate: float = Field(0.8, ge=0.0, le=1.0)
    mutation_rate: float = Field(0.2, ge=0.0, le=1.0)
    steps_per_epoch: int = Field(4, ge=1)
    num_agents: int = Field(4, ge=1)
    evolution_interval: int = Field(3, ge=1)
    epsilon: float = Field(0.3, ge=0.0, le=1.0)
    learning_rate: float = Field(0.3, gt=0.0, le=1.0)
    min_records_for_evolution: int = Field(20, ge=0)
    experience_top_k: int = Field(3, ge=0)
    experience_max_records: int = Field(10_000, ge=1)

    @model_validator(mode="after")
    def _elite_fits(self) -> EvolutionConfig:
        if self.elite_size > self.population_size:
            raise ValueError("elite_size must not exceed population_size")
        return self


class Config(BaseSettings):
    """The whole configuration of a run."""

    model_config = SettingsConfigDict(
        env_prefix="SWARM_",
        env_nested_delimiter="__",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="forbid",
        validate_assignment=True,
    )

    project: ProjectConfig = ProjectConfig()
    data: DataConfig = DataConfig()
    llm: LLMConfig = LLMConfig()
    execution: ExecutionConfig = ExecutionConfig()
    agent: AgentConfig = AgentConfig()
    search: SearchConfig = SearchConfig()
    evolution: EvolutionConfig = EvolutionConfig()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        yaml_path = _YAML_PATH.get()
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings, dotenv_settings]
        if yaml_path is not None:
            sources.append(YamlConfigSettingsSource(settings_cls, yaml_file=yaml_path))
        return tuple(sources)

    def safe_dump(self) -> dict[str, Any]:
        """A JSON-ready dict of the config. It holds no secrets: keys live only in the environment."""
        return self.model_dump(mode="json")

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.safe_dump(), sort_keys=False)


# pydantic-settings builds sources in a classmethod; the YAML path of the load in progress is passed here.
_YAML_PATH: ContextVar[Path | None] = ContextVar("swarm_yaml_path", default=None)


def parse_overrides(overrides: list[str] | None) -> dict[str, Any]:
    """Turn `a.b=value` strings into a nested dict; values are parsed as YAML scalars."""
    nested: dict[str, Any] = {}
    for item in overrides or []:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"override {item!r} is not of the form section.field=value")
        parts = key.strip().split(".")
        node = nested
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"override {item!r} conflicts with another override of {part!r}")
        try:
            node[parts[-1]] = yaml.safe_load(raw) if raw.strip() else None
        except yaml.YAMLError:
            node[parts[-1]] = raw
    return nested


def _describe(error: ValidationError) -> str:
    lines = []
    for err in error.errors():
        field = ".".join(str(p) for p in err["loc"]) or "config"
        got = err.get("input")
        secret = any(word in field.lower() for word in ("key", "secret", "token", "password"))
        shown = "" if isinstance(got, dict) or secret else f" (got {got!r})"
        lines.append(f"{field}: {err['msg']}{shown}")
    return "invalid configuration: " + "; ".join(lines)


def load_config(
    yaml_path: str | Path | None = None,
    overrides: list[str] | None = None,
    env_file: str | Path | None = ".env",
) -> Config:
    """Load the config with the documented precedence; raise ConfigError naming any bad field."""
    path = Path(yaml_path) if yaml_path else None
    if path is not None:
        if not path.is_file():
            raise ConfigError(f"config file {path} does not exist")
        try:
            content = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise ConfigError(f"config file {path} is not valid YAML: {exc}") from exc
        if content is not None and not isinstance(content, dict):
            raise ConfigError(
                f"config file {path} must hold a mapping of sections, not {type(content).__name__}"
            )
    token = _YAML_PATH.set(path)
    try:
        return Config(_env_file=env_file, **parse_overrides(overrides))
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from None
    finally:
        _YAML_PATH.reset(token)
