"""OfflineClient: an LLMClient that needs no network and writes real tabular ML solutions.

It ignores the prompt text and acts on `ctx.kind` and these `ctx.hints` keys:

- `input_dir` (or `competition_dir`): host path with train.csv, test.csv, sample_submission.csv,
  description.md (for `competition_dir` also its `public/` or `prepared/public/`); without it the code
  infers the task at run time.
- `seed`: varies drafts and changes (with the client seed, node id, agent id, epoch).
- `gpus`: how many GPUs a solution has (absent: none); drafts then train LightGBM on the GPU when it can.
- improve/mutate: `parent_code`; mutate also `gene` (a gene section name).
- merge: `parent_codes` (two codes), `crossover_plan` ({section: 0 or 1}).
- debug: `parent_code`, `parent_output` (the failed run's terminal output).
- review: `output` (terminal output), `has_submission`, `exit_code`, `timed_out`.
- evolve_role / evolve_strategy: `current_text`, `elite_text`, `stats`.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Any

from swarm.layouts.registry import READ_BY_CODER
from swarm.llm.base import CallContext, LLMError, Message, ToolSpec
from swarm.offline_coder import coder, sections
from swarm.offline_coder.evolve import evolve_text
from swarm.offline_coder.review import fill_schema, review_facts
from swarm.offline_coder.task import find_data_files, infer_task_from_dir, missing_tables

CODE_KINDS = ("draft", "improve", "mutate", "merge", "debug")
EVOLVE_KINDS = ("evolve_role", "evolve_strategy")
# How many fresh draws an improve/mutate makes to avoid repeating a child it already gave for that parent, and
# after how many it explores instead of redrawing the known upgrade (an exploring draw may repeat a choice too:
# with a handful of choices left, 60 draws miss an unseen one about once in a million).
_FRESH_TRIES = 64
_UPGRADE_TRIES = 4
_MEMORY_PARENTS = 256


def find_input_dir(hints: dict[str, Any]) -> Path | None:
    """The directory with the competition's public files named by the hints, or None."""
    for key in ("input_dir", "competition_dir"):
        if not hints.get(key):
            continue
        root = Path(hints[key]).expanduser()
        for candidate in (root, root / "public", root / "prepared" / "public"):
            if not missing_tables(str(candidate)):
                return candidate
        raise LLMError(
            f"hints[{key!r}] = {str(root)!r} lacks {' and '.join(missing_tables(str(root)))} (the offline coder "
            "reads a labelled table, the sample submission, and test.csv where there is one)"
        )
    return None


@lru_cache(maxsize=32)
def _task_for(path: str, mtime: float, metric: str | None) -> dict[str, Any]:
    return infer_task_from_dir(path, metric=metric)


def coarse_metric(name: Any) -> str | None:
    """The offline coder's name for the run's metric (hints["metric"], a library name), or None."""
    from swarm.competitions.metric_wording import COARSE_METRIC  # lazily: keeps this module light

    return COARSE_METRIC.get(str(name)) if name else None


def task_from_hints(hints: dict[str, Any]) -> dict[str, Any] | None:
    """The inferred task dict (cached per directory), or None when no input dir is given. The run's metric
    (hints["metric"]) wins over the one the coder reads in description.md."""
    input_dir = find_input_dir(hints)
    if input_dir is None:
        return None
    try:
        files = find_data_files(str(input_dir))
        layout = next((layout for layout in READ_BY_CODER if files.get(layout.name)), None)
        labelled = (
            layout.labelled(files[layout.name]) if layout else files["train"] or files["train_files"]["train"]
        )
        mtime = (input_dir / labelled).stat().st_mtime
        return _task_for(str(input_dir), mtime, coarse_metric(hints.get("metric")))
    except (ValueError, OSError) as exc:
        raise LLMError(f"offline coder cannot read the competition in {input_dir}: {exc}") from exc


class OfflineClient:
    """A deterministic, rule-based coder behind the LLMClient protocol."""

    provider = "offline"
    model = "offline-coder"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = 0 if seed is None else int(seed)
        # parent code hash -> hashes of the children already proposed for it (search often improves the
        # same best node again and again; a repeated child would only waste a run)
        self._children: OrderedDict[str, set[str]] = OrderedDict()
        self._lock = threading.Lock()

    def _rng(self, ctx: CallContext) -> random.Random:
        """A generator fixed by the client seed, the call's kind, agent and epoch, its seed/gene hints and its
        parents (by their genomes, `_parent_key`). Without hints["seed"] the node id varies it; with one (the
        pipeline passes a seeded per-step value), a run repeats exactly under the same project seed, whatever its
        random node ids."""
        hints = ctx.hints
        codes = [hints.get("parent_code"), *(hints.get("parent_codes") or [])]
        parents = json.dumps([_parent_key(code) for code in codes], default=str)
        parent_hash = hashlib.sha256(parents.encode()).hexdigest()[:16]
        key = [
            self.seed,
            ctx.kind,
            ctx.node_id if hints.get("seed") is None else None,
            ctx.agent_id,
            ctx.epoch,
            hints.get("seed"),
            hints.get("gene"),
        ]
        return random.Random(json.dumps([*key, parent_hash], default=str))

    def complete(self, messages: list[Message], ctx: CallContext) -> str:
        """Code requests get a plan and one python block; evolution gets the improved text."""
        if ctx.kind in CODE_KINDS:
            return self.code_reply(ctx).text()
        if ctx.kind in EVOLVE_KINDS:  # the evolution prompts' format: a rationale, then one markdown block
            rationale = "The offline coder keeps the text and appends lessons drawn from the agent's record."
            return f"{rationale}\n\n```markdown\n{self._evolve(ctx).strip()}\n```\n"
        if ctx.kind == "review":
            return json.dumps(review_facts(ctx.hints))
        return "The offline coder has no answer for this request; it only writes, repairs and reviews code."

    def code_reply(self, ctx: CallContext) -> coder.CodeReply:
        """The (plan, code) for a draft/improve/mutate/merge/debug request."""
        hints, rng = ctx.hints, self._rng(ctx)
        task = task_from_hints(hints)
        if task is not None and hints.get("gpus"):
            task = {**task, "gpus": int(hints["gpus"])}  # the run's solutions have GPUs
        try:
            if ctx.kind == "draft":
                return coder.draft(task, rng)
            if ctx.kind == "merge":
                codes = hints.get("parent_codes")
                if not isinstance(codes, list | tuple):
                    raise ValueError("merge needs hints['parent_codes'] (a list of two codes)")
                return coder.merge(list(codes), dict(hints.get("crossover_plan") or {}), task)
            parent = hints.get("parent_code")
            if not isinstance(parent, str) or not parent.strip():
                raise ValueError(f"{ctx.kind} needs hints['parent_code'] (the parent's code)")
            if ctx.kind in ("improve", "mutate"):
                gene = hints.get("gene") if ctx.kind == "mutate" else None
                if ctx.kind == "mutate" and not gene:
                    raise ValueError("mutate needs hints['gene'] (the section to change)")
                return self._fresh_change(parent, task, rng, str(gene) if gene else None)
            return coder.debug(parent, str(hints.get("parent_output") or ""), task, rng.randrange(1, 10_000))
        except ValueError as exc:
            raise LLMError(f"offline coder, {ctx.kind} request: {exc}") from exc

    def _fresh_change(
        self, parent: str, task: dict[str, Any] | None, rng: random.Random, gene: str | None
    ) -> coder.CodeReply:
        """An improve/mutate of `parent` that this client has not proposed before, when one can be found."""
        key = _digest(parent)
        with self._lock:
            seen = set(self._children.get(key, ()))
        reply = coder.improve(parent, task, rng, gene=gene)
        for attempt in range(1, _FRESH_TRIES):
            if _digest(reply.code) not in seen:
                break
            # a known upgrade was already proposed: after a few redraws, explore instead
            reply = coder.improve(parent, task, rng, gene=gene, explore=attempt >= _UPGRADE_TRIES)
        with self._lock:
            self._children.setdefault(key, set()).add(_digest(reply.code))
            self._children.move_to_end(key)
            while len(self._children) > _MEMORY_PARENTS:
                self._children.popitem(last=False)
        return reply

    def _evolve(self, ctx: CallContext) -> str:
        hints = ctx.hints
        return evolve_text(
            ctx.kind, str(hints.get("current_text") or ""), hints.get("elite_text"), hints.get("stats")
        )

    def call_tool(self, messages: list[Message], tool: ToolSpec, ctx: CallContext) -> dict[str, Any]:
        """Review-like schemas get the facts from the output; `metric` gets the metric the description names
        (by rules); others get defaults or typed placeholders."""
        known: dict[str, Any] = {}
        text = ""
        if ctx.kind == "metric":
            return fill_schema(tool.schema, _metric_answer(messages, ctx))
        if ctx.kind in EVOLVE_KINDS:
            text = self._evolve(ctx)
            known = {name: text for name in ("text", "content", "prompt", "role", "strategy", "new_text")}
        elif ctx.kind in CODE_KINDS:
            reply = self.code_reply(ctx)
            text = reply.text()
            known = {"code": reply.code, "plan": reply.plan, "text": text}
        if "output" in ctx.hints or ctx.kind == "review":
            known = {**review_facts(ctx.hints), **known}
        return fill_schema(tool.schema, known, text)


def _metric_answer(messages: list[Message], ctx: CallContext) -> dict[str, Any]:
    """choose_metric's arguments for hints["description"] (else the last user message), found by rules."""
    from swarm.competitions.metric_wording import infer_metric_rules  # lazily: only metric requests need it
    from swarm.competitions.metrics import METRICS

    description = ctx.hints.get("description")
    if not isinstance(description, str):
        description = next((m.content for m in reversed(messages) if m.role == "user"), "")
    found = infer_metric_rules(description)
    if found is None:
        raise LLMError(
            "offline coder, metric request: no metric found in the description; name one with --metric"
        )
    answer = {
        "name": found.name,
        "lower_is_better": METRICS[found.name].lower_is_better,
        "reason": f"offline coder rules: {found.reason}",
    }
    return {**answer, **({"k": found.params["k"]} if "k" in found.params else {})}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _parent_key(code: Any) -> Any:
    """What of a parent's code seeds its children's choices: its `# offline-choice:` lines where it has any (the
    genome the coder wrote it from, so that a change of the templates' wording leaves a run's choices as they
    were), else the code itself (a parent some model wrote)."""
    if not isinstance(code, str):
        return code
    return sections.choice_lines(code) or code
