"""The context length of a stage's model: how many tokens its prompt and its reply may take together.

Local servers are often started with small contexts (llama.cpp's `-c 8192`), and a prompt that does not fit
fails every call, so prompts are fitted to the context (`swarm.llm.prompt_fit`) and the reply's `max_tokens`
is cut to what is left (`ProviderClient._reply_budget`). `find_context` learns the length, in this order:

1. the config: `llm.<stage>.context_tokens`;
2. the server, where it says (OpenAI-compatible servers at a `base_url` only): llama.cpp's `GET <root>/props`
   (`default_generation_settings.n_ctx`, the context one request gets; newer builds may also have a top-level
   `n_ctx`), then vLLM's `max_model_len` in the model's entry of `GET <base_url>/models`;
3. `HOSTED_CONTEXT`, a table of hosted model families by name prefix;
4. else unknown (None): prompts are not fitted and `max_tokens` is sent as configured.

The offline coder has no context limit. Lookups use a short timeout and never raise: a server that does not
answer, answers 404 or answers something unreadable says nothing. Nothing is kept between calls (a server may
be restarted with another `-c`); a run looks its stages up once, and stages that share a server and a model
share the lookup (`find_context_limits`).
"""

from __future__ import annotations

import json
import math
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from swarm.config import LLMConfig, StageLLMConfig
from swarm.llm.factory import resolve_provider

LOOKUP_TIMEOUT_S = 3.0
STAGES = ("code", "feedback", "evolution")
SOURCE_CONFIG = "llm.{stage}.context_tokens"
SOURCE_PROPS = "the server's /props"
SOURCE_MODELS = "max_model_len in the server's /v1/models"
SOURCE_TABLE = "the table of hosted models"
SOURCE_UNKNOWN = "unknown: the server does not say and the model is not in the table"
SOURCE_OFFLINE = "the offline coder, which has no context limit"
_MAX_BODY = 4 << 20  # a /props body holds the chat template; anything far larger is not one

# Context lengths (tokens, prompt and reply together) of hosted model families, by name prefix; the longest
# matching prefix wins, so `gpt-4o-mini` and `gpt-4.1-nano` find their own rows. From the providers' model
# pages (platform.openai.com/docs/models, docs.anthropic.com's models overview) as of 2025: a name the table
# does not know is unknown, not guessed.
HOSTED_CONTEXT: tuple[tuple[str, int], ...] = (
    ("gpt-4o-mini", 128_000),
    ("gpt-4o", 128_000),
    ("gpt-4.1", 1_047_576),  # gpt-4.1, -mini, -nano
    ("gpt-5", 400_000),  # gpt-5, -mini, -nano
    ("o1", 200_000),
    ("o1-mini", 128_000),
    ("o1-preview", 128_000),
    ("o3", 200_000),  # o3, o3-mini
    ("o4-mini", 200_000),
    ("claude-", 200_000),  # every Claude 3, 3.5, 3.7 and 4 model
    ("claude-2", 100_000),
)


@dataclass(frozen=True)
class ContextWindow:
    """A stage's context length in tokens (None: unknown or unlimited) and where it came from, in words."""

    tokens: int | None
    source: str

    def describe(self, stage: str) -> str:
        """One line for the run's log: `llm.code: context 8,192 tokens (from the server's /props)`."""
        if self.tokens is None:
            return f"llm.{stage}: context not known ({self.source}); prompts are not fitted"
        return f"llm.{stage}: context {self.tokens:,} tokens (from {self.source})"


def find_context(stage: str, stage_cfg: StageLLMConfig, timeout_s: float = LOOKUP_TIMEOUT_S) -> ContextWindow:
    """The context length of `stage`'s model (see the module docstring); never raises."""
    provider = resolve_provider(stage_cfg)
    if provider == "offline":
        return ContextWindow(None, SOURCE_OFFLINE)
    if stage_cfg.context_tokens is not None:
        return ContextWindow(stage_cfg.context_tokens, SOURCE_CONFIG.format(stage=stage))
    return _look_up(provider, stage_cfg, min(timeout_s, stage_cfg.timeout_s))


def find_context_limits(llm: LLMConfig, timeout_s: float = LOOKUP_TIMEOUT_S) -> dict[str, ContextWindow]:
    """Every stage's context window, by stage name; stages on the same server and model share one lookup."""
    found: dict[str, ContextWindow] = {}
    asked: dict[tuple[str, str | None, str], ContextWindow] = {}
    for stage in STAGES:
        stage_cfg: StageLLMConfig = getattr(llm, stage)
        key = (resolve_provider(stage_cfg), stage_cfg.base_url, stage_cfg.model)
        if stage_cfg.context_tokens is None and key in asked:
            found[stage] = asked[key]
            continue
        found[stage] = find_context(stage, stage_cfg, timeout_s)
        if stage_cfg.context_tokens is None:
            asked[key] = found[stage]
    return found


def hosted_context(model: str) -> int | None:
    """The context length `HOSTED_CONTEXT` gives `model` (longest matching prefix), or None."""
    name = model.lower().rsplit("/", 1)[-1]  # `openai/gpt-4o` as some gateways name it
    matches = [(len(prefix), tokens) for prefix, tokens in HOSTED_CONTEXT if name.startswith(prefix)]
    return max(matches)[1] if matches else None


def server_root(base_url: str) -> str:
    """The server's root URL: `base_url` without a trailing `/v1` (where llama.cpp serves `/props`)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def props_context(base_url: str, timeout_s: float) -> int | None:
    """llama.cpp's context per request from `GET <root>/props`, or None when the server does not say."""
    body = _get_json(server_root(base_url) + "/props", timeout_s)
    if not isinstance(body, dict):
        return None
    settings = body.get("default_generation_settings")
    per_slot = settings.get("n_ctx") if isinstance(settings, dict) else None
    return _positive_int(per_slot) or _positive_int(body.get("n_ctx"))


def models_context(base_url: str, model: str, timeout_s: float, api_key: str | None = None) -> int | None:
    """vLLM's `max_model_len` of `model` from `GET <base_url>/models`, or None when the server does not say."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    body = _get_json(base_url.rstrip("/") + "/models", timeout_s, headers)
    entries = body.get("data") if isinstance(body, dict) else None
    if not isinstance(entries, list):
        return None
    for entry in entries:
        if isinstance(entry, dict) and entry.get("id") == model:
            return _positive_int(entry.get("max_model_len"))
    return None


def _look_up(provider: str, stage_cfg: StageLLMConfig, timeout_s: float) -> ContextWindow:
    if provider == "openai" and stage_cfg.base_url:
        tokens = props_context(stage_cfg.base_url, timeout_s)
        if tokens is not None:
            return ContextWindow(tokens, SOURCE_PROPS)
        tokens = models_context(stage_cfg.base_url, stage_cfg.model, timeout_s, stage_cfg.api_key())
        if tokens is not None:
            return ContextWindow(tokens, SOURCE_MODELS)
    tokens = hosted_context(stage_cfg.model)
    if tokens is not None:
        return ContextWindow(tokens, SOURCE_TABLE)
    return ContextWindow(None, SOURCE_UNKNOWN)


def _get_json(url: str, timeout_s: float, headers: Mapping[str, str] | None = None) -> Any:
    """The JSON body of a GET, or None for any failure (no answer, an error status, not JSON)."""
    request = urllib.request.Request(url, headers={"Accept": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310 - the stage's URL
            return json.loads(response.read(_MAX_BODY))
    except Exception:  # noqa: BLE001 - a lookup that fails says nothing about the context
        return None


def _positive_int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return int(value) if value == int(value) and value > 0 else None
