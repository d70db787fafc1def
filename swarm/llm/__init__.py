"""Model clients for every stage: OpenAI, Anthropic, OpenAI-compatible servers, and the offline coder."""

from swarm.llm.base import (
    CallContext,
    LLMClient,
    LLMError,
    Message,
    SpendCapReached,
    TokenBudgetSpent,
    ToolSpec,
)
from swarm.llm.factory import make_client, make_stage_clients
from swarm.llm.retry import ProviderError, RetryPolicy
from swarm.llm.usage import UsageLedger, UsageRecord, ledger_for_run

__all__ = [
    "CallContext",
    "LLMClient",
    "LLMError",
    "Message",
    "ProviderError",
    "RetryPolicy",
    "SpendCapReached",
    "TokenBudgetSpent",
    "ToolSpec",
    "UsageLedger",
    "UsageRecord",
    "ledger_for_run",
    "make_client",
    "make_stage_clients",
]
