"""A model's reply that failed a step, shown in the Prefect UI: a warning with its head in the task run's log,
and a markdown artifact holding it (trimmed) under a key naming the node.

The generate task shows a reply without code, the review task a review whose call failed or whose verdict the
facts overruled; the run's report shows the same replies (`swarm.pipeline.replies`).
"""

from __future__ import annotations

import re
from pathlib import Path

from prefect import get_run_logger
from prefect.artifacts import create_markdown_artifact

from swarm.pipeline.replies import fenced
from swarm.text import trim_middle

HEAD_CHARS = 500  # of the reply, in the log's warning
ARTIFACT_CHARS = 20_000  # of the reply, in the artifact


def reply_key(what: str, node_id: str) -> str:
    """The artifact key (lowercase letters, digits, dashes, as Prefect requires), e.g. `reply-3f2c1a...`."""
    return re.sub(r"[^a-z0-9-]+", "-", f"{what}-{node_id}".lower()).strip("-")


def show_reply(what: str, node_id: str, why: str, reply: str, exchanges: Path | None = None) -> None:
    """Log why the step failed with the reply's head (a warning), and keep the reply as an artifact."""
    head = " ".join(reply[:HEAD_CHARS].split())
    get_run_logger().warning("node %s: %s; the model replied: %s", node_id, why, head or "(nothing)")
    where = f"\n\nEvery exchange of this node: `{exchanges}`" if exchanges else ""
    markdown = "\n".join(
        [f"# {what} of node `{node_id}`", "", why + where, "", *fenced(trim_middle(reply, ARTIFACT_CHARS))]
    )
    create_markdown_artifact(markdown=markdown, key=reply_key(what, node_id), description=why[:200])
