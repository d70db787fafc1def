"""Which failures are worth retrying, and how long to wait between attempts.

Transient: HTTP 408/409/429, every 5xx (including Anthropic's 529 "overloaded"), timeouts and connection
errors. Everything else (401 auth, 400 validation, 404 unknown model…) fails at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tenacity import RetryCallState, wait_exponential, wait_random

from swarm.llm.base import LLMError

RETRYABLE_STATUS = frozenset({408, 409, 429})


def is_retryable_status(status: int | None) -> bool:
    """True for statuses a later attempt may fix."""
    return status is not None and (status in RETRYABLE_STATUS or status >= 500)


class ProviderError(LLMError):
    """A model call failed; `status` is the HTTP status (None for timeouts/connection errors)."""

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        model: str,
        status: int | None = None,
        retryable: bool = False,
        retry_after_s: float | None = None,
        attempts: int = 1,
        tools_rejected: bool = False,
    ) -> None:
        super().__init__(message)
        self.tools_rejected = tools_rejected  # the endpoint said it cannot take tools
        self.schema_rejected = False  # the endpoint said it cannot take a JSON-schema response_format
        self.provider = provider
        self.model = model
        self.status = status
        self.retryable = retryable
        self.retry_after_s = retry_after_s
        self.attempts = attempts


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter: wait ~base_s * 2**(n-1) (+ up to jitter_s), never above max_wait_s.

    A server's `Retry-After` is honoured (capped at max_wait_s) when it asks for longer.
    """

    base_s: float = 1.0
    max_wait_s: float = 60.0
    jitter_s: float | None = None
    honor_retry_after: bool = True

    def __post_init__(self) -> None:
        if self.base_s < 0 or self.max_wait_s < 0 or (self.jitter_s is not None and self.jitter_s < 0):
            raise ValueError(f"retry waits must be >= 0, got {self}")

    def backoff(self) -> Callable[[RetryCallState], float]:
        """The tenacity wait without `Retry-After`: exponential plus uniform jitter.

        Built from `wait_exponential` and `wait_random`, whose signatures are the same in every tenacity
        the project allows (>=8.2,<10); `wait_exponential_jitter` renamed its first argument between them.
        """
        jitter = self.base_s if self.jitter_s is None else self.jitter_s
        return wait_exponential(multiplier=self.base_s, max=self.max_wait_s) + wait_random(0, jitter)

    def wait(self, state: RetryCallState) -> float:
        """Seconds to wait before the next attempt (a tenacity `wait` callable)."""
        seconds = self.backoff()(state)
        exc = state.outcome.exception() if state.outcome else None
        retry_after = getattr(exc, "retry_after_s", None)
        if self.honor_retry_after and retry_after:
            seconds = max(seconds, min(float(retry_after), self.max_wait_s))
        return min(seconds, self.max_wait_s)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a `Retry-After` header holding a number (HTTP dates are ignored)."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None
