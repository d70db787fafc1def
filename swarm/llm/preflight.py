"""Before a run: can every stage's client be built, and does its endpoint serve the model it names?

`check_models` asks each real provider's models endpoint once (`GET /v1/models/{id}`, then the list when that
answers 404), so a misspelt model fails in a second with one sentence instead of after a run dir, an
execution and a retry loop. An endpoint that cannot tell (no models endpoint, as on some OpenAI-compatible
servers, no connection, access denied) lets the run start: its first call then says what is wrong.
"""

from __future__ import annotations

import threading

from swarm.config import LLMConfig, redact_url
from swarm.llm.base import LLMError
from swarm.llm.factory import make_client, resolve_provider
from swarm.llm.provider import ProviderClient

STAGES = ("code", "feedback", "evolution")
LOOKUP_TIMEOUT_S = 15.0
MAX_LISTED = 5

# (provider, base_url, model) already checked and let through (served, or the endpoint could not tell).
_passed: set[tuple[str, str | None, str]] = set()
_lock = threading.Lock()


class ModelNotServed(LLMError):
    """A stage names a model its endpoint does not serve, or its client cannot be built."""


def check_models(llm: LLMConfig) -> None:
    """Raise ModelNotServed (one sentence naming the stage) for a stage that cannot call its model."""
    for stage in STAGES:
        stage_cfg = getattr(llm, stage)
        if resolve_provider(stage_cfg) == "offline":
            continue  # the offline coder serves every name
        try:
            client = make_client(stage_cfg, llm.prices, None)
        except LLMError as exc:
            raise ModelNotServed(f"llm.{stage}: {exc}") from None
        if not isinstance(client, ProviderClient):
            continue  # the offline coder serves every name
        key = (client.provider, client.base_url, client.model)
        with _lock:
            if key in _passed:
                continue
        served, listed = client.model_served(min(LOOKUP_TIMEOUT_S, stage_cfg.timeout_s))
        if served is False:
            raise ModelNotServed(_not_served(stage, client, listed))
        with _lock:
            _passed.add(key)


def _not_served(stage: str, client: ProviderClient, listed: list[str]) -> str:
    where = f" at {redact_url(client.base_url)}" if client.base_url else ""
    shown = ", ".join(listed[:MAX_LISTED]) + (
        f" and {len(listed) - MAX_LISTED} more" if len(listed) > MAX_LISTED else ""
    )
    offer = f"; it serves {shown}" if listed else "; it lists no models"
    return f"llm.{stage}.model {client.model!r} is not served by the {client.provider} endpoint{where}{offer}"
