"""What the model said where a step failed for the model's sake, for the run's report and the Prefect UI.

A step fails for the model's sake when its reply had no code (`meta.parse_error`), its review call failed
(`meta.review_error`) or the facts overruled its reviewer (`meta.review_overruled`). The report shows such a
node's raw reply, trimmed, read from the node's exchanges file (`swarm.llm.exchanges`: the last reply of the
stage that failed), and that file's path, so a user can read what the model answered instead of a length.
Where no exchange was kept (a run from before exchanges were), the node's own record stands in: the head of a
codeless reply, the review's summary.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from swarm.journal import Node
from swarm.llm.exchanges import exchanges_path, read_exchanges
from swarm.text import trim_middle

REPLY_CHARS = 1500  # of one reply in the report: its head and its tail
MAX_SHOWN = 10  # nodes shown in the report (the latest); the others are in their exchanges files


@dataclass(frozen=True)
class FailedReply:
    """A node's step that failed for the model's sake: why, the stage's last reply (untrimmed) and where
    the node's exchanges are (None when none were kept)."""

    node_id: str
    stage: str  # "code" or "feedback"
    why: str
    reply: str
    exchanges: Path | None


def codeless_why(parse_error: str, reasked: bool) -> str:
    """Why a step whose reply had no code failed."""
    return f"the reply had no code{' (asked twice)' if reasked else ''}: {parse_error}"


def review_why(review_error: str | None, overruled: bool, bug_reason: str | None) -> str | None:
    """Why a review failed the step for the model's sake: its call failed, or the facts overruled it."""
    if review_error:
        return f"the review call failed: {review_error}"
    if overruled:
        return f"the reviewer said the run was fine; the facts: {bug_reason}"
    return None


def failed_stage(node: Node) -> tuple[str, str] | None:
    """(the stage whose reply failed the step, why), or None when the model is not why the step failed."""
    meta = node.meta
    if meta.parse_error:
        return "code", codeless_why(meta.parse_error, bool(meta.reasked))
    why = review_why(meta.review_error, bool(meta.review_overruled), node.bug_reason)
    return ("feedback", why) if why else None


def exchange_text(exchange: dict[str, Any]) -> str:
    """What one exchange received: the reply's text, else its tool arguments as JSON, else why none came."""
    if exchange.get("reply"):
        return str(exchange["reply"])
    if exchange.get("tool_args") is not None:
        return json.dumps(exchange["tool_args"], ensure_ascii=False, indent=1)
    return f"(no reply: {exchange.get('error') or 'empty'})"


def last_reply(run_root: Path, node_id: str, stage: str) -> str | None:
    """The last reply of `stage` kept in the node's exchanges (one that received something, if any did)."""
    mine = [e for e in read_exchanges(run_root, node_id) if e.get("stage") == stage]
    answered = [e for e in mine if e.get("reply") or e.get("tool_args") is not None]
    pool = answered or mine
    return exchange_text(pool[-1]) if pool else None


def kept_exchanges(run_root: Path, node_id: str) -> Path | None:
    """The node's exchanges file, or None when no exchange of it was kept."""
    path = exchanges_path(run_root, node_id)
    return path if path.is_file() else None


def failed_reply(run_root: Path, node: Node) -> FailedReply | None:
    """The reply that failed `node`'s step, or None when the model is not why it failed."""
    failed = failed_stage(node)
    if failed is None:
        return None
    stage, why = failed
    reply = last_reply(run_root, node.id, stage)
    if reply is None:
        stand_in = node.meta.reply_head if stage == "code" else node.analysis
        reply = stand_in or "(no reply was kept)"
    return FailedReply(node.id, stage, why, reply, kept_exchanges(run_root, node.id))


def fenced(text: str) -> list[str]:
    """`text` as a markdown code block whose fence is longer than any run of backticks in it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, text.rstrip("\n"), fence]


def reply_lines(run_root: Path, nodes: Iterable[Node]) -> list[str]:
    """The report's section on steps that failed for the model's sake (empty when none did): the latest
    `MAX_SHOWN`, each with why, where its exchanges are and its reply, trimmed."""
    failed = [(node, reply) for node in nodes if (reply := failed_reply(run_root, node)) is not None]
    if not failed:
        return []
    out = ["## Model replies of failed steps", ""]
    if len(failed) > MAX_SHOWN:
        out += [f"The latest {MAX_SHOWN} of {len(failed)}; every node's exchanges are in `exchanges/`.", ""]
    for node, reply in failed[-MAX_SHOWN:]:
        where = f"exchanges: `{reply.exchanges}`" if reply.exchanges else "no exchanges were kept for it"
        out += [
            f"`{node.id[:8]}` ({node.task_type} by {node.agent_id}, step {node.step}): {reply.why}; {where}",
            "",
            *fenced(trim_middle(reply.reply, REPLY_CHARS, head_fraction=2 / 3)),
            "",
        ]
    return out
