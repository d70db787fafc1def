"""The offline coder's code requests: draft, improve, mutate, merge, debug -> (plan, code)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from swarm.offline_coder.genome import (
    Genome,
    change_one,
    draft_genome,
    fallback_choice,
    safe_choice,
    safe_genome,
)
from swarm.offline_coder.render import render_section, render_solution
from swarm.offline_coder.sections import read_genome, section_of_line, split_code
from swarm.protocol import GENE_SECTIONS


@dataclass(frozen=True)
class CodeReply:
    """A plan paragraph and the full solution code."""

    plan: str
    code: str

    def text(self) -> str:
        """The reply as a model gives it: the plan, then one python block."""
        return f"{self.plan}\n\n```python\n{self.code.rstrip()}\n```\n"


def _describe(genome: Genome) -> str:
    model = genome.get("MODEL", {}).get("family", "?")
    data = genome.get("DATA", {}).get("features", "?")
    opt = genome.get("OPTIMIZER", {})
    tricks = genome.get("TRAINING_TRICKS", {})
    parts = [f"a {model} model on {data} features"]
    if opt:
        parts.append(f"learning rate {opt.get('learning_rate')} with {opt.get('n_estimators')} rounds")
    if tricks:
        parts.append(f"{tricks.get('validation')} validation")
        if tricks.get("target_transform") == "log1p":
            parts.append("a log1p target")
        if int(tricks.get("seed_bag", 1)) > 1:
            parts.append(f"{tricks.get('seed_bag')} seeds averaged")
    return ", ".join(parts)


def _task_words(task: dict[str, Any] | None) -> str:
    if task is None:
        return "The data was not available to me, so the script infers id, target and metric at run time."
    target = task["targets"][0]
    return (
        f"The task is {target['task']} on `{target['name']}` (id `{task['id_col']}`), "
        f"scored by {task['metric']} ({'lower' if task['lower_is_better'] else 'higher'} is better)."
        + _columns_words(task.get("columns") or {})
    )


_KIND_WORDS = {
    "text": "free text (TF-IDF n-gram models)",
    "datetime": "dates (their parts)",
    "file": "file references (pixels of images)",
    "high_cardinality": "many-level codes (frequencies, target means)",
}


def _columns_words(kinds: dict[str, dict]) -> str:
    """What the columns hold, for the plan: the kinds that need more than numbers and codes."""
    parts = []
    for kind, words in _KIND_WORDS.items():
        names = [f"`{name}`" for name, info in kinds.items() if info.get("kind") == kind]
        if names:
            parts.append(f"{words}: {', '.join(names[:4])}")
    after = [
        n for n, info in kinds.items() if info.get("kind") == "datetime" and info.get("test_after_train")
    ]
    if after:
        parts.append(f"test lies after train in `{after[0]}`, so validation is time-ordered")
    return (" Columns beyond numbers and codes: " + "; ".join(parts) + ".") if parts else ""


def draft(task: dict[str, Any] | None, rng: random.Random) -> CodeReply:
    """A fresh solution with varied choices."""
    genome = draft_genome(task, rng)
    plan = f"Plan: {_task_words(task)} I will start with {_describe(genome)}."
    return CodeReply(plan, render_solution(task, genome))


def _readable(parent_code: str) -> tuple[Any, Genome] | None:
    split = split_code(parent_code)
    genome = read_genome(split)
    if not split.has_all_sections() or not genome:
        return None
    return split, genome


def improve(
    parent_code: str,
    task: dict[str, Any] | None,
    rng: random.Random,
    gene: str | None = None,
    explore: bool = False,
) -> CodeReply:
    """Change one section of the parent (`gene` if given), keeping the rest of its text as it is.

    `explore=True` makes an exploratory change even where an upgrade is known.
    """
    if gene is not None and gene not in GENE_SECTIONS:
        raise ValueError(f"unknown gene {gene!r}; expected one of {', '.join(GENE_SECTIONS)}")
    readable = _readable(parent_code)
    if readable is None:
        reply = draft(task, rng)
        note = "I cannot read the parent's sections (not written by me), so I write a fresh solution instead."
        return CodeReply(f"{note} {reply.plan}", reply.code)
    split, genome = readable
    if gene is not None and gene not in genome:
        genome = {**genome, gene: safe_choice(gene, task)}
    section, choice, is_upgrade = change_one(genome, task, rng, gene, explore_only=explore)
    split.sections[section] = render_section(section, choice)
    why = "a change that usually helps" if is_upgrade else "an exploratory change"
    plan = (
        f"Plan: {_task_words(task)} I change only the {section} section ({why}): "
        f"{genome.get(section)} -> {choice}. Everything else stays as in the parent."
    )
    return CodeReply(plan, split.join())


def merge(parent_codes: list[str], plan_map: dict[str, int], task: dict[str, Any] | None) -> CodeReply:
    """Take each section from parent 0 or 1 as `plan_map` says (default 0); the preamble comes from parent 0."""
    if len(parent_codes) != 2:
        raise ValueError(
            f"merge needs exactly two parent codes in hints['parent_codes'], got {len(parent_codes)}"
        )
    bad = {k: v for k, v in plan_map.items() if k not in GENE_SECTIONS or v not in (0, 1)}
    if bad:
        raise ValueError(f"crossover_plan maps gene sections to 0 or 1; bad entries: {bad}")
    splits = [split_code(code) for code in parent_codes]
    preamble = splits[0].preamble if splits[0].sections else splits[1].preamble
    merged = split_code(preamble)
    taken = []
    for section in GENE_SECTIONS:
        index = plan_map.get(section, 0)
        source = splits[index].sections.get(section) or splits[1 - index].sections.get(section)
        merged.sections[section] = source or render_section(section, safe_choice(section, task))
        taken.append(f"{section}<-{index}")
    plan = f"Plan: {_task_words(task)} Merge the parents section by section: {', '.join(taken)}."
    return CodeReply(plan, merged.join())


_FRAME_RE = re.compile(r'File "([^"]+)", line (\d+)')
_TIMEOUT_RE = re.compile(r"timed? ?out|TimeoutError|time limit", re.IGNORECASE)
_FEATURE_TROUBLE_RE = re.compile(
    r"Item wrong length|Length of values|Found array with 0 (?:feature|sample)|shapes? .*(?:mismatch|not aligned)"
    r"|inconsistent numbers of samples|DATA built no features",
    re.IGNORECASE,
)
_NO_FEATURES_RE = re.compile(r"^features \([a-z]+\): 0\b", re.MULTILINE)


def failing_line(output: str) -> int | None:
    """The line of the solution script where the error in `output` was raised (library frames skipped)."""
    frames = [(path, int(line)) for path, line in _FRAME_RE.findall(output or "")]
    own = [line for path, line in frames if "site-packages" not in path and "/lib/python" not in path
           and not path.startswith("<")]  # fmt: skip
    return own[-1] if own else None


def error_summary(output: str) -> str:
    """The last error-looking line of `output`, or a note that none was found."""
    for line in reversed((output or "").strip().splitlines()):
        if re.search(r"(Error|Exception|Killed|Timeout)\b", line):
            return line.strip()[:300]
    return "no error message found"


def failing_sections(parent_code: str, output: str) -> list[str]:
    """The sections to repair, most likely first: the one the traceback points to, then DATA when the error
    looks like a problem of the features (no features, wrong lengths or shapes) raised further on."""
    line = failing_line(output)
    found = section_of_line(parent_code, line) if line else None
    sections = [found] if found else []
    if found != "DATA" and (_FEATURE_TROUBLE_RE.search(output or "") or _NO_FEATURES_RE.search(output or "")):
        sections.append("DATA")
    return sections


def debug(parent_code: str, output: str, task: dict[str, Any] | None, seed: int) -> CodeReply:
    """Repair toward safe choices: the failing section if it can be found (DATA when the features are at
    fault), else the whole solution."""
    error = error_summary(output)
    readable = _readable(parent_code)
    line = failing_line(output)
    timed_out = bool(_TIMEOUT_RE.search(output or ""))
    for section in failing_sections(parent_code, output) if readable and not timed_out else []:
        split, genome = readable
        fix = fallback_choice(section, genome.get(section, {}), task)
        if genome.get(section) != fix:
            split.sections[section] = render_section(section, fix)
            where = f"line {line}" if line else "no line"
            plan = (
                f"Plan: the run failed in or because of the {section} section ({where}: {error}). "
                f"I rewrite that section with the safer choice {fix} and keep the others."
            )
            return CodeReply(plan, split.join())
    genome = safe_genome(task)
    if readable and "INITIALIZATION" in readable[1]:
        genome["INITIALIZATION"] = readable[1]["INITIALIZATION"]
    else:
        genome["INITIALIZATION"] = {"seed": seed}
    reason = "it timed out" if timed_out else f"the error is `{error}`"
    plan = (
        f"Plan: {reason}; I rewrite the whole solution with the safest choices "
        f"({_describe(genome)}). {_task_words(task)}"
    )
    return CodeReply(plan, render_solution(task, genome))
