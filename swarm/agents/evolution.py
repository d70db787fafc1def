"""The agent layer's evolution: every `evolution_interval` epochs, once the experience pool holds
`min_records_for_evolution` records, the weakest agents get their role and strategies rewritten.

Each agent's score is its success rate times its mean quality (qualities re-scored over the whole pool now,
so early records are not flattered). The best `agents_kept` agents stay as they are; every other agent has
each of its four texts (role, strategy_explore, strategy_merge, strategy_mutate) rewritten by the evolution
model, shown its current text, the best agent's text, both records, and its own best and worst cases. New
texts become new versions in the run's `AgentStore` (lineage and history in `skills/meta`); a reply without
a usable text leaves that part as it was and says why.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from swarm.agents.experience import AgentStats, ExperiencePool, ExperienceRecord
from swarm.agents.fitted_prompts import fit_evolution_prompt
from swarm.agents.prompting import PromptBuilder, PromptError, extract_evolved_text
from swarm.agents.store import PARTS, AgentProfile, AgentStore
from swarm.llm.base import CallContext, LLMClient, LLMError

log = logging.getLogger(__name__)
CASES_SHOWN = 3


@dataclass
class PartChange:
    """One rewritten text (or why it was not rewritten)."""

    agent_id: str
    part: str
    old_version: str
    new_version: str | None
    diff: str = ""
    error: str | None = None


@dataclass
class EvolutionReport:
    """What one evolution round did."""

    epoch: int
    scores: dict[str, float]
    kept: list[str]
    evolved: list[str]
    changes: list[PartChange] = field(default_factory=list)
    skipped: str | None = None


def evolution_due(epoch: int, interval: int, records: int, min_records: int) -> str | None:
    """None when agent evolution should run after `epoch`, else why not."""
    if epoch % interval:
        return f"epoch {epoch} is not a multiple of evolution_interval {interval}"
    if records < min_records:
        return (
            f"the experience pool holds {records} records, fewer than min_records_for_evolution {min_records}"
        )
    return None


def stats_of(records: Sequence[ExperienceRecord]) -> AgentStats:
    """Count, success rate and mean quality (failures count with their quality, usually 0)."""
    if not records:
        return AgentStats(count=0, success_rate=0.0, mean_quality=0.0)
    successes = sum(1 for r in records if r.success)
    return AgentStats(
        count=len(records),
        success_rate=successes / len(records),
        mean_quality=sum(r.quality for r in records) / len(records),
    )


def agent_score(stats: AgentStats) -> float:
    """success rate x mean quality; an agent with no record scores 0."""
    return stats.success_rate * stats.mean_quality


def rank_agents(
    agent_ids: Sequence[str], records: Sequence[ExperienceRecord]
) -> list[tuple[str, AgentStats]]:
    """Agents with their stats, best score first (ties: more records first, then agent id)."""
    ranked = [(a, stats_of([r for r in records if r.agent_id == a])) for a in agent_ids]
    ranked.sort(key=lambda item: (-agent_score(item[1]), -item[1].count, item[0]))
    return ranked


def cases(records: Sequence[ExperienceRecord], agent_id: str) -> tuple[list[ExperienceRecord], list]:
    """An agent's best successes and its worst cases (failures first, then its weakest successes)."""
    mine = [r for r in records if r.agent_id == agent_id]
    best = sorted((r for r in mine if r.success), key=lambda r: -r.quality)[:CASES_SHOWN]
    worst = sorted(mine, key=lambda r: (r.success, r.quality))
    worst = [r for r in worst if r not in best][:CASES_SHOWN]
    return best, worst


def text_diff(agent_id: str, part: str, old: str, new: str, old_version: str, new_version: str) -> str:
    """A unified diff of one text change."""
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"{agent_id}/{part}.{old_version}.md",
            tofile=f"{agent_id}/{part}.{new_version}.md",
        )
    )


def already_evolved(store: AgentStore, epoch: int) -> bool:
    """Whether this epoch's round already wrote versions (a resumed run must not evolve twice)."""
    tag = epoch_tag(epoch)
    return any(event["reason"].startswith(tag) for event in store.history())


def epoch_tag(epoch: int) -> str:
    return f"[epoch {epoch}]"


def evolve_agents(
    *,
    store: AgentStore,
    pool: ExperiencePool,
    builder: PromptBuilder,
    client: LLMClient,
    task_desc: str,
    epoch: int,
    agent_ids: Sequence[str],
    agents_kept: int,
    lower_is_better: bool,
    run_id: str | None = None,
    max_prompt_tokens: int | None = None,
) -> EvolutionReport:
    """Rewrite the texts of every agent below the best `agents_kept` (see the module docstring).

    `max_prompt_tokens`: the room the evolution model's context leaves beside its reply (None: not known);
    each prompt is fitted to it (`swarm.agents.fitted_prompts.fit_evolution_prompt`)."""
    records = pool.rescored(lower_is_better)
    ranked = rank_agents(agent_ids, records)
    scores = {a: round(agent_score(s), 6) for a, s in ranked}
    kept = [a for a, _ in ranked[:agents_kept]]
    report = EvolutionReport(epoch=epoch, scores=scores, kept=kept, evolved=[])
    if already_evolved(store, epoch):
        report.skipped = f"epoch {epoch} was evolved before (a resumed run)"
        return report
    elite_id, elite_stats = ranked[0]
    elite = store.current(elite_id)
    for agent_id, stats in ranked[agents_kept:]:
        best, worst = cases(records, agent_id)
        profile = store.current(agent_id)
        for part in PARTS:
            change = _evolve_part(
                store,
                builder,
                client,
                part,
                profile,
                stats,
                elite,
                elite_stats,
                best,
                worst,
                task_desc,
                CallContext(
                    stage="evolution",
                    kind="evolve_role" if part == "role" else "evolve_strategy",
                    run_id=run_id,
                    epoch=epoch,
                    agent_id=agent_id,
                ),
                reason=f"{epoch_tag(epoch)} score {agent_score(stats):.3f} below the kept agents; "
                f"elite {elite_id} scores {agent_score(elite_stats):.3f}",
                max_prompt_tokens=max_prompt_tokens,
            )
            report.changes.append(change)
        if any(c.new_version for c in report.changes if c.agent_id == agent_id):
            report.evolved.append(agent_id)
    return report


def _evolve_part(
    store: AgentStore,
    builder: PromptBuilder,
    client: LLMClient,
    part: str,
    profile: AgentProfile,
    stats: AgentStats,
    elite: AgentProfile,
    elite_stats: AgentStats,
    best: list[ExperienceRecord],
    worst: list[ExperienceRecord],
    task_desc: str,
    ctx: CallContext,
    reason: str,
    max_prompt_tokens: int | None = None,
) -> PartChange:
    old_text, old_version = profile.texts[part], profile.versions[part]
    change = PartChange(profile.agent_id, part, old_version, None)
    inputs: dict[str, Any] = {
        "task_desc": task_desc,
        "stats": stats,
        "elite": elite,
        "elite_stats": elite_stats,
        "examples": best,
        "failures": worst,
    }
    if max_prompt_tokens is None:
        messages = builder.build_evolution(part, profile, **inputs)
    else:
        messages = fit_evolution_prompt(builder, max_prompt_tokens, part, profile, **inputs).messages
    ctx.hints = {
        "current_text": old_text,
        "elite_text": elite.texts[part],
        "stats": {
            "count": stats.count,
            "success_rate": stats.success_rate,
            "mean_quality": stats.mean_quality,
            "elite": {
                "count": elite_stats.count,
                "success_rate": elite_stats.success_rate,
                "mean_quality": elite_stats.mean_quality,
            },
        },
    }
    try:
        new_text = extract_evolved_text(client.complete(messages, ctx))
    except (LLMError, PromptError) as exc:
        change.error = f"{type(exc).__name__}: {exc}"
        log.warning("evolution of %s/%s kept %s: %s", profile.agent_id, part, old_version, change.error)
        return change
    if new_text.strip() == old_text.strip():
        change.error = "the model returned the text unchanged"
        return change
    change.new_version = store.write_version(profile.agent_id, part, new_text, reason, old_version)
    change.diff = text_diff(profile.agent_id, part, old_text, new_text, old_version, change.new_version)
    return change
