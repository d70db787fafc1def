"""One typed configuration for a run.

Precedence, lowest first: defaults < YAML file < `.env` file < environment (`SWARM_` prefix, `__` between
levels, e.g. `SWARM_SEARCH__NUM_DRAFTS=3`) < command-line overrides (`search.num_drafts=3`).
Only the `SWARM_` lines of `.env` are config; its other lines (e.g. `OPENAI_API_KEY=...`) are ignored by the
config and read only by `StageLLMConfig.api_key()`, on demand. API keys are never fields of the config, so
neither printing nor saving a config can leak them; credentials inside a `base_url` are redacted when saved.
"""

from __future__ import annotations

import os
import re
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import yaml
from dotenv import dotenv_values
from pydantic import (
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    YamlConfigSettingsSource,
)

from sandbox.config import ExecutionConfig  # the sandbox owns its settings; re-exported here
from swarm.search_config import AgentConfig, EvolutionConfig, SearchConfig
from swarm.search_config import Section as _Section

Provider = Literal["auto", "openai", "anthropic", "offline"]

DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
ENV_PREFIX = "SWARM_"
CACHE_DIR_ENV = "SWARM_CACHE_DIR"
DEFAULT_CACHE_DIR = "~/.cache/swarm-ev2"
REDACTED = "REDACTED"
# Field names and query parameters whose values are never echoed in errors or saved in URLs.
_SECRET_NAME_RE = re.compile(r"key|secret|token|pass|pat|auth|cred|cookie|session|sig|url|dsn", re.I)


class ConfigError(ValueError):
    """A configuration value is wrong; the message names the field."""


def _default_cache_dir() -> Path:
    """`$SWARM_CACHE_DIR`, else that line of the `.env` being loaded, else ~/.cache/swarm-ev2."""
    chosen = os.environ.get(CACHE_DIR_ENV) or _DOTENV_CACHE_DIR.get() or DEFAULT_CACHE_DIR
    return Path(chosen).expanduser()


class ProjectConfig(_Section):
    """Where runs and prepared competitions are kept, and the run's seed."""

    runs_dir: Path = Field(
        Path("runs"), description="Where new runs are made, one dir each (<runs_dir>/<run id>)."
    )
    cache_dir: Path = Field(
        default_factory=_default_cache_dir,
        description="Where bundled competitions are prepared (default $SWARM_CACHE_DIR or ~/.cache/swarm-ev2).",
    )
    run_name: str | None = Field(
        None,
        description="The new run's dir name under runs_dir; none = <competition>-<UTC time>-<6 hex digits>.",
    )
    seed: int = Field(0, description="Seeds the harness split, the search's draws and the offline coder.")
    archive_nodes: bool = Field(
        False,
        description="Zip each node's code, outputs and review into <run>/workspace/archives/<node>.zip after its "
        "step. Off by default: the node's dir keeps the same files, and the zips cost time and disk.",
    )

    @model_validator(mode="before")
    @classmethod
    def _without_retired_fields(cls, value: Any) -> Any:
        """Runs saved before `workspace_dir` was retired (nothing read it) still resume."""
        if isinstance(value, dict) and "workspace_dir" in value:
            return {k: v for k, v in value.items() if k != "workspace_dir"}
        return value


class DataConfig(_Section):
    """Which competition a run solves, and how its files are checked."""

    competition: str | None = Field("titanic", description="A bundled competition id.")
    data_dir: Path | None = Field(
        None, description="A competition dir: MLE-bench prepared (has prepared/), or public files only."
    )
    obfuscate: bool = Field(
        False,
        description="Tell the models the task without naming its competition: description_obfuscated.md (MLE-bench "
        "keeps one for each competition) instead of description.md; a run stops at once where there is none.",
    )
    check_inputs: bool = Field(
        True,
        description="Check the public files before a run: no empty train/test file, test columns and ids that "
        "match train.csv and the sample submission.",
    )
    metric: str | None = Field(
        None,
        description="The competition's metric (a name of the metric library, e.g. rmse or map@5); wins over "
        "competition.json and the description.",
    )

    @field_validator("metric")
    @classmethod
    def _stripped_metric(cls, value: str | None) -> str | None:
        """Whether the metric library knows the name is checked by `swarm.pipeline.preflight` (config sits
        below the library and imports none of it)."""
        return None if value is None else value.strip()


class StageLLMConfig(_Section):
    """One stage's model: the provider and model, the call limits and retries, how replies are asked for."""

    provider: Provider = Field(
        "auto",
        description="auto: the model's family (claude-* Anthropic, else OpenAI) where its key is set, an "
        "OpenAI-compatible server where base_url is, else the built-in offline coder; or openai, anthropic, offline.",
    )
    model: str = Field("gpt-4o-mini", description="The model name the provider is asked for.")
    base_url: str | None = Field(
        None, description="An OpenAI-compatible server's URL (llama.cpp, vLLM); none = the provider's own."
    )
    temperature: float = Field(0.5, ge=0.0, le=2.0, description="Sampling temperature of this stage's calls.")
    max_tokens: int = Field(4096, gt=0, description="Most tokens a reply may have (cut to the context left).")
    timeout_s: float = Field(120.0, gt=0, description="Seconds one call may take before it is retried.")
    context_tokens: int | None = Field(
        None,
        gt=0,
        description="The model's context length in tokens (prompt and reply together); prompts are fitted to "
        "it and the reply's max_tokens cut to what is left. None: learn it from the server (llama.cpp's "
        "/props, vLLM's max_model_len in /v1/models), else from a table of hosted models, else do not fit.",
    )
    max_retries: int = Field(4, ge=0, description="Retries of a failed call (rate limits, timeouts, 5xx).")
    retry_base_s: float = Field(
        1.0,
        ge=0,
        description="Wait before the first retry; it doubles per retry (a longer Retry-After wins).",
    )
    retry_max_wait_s: float = Field(60.0, ge=0, description="Longest wait between two attempts.")
    api_key_env: str | None = Field(None, description="Name of the env var holding the key.")
    tool_calls: Literal["auto", "on", "off"] = Field(
        "auto",
        description="Forced function calls: auto (use them; switch to asking for JSON when the endpoint says "
        "it cannot), on (always), off (always ask for JSON, e.g. llama.cpp without --jinja).",
    )
    # The `.env` file the config was loaded with: a fallback for the key, read on demand, never dumped.
    _env_file: Path | None = PrivateAttr(default=None)

    @field_validator("base_url")
    @classmethod
    def _not_redacted(cls, value: str | None) -> str | None:
        if value is not None and _is_redacted(value):
            raise ValueError(
                "holds credentials that were redacted when the config was saved; pass the real URL in the "
                "environment (SWARM_LLM__<STAGE>__BASE_URL) or with --set"
            )
        return value

    def key_env_name(self) -> str | None:
        """The environment variable this stage reads its API key from (`auto`: by model family)."""
        family = "anthropic" if self.model.lower().startswith("claude") else "openai"
        return self.api_key_env or DEFAULT_KEY_ENV.get(family if self.provider == "auto" else self.provider)

    def api_key(self) -> str | None:
        """The API key from the environment, else from the `.env` file the config was loaded with, or None.

        The `.env` file is read at each call, so the key is never held by the config or put in os.environ.
        """
        name = self.key_env_name()
        if not name:
            return None
        return os.environ.get(name) or _dotenv_value(self._env_file, name)

    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            yield name, redact_url(value) if name == "base_url" and value else value


class ModelPrice(_Section):
    """One model's price in USD per million tokens."""

    input_per_mtok: float = Field(0.0, ge=0, description="USD per million prompt tokens.")
    output_per_mtok: float = Field(0.0, ge=0, description="USD per million completion tokens.")
    cache_read_per_mtok: float | None = Field(
        None, ge=0, description="Cached input read; none = by provider."
    )
    cache_write_per_mtok: float | None = Field(None, ge=0, description="Cache write; none = by provider.")


def default_prices() -> dict[str, ModelPrice]:
    """USD per million tokens of a few common models; config entries add to these or replace them by name."""
    return {
        "gpt-4o": ModelPrice(input_per_mtok=2.5, output_per_mtok=10.0),
        "gpt-4o-mini": ModelPrice(input_per_mtok=0.15, output_per_mtok=0.6),
        "claude-sonnet-4-5": ModelPrice(input_per_mtok=3.0, output_per_mtok=15.0),
        "claude-haiku-4-5": ModelPrice(input_per_mtok=1.0, output_per_mtok=5.0),
    }


# What each stage sets beside the generic stage defaults: the review answers deterministically, evolution varies.
STAGE_DEFAULTS: dict[str, dict[str, Any]] = {
    "code": {},
    "feedback": {"temperature": 0.0},
    "evolution": {"temperature": 0.7},
}


class LLMConfig(_Section):
    """The models of the three stages (code: solutions; feedback: reviews; evolution: agents' prompts), their
    prices and the run's spend cap."""

    code: StageLLMConfig = StageLLMConfig(**STAGE_DEFAULTS["code"])
    feedback: StageLLMConfig = StageLLMConfig(**STAGE_DEFAULTS["feedback"])
    evolution: StageLLMConfig = StageLLMConfig(**STAGE_DEFAULTS["evolution"])
    prices: dict[str, ModelPrice] = Field(
        default_factory=default_prices,
        description="USD per million tokens by model name; entries add to the built-in table or replace a model's.",
    )
    spend_cap_usd: float | None = Field(
        None, ge=0, description="The run stops once its model calls cost this much (USD); none = no cap."
    )

    @field_validator("code", "feedback", "evolution", mode="before")
    @classmethod
    def _over_the_stage_defaults(cls, value: Any, info: ValidationInfo) -> Any:
        """What a source (YAML, .env, the environment, --set) gives for a stage overlays that stage's own
        defaults, so pointing the review at another model keeps its temperature 0.0 (not the generic 0.5)."""
        if not isinstance(value, dict):
            return value
        return {**STAGE_DEFAULTS[str(info.field_name)], **value}

    @field_validator("prices", mode="before")
    @classmethod
    def _add_to_default_prices(cls, value: Any) -> Any:
        """Prices given in YAML, .env or --set add to the default table (field by field for a known model)
        instead of replacing it."""
        if not isinstance(value, dict):
            return value
        merged: dict[str, Any] = {name: price.model_dump() for name, price in default_prices().items()}
        for name, price in value.items():
            known = merged.get(name)
            merged[name] = (
                {**known, **price} if isinstance(known, dict) and isinstance(price, dict) else price
            )
        return merged


class EvaluationConfig(_Section):
    """How solutions are judged: the harness's held-out split, the review's limits, the refit and the folds."""

    holdout_fraction: float = Field(
        0.2,
        ge=0.0,
        lt=1.0,
        description="Share of the labelled train rows the harness holds out and scores every solution on; "
        "0 = no harness split (solutions' own printed metrics rank them, marked unverified).",
    )
    split: str = Field(
        "auto",
        description="How rows are held out: auto (as the test was drawn), stratified, random, like-test (the "
        "rows most like the test), group:<column>, day:<column> (whole calendar days), blocks:<column> (blocks of "
        "days at the edge of each run of training days) or time:<column> (the latest rows).",
    )
    folds: Annotated[int, Field(ge=1, le=10)] | Literal["auto"] = Field(
        "auto",
        description="After the search, score the best candidates on this many folds of the harness split (the "
        "search's own the first; the others the next blocks of days at the edges of each run of training days, or "
        "other seeded rows; a time split has one) and deliver the best by the mean; 1 = the search's split only. "
        "auto: 3 where the run ended within its time and spend limits and the split holds out blocks of days (the "
        "same blocks for every seed) or the best node's held-out rows are too few for the metric, else 1. Each "
        "further fold reruns each candidate once.",
    )
    fold_candidates: int = Field(
        3,
        ge=1,
        le=20,
        description="How many of the best deliverable nodes are scored on the further folds (evaluation.folds).",
    )
    refit: bool = Field(
        True,
        description="Rerun the best node on all train rows for the final submission (delivered only where its "
        "test predictions agree with the scored run's).",
    )
    consistency: bool = Field(
        True,
        description="Run the harness's own reference model (the offline coder's simplest pipeline) once, and flag "
        "a node whose test predictions agree with it far less than its held-out ones do: such a node is neither "
        "delivered nor blended while a consistent one exists.",
    )
    max_train_mb: float = Field(
        2048.0,
        gt=0,
        description="A larger labelled table is not read whole: it is streamed a chunk at a time and split at "
        "random, where its layout is plain (else it gets no harness split).",
    )
    review_timeout_s: float = Field(
        600.0,
        gt=0,
        description="A review's reading, scoring and checking of a submission is stopped after this many seconds, "
        "and the node is buggy (a child process, killed at the limit).",
    )
    review_memory_mb: int = Field(
        8192,
        ge=0,
        description="The address space of that child process, in MB (0: no cap); past it the node is buggy.",
    )
    ties_within_noise: bool = Field(
        False,
        description="Where nodes' harness scores lie within one standard error (the bootstrap of the best node's "
        "held-out rows) of the best score, count them as tied and deliver the simplest (fewest code lines); the "
        "report says when a tie decided. Off by default: on the bundled titanic run it delivered a simpler node "
        "that scored lower on the hidden answers (benchmarks/README.md).",
    )
    labels_table: str | None = Field(
        None,
        description="The public table to hold labelled rows out of, where several hold the labels (freesound's "
        "train_curated.csv beside train_noisy.csv); unset: competition.json's labels_table, else the one not named as "
        "weaker labels (noisy, extra, external, ...).",
    )

    @field_validator("split")
    @classmethod
    def _stripped_split(cls, value: str) -> str:
        """Whether the harness knows the split is checked by `swarm.pipeline.preflight`."""
        return value.strip()


class EnsembleConfig(_Section):
    """The blend of the good nodes at the end of a run."""

    enabled: bool = Field(
        True,
        description="Blend the good nodes' predictions at the end of a run (needs a harness split); the blend "
        "is delivered only when its honest estimate beats the best single node's.",
    )
    max_members: int = Field(
        10,
        ge=2,
        description="Candidates of the blend: the best good nodes by harness score, at most this many.",
    )
    bags: int = Field(
        10, ge=1, description="Bags of the greedy selection; the weights are averaged over them."
    )
    bag_fraction: float = Field(
        0.5,
        gt=0.0,
        le=1.0,
        description="Share of the candidates each bag draws (all of them when 4 or fewer).",
    )
    final_phase_fraction: float = Field(
        0.2,
        ge=0.0,
        lt=1.0,
        description="When this share of the step or time budget is left, the search stops drafting and improves "
        "the best nodes in turn; 0 = no final phase.",
    )
    final_phase_parents: int = Field(3, ge=1, description="The best nodes the final phase improves, in turn.")
    refit_members: bool = Field(
        True,
        description="Rerun every member on all train rows before blending (when evaluation.refit is on); "
        "false = blend the test predictions of their scored runs.",
    )


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

    # Factories, not instances: defaults that read the environment (cache_dir) are read at load time.
    project: ProjectConfig = Field(default_factory=ProjectConfig)
    data: DataConfig = Field(default_factory=DataConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    execution: ExecutionConfig = Field(default_factory=ExecutionConfig)
    evaluation: EvaluationConfig = Field(default_factory=EvaluationConfig)
    ensemble: EnsembleConfig = Field(default_factory=EnsembleConfig)
    agent: AgentConfig = Field(default_factory=AgentConfig)
    search: SearchConfig = Field(default_factory=SearchConfig)
    evolution: EvolutionConfig = Field(default_factory=EvolutionConfig)

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
        sources: list[PydanticBaseSettingsSource] = [
            init_settings,
            env_settings,
            _SwarmDotEnvSource(dotenv_settings),
        ]
        if yaml_path is not None:
            sources.append(YamlConfigSettingsSource(settings_cls, yaml_file=yaml_path))
        return tuple(sources)

    def safe_dump(self) -> dict[str, Any]:
        """A JSON-ready dict of the config without secrets: no keys, and base_url credentials redacted."""
        data = self.model_dump(mode="json")
        for stage in ("code", "feedback", "evolution"):
            url = data["llm"][stage].get("base_url")
            if url:
                data["llm"][stage]["base_url"] = redact_url(url)
        return data

    def to_yaml(self) -> str:
        """`safe_dump` as YAML, for printing or saving."""
        return yaml.safe_dump(self.safe_dump(), sort_keys=False)

    def use_env_file(self, env_file: str | Path | None) -> Config:
        """Let every LLM stage fall back to `env_file` for its API key (see `StageLLMConfig.api_key`).

        `load_config` does this itself; call it on a config reloaded with `env_file=None` (a saved run config)
        to keep `.env` keys usable without applying the `.env` settings again.
        """
        path = Path(env_file).expanduser().resolve() if env_file is not None else None
        for stage in (self.llm.code, self.llm.feedback, self.llm.evolution):
            stage._env_file = path
        return self


class _SwarmDotEnvSource(PydanticBaseSettingsSource):
    """The `.env` source limited to `SWARM_` lines: other lines (API keys, tokens) are not config."""

    def __init__(self, inner: PydanticBaseSettingsSource) -> None:
        super().__init__(inner.settings_cls)
        self.inner = inner

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        fields = self.settings_cls.model_fields
        prefix = ENV_PREFIX.lower()
        return {
            name: value
            for name, value in self.inner().items()
            if name in fields or (name.lower().startswith(prefix) and name.lower() != CACHE_DIR_ENV.lower())
        }


def _dotenv_value(env_file: Path | None, name: str) -> str | None:
    """The value of `name` in the `.env` file `env_file`, or None."""
    if env_file is None or not env_file.is_file():
        return None
    return dotenv_values(env_file, interpolate=False).get(name) or None


def _is_redacted(url: str) -> bool:
    """True when `url` went through `redact_url` and lost something."""
    if url == REDACTED:
        return True
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    return parts.netloc.rpartition("@")[0] == REDACTED or any(v == REDACTED for _, v in pairs)


def redact_url(url: str) -> str:
    """`url` with its user info and secret-looking query values replaced by `REDACTED`."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED
    netloc = parts.netloc
    if "@" in netloc:
        netloc = REDACTED + "@" + netloc.rpartition("@")[2]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, REDACTED if _SECRET_NAME_RE.search(k) else v) for k, v in pairs])
    if (netloc, query) == (parts.netloc, parts.query):
        return url
    return urlunsplit(parts._replace(netloc=netloc, query=query))


# pydantic-settings builds sources in a classmethod; the YAML path of the load in progress is passed here.
_YAML_PATH: ContextVar[Path | None] = ContextVar("swarm_yaml_path", default=None)
# SWARM_CACHE_DIR from the `.env` of the load in progress: a default, like the environment variable.
_DOTENV_CACHE_DIR: ContextVar[str | None] = ContextVar("swarm_dotenv_cache_dir", default=None)


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


_MAX_SHOWN = 60


def _shown_input(error: dict[str, Any], field: str) -> str:
    """` (got <value>)` for a harmless value; empty for unknown fields, secret-looking names or values."""
    got = error.get("input")
    if error.get("type") == "extra_forbidden" or _SECRET_NAME_RE.search(field):
        return ""
    if got is not None and not isinstance(got, str | int | float | bool):
        return ""
    if isinstance(got, str) and (len(got) > _MAX_SHOWN or _looks_secret(got)):
        return ""
    return f" (got {got!r})"


def _looks_secret(value: str) -> bool:
    """A long token of letters and digits without spaces (an API key or password, say)."""
    return (
        len(value) >= 16
        and " " not in value
        and bool(re.search(r"\d", value) and re.search(r"[A-Za-z]", value))
    )


def _describe(error: ValidationError) -> str:
    lines = []
    for err in error.errors():
        field = ".".join(str(p) for p in err["loc"]) or "config"
        lines.append(f"{field}: {err['msg']}{_shown_input(err, field)}")
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
    dotenv_token = _DOTENV_CACHE_DIR.set(_dotenv_value(Path(env_file), CACHE_DIR_ENV) if env_file else None)
    try:
        cfg = Config(_env_file=env_file, **parse_overrides(overrides))
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from None
    finally:
        _YAML_PATH.reset(token)
        _DOTENV_CACHE_DIR.reset(dotenv_token)
    return cfg.use_env_file(env_file)
