"""AIDE's search policy: draft until `num_drafts`, sometimes debug a buggy leaf, else improve the best.

Steps may run in parallel, so the policy also sees the steps already planned but not finished: a pending
draft counts as a draft, and a buggy leaf already being debugged is not picked twice.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from swarm.config import Config
from swarm.journal import Journal
from swarm.pipeline.state import StepPlan


def choose_next(
    journal: Journal, pending: Sequence[StepPlan], cfg: Config, rng: random.Random
) -> tuple[str, list[str]]:
    """The next step's task type and parent ids."""
    search = cfg.search
    drafts = len(journal.draft_nodes()) + sum(1 for plan in pending if plan.task_type == "draft")
    if drafts < search.num_drafts:
        return "draft", []

    busy = {pid for plan in pending for pid in plan.parent_ids}
    if rng.random() < search.debug_prob:
        debuggable = [
            node
            for node in journal.buggy_nodes()
            if journal.is_leaf(node.id)
            and journal.debug_depth(node.id) <= search.max_debug_depth
            and node.id not in busy
        ]
        if debuggable:
            return "debug", [rng.choice(debuggable).id]

    best = journal.best_node(only_good=True)
    if best is None:
        return "draft", []
    return "improve", [best.id]
