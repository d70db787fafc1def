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
from swarm.llm.review import SUBMIT_REVIEW, ExecutionFacts, ReviewOutcome, SubmitReview, review_execution
from swarm.llm.usage import UsageLedger, UsageRecord, ledger_for_run

__all__ = [
    "SUBMIT_REVIEW",
    "CallContext",
    "ExecutionFacts",
    "LLMClient",
    "LLMError",
    "Message",
    "ProviderError",
    "RetryPolicy",
    "ReviewOutcome",
    "SpendCapReached",
    "SubmitReview",
    "TokenBudgetSpent",
    "ToolSpec",
    "UsageLedger",
    "UsageRecord",
    "ledger_for_run",
    "make_client",
    "make_stage_clients",
    "review_execution",
]
