"""When a failed task is worth retrying: model and engine faults, never a solution's own bug."""

from __future__ import annotations

from typing import Any

from swarm.llm.base import SpendCapReached, TokenBudgetSpent

SOLUTION_FAILED = "solution failed"


def worth_retrying(task: Any, task_run: Any, state: Any) -> bool:
    if (state.message or "").startswith(SOLUTION_FAILED):
        return False
    try:
        state.result()
    except (SpendCapReached, TokenBudgetSpent):  # a retry would bill another empty reply
        return False
    except Exception:  # noqa: BLE001 - any other fault of a model or the engine may pass
        return True
    return False
