"""Prompt building: Jinja2 templates (`prompts/`) + skills (`skills/`) + an agent's texts -> chat messages.

Every prompt is built from up to seven layers, each opened by a heading line `# <LAYER>`:

    ROLE        the agent's role (evolvable)                                      system message
    FORMAT      response format: a short plan, one code block with the seven      system message
                gene section markers, the SWARM_METRIC line (from swarm.protocol)
    TASK        the competition description and what to do in this step           user message
    CONTEXT     parent code/output, crossover plan or gene, memory, data preview   user message
    STRATEGY    static skills + task-type skills + the agent's strategy            user message
    EXAMPLES    top-K successful experience records (left out when there are none, and for debug)
    GUIDELINES  workspace rules, time and steps remaining, installed packages      user message

Which skill file feeds which layer and task type is declared in `skills/meta/index.json`. Templates run with
`StrictUndefined`: a variable the builder does not pass is a `PromptError`, never an empty string. Every
free-text input is trimmed to its `PromptBudget` (chars) before rendering, keeping head and tail.

API:
    builder = PromptBuilder(templates_dir=REPO_ROOT / "prompts", skills_dir=REPO_ROOT / "skills",
                            budget=PromptBudget())
    builder.build(task_type, agent, *, task_desc, parent=None, parents=None, crossover_plan=None,
                  gene=None, memory="", data_preview="", examples=(), time_remaining_s=None,
                  steps_remaining=None, packages=(), metric_name=None, lower_is_better=None,
                  cpus=None, memory_mb=None, timeout_s=None) -> [Message(system), Message(user)]
        task_type: draft (no parent) | improve (good parent) | debug (buggy parent) -> explore template;
                   merge (parents=(a, b), crossover_plan={gene: 0|1|"A"|"B"|instruction}); mutate (parent, gene)
        packages: "name version" strings; well-known ML packages are listed first, then the rest as given
        metric_name, lower_is_better: the competition's metric (both or neither), used in FORMAT's example
        cpus, memory_mb, timeout_s: the sandbox limits of one script run, stated under GUIDELINES
        gpus: the GPUs one script run has, in words (swarm.pipeline.gpu_probe.describe_facts); None: no GPU
    builder.build_review(*, task_desc, code, output, metric=None, exec_time_s=None, timed_out=False,
                         metric_name=None, lower_is_better=None)
    builder.build_evolution(part, agent, *, task_desc, stats, elite=None, elite_stats=None, examples=(),
                            failures=())
        part: role | strategy_explore | strategy_merge | strategy_mutate; the model answers with the full
        new text in one ```markdown block (see `extract_evolved_text`).
    builder.render(template_name, **variables) -> str
    builder.assets_hash() -> str                 prompt_assets_hash of this builder's templates and skills
    layers_of(text) -> list[str]                 the layer headings of a rendered message, in order
    order_packages(packages) -> list[str]        KEY_PACKAGES first, then the rest in the given order
    (every budget is kept with swarm.text.trim_middle)
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from swarm.agents.experience import AgentStats, ExperienceRecord
from swarm.agents.store import PARTS, REPO_ROOT, AgentProfile, prompt_assets_hash
from swarm.ga.genes import missing_sections
from swarm.llm.base import Message
from swarm.protocol import (
    GENE_SECTIONS,
    METRIC_LINE_PREFIX,
    TASK_TYPES,
    ReportedMetric,
    metric_line,
    section_marker,
)
from swarm.text import trim_middle

LAYERS: tuple[str, ...] = ("ROLE", "FORMAT", "TASK", "CONTEXT", "STRATEGY", "EXAMPLES", "GUIDELINES")
WORKSPACE: dict[str, str] = {
    "input_dir": "./input/",
    "working_dir": "./working/",
    "submission_dir": "./submission/",
    "submission_path": "./submission/submission.csv",
}
TEMPLATE_BY_TASK: dict[str, str] = {
    "draft": "explore.user.j2",
    "improve": "explore.user.j2",
    "debug": "explore.user.j2",
    "merge": "merge.user.j2",
    "mutate": "mutate.user.j2",
}
# Listed first under GUIDELINES, in this order, so a long package list never hides the ones that matter.
KEY_PACKAGES: tuple[str, ...] = (
    "numpy",
    "pandas",
    "scipy",
    "scikit-learn",
    "lightgbm",
    "xgboost",
    "xgboost-cpu",
    "catboost",
    "torch",
    "torchvision",
    "torchaudio",
    "timm",
    "transformers",
    "sentence-transformers",
    "tokenizers",
    "tensorflow",
    "keras",
    "pillow",
    "opencv-python",
    "opencv-python-headless",
    "scikit-image",
    "imageio",
    "librosa",
    "soundfile",
    "statsmodels",
    "nltk",
    "polars",
    "pyarrow",
)
PARENT_LABELS: tuple[str, str] = ("A", "B")
_LAYER_RE = re.compile(r"^# (" + "|".join(LAYERS) + r")$", re.MULTILINE)
_MARKDOWN_BLOCK_RE = re.compile(r"```(?:markdown|md)?[ \t]*\n(.*?)\n```", re.DOTALL)


class PromptError(ValueError):
    """A prompt cannot be built: a missing template variable or an inconsistent request."""


@dataclass(frozen=True)
class PromptBudget:
    """Character budgets for each free-text part of a prompt (per item where there are several)."""

    task_desc: int = 6_000
    parent_code: int = 14_000
    parent_output: int = 4_000
    bug_reason: int = 800
    memory: int = 3_000
    data_preview: int = 4_000
    example: int = 600
    role: int = 3_000
    strategy: int = 4_000
    skills: int = 8_000
    packages: int = 800
    plan_note: int = 300
    review_output: int = 8_000
    evolution_text: int = 6_000
    max_examples: int = 5  # a count, not chars

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            least = 0 if name == "max_examples" else 100
            if not isinstance(value, int) or value < least:
                raise PromptError(f"PromptBudget.{name} must be an int >= {least}, got {value!r}")


@dataclass(frozen=True)
class ParentView:
    """What a prompt shows of a parent node."""

    code: str
    output: str = ""
    is_buggy: bool = False
    bug_reason: str = ""
    metric: float | None = None
    metric_name: str | None = None
    lower_is_better: bool | None = None
    node_id: str | None = None
    summary: str = ""


def layers_of(text: str) -> list[str]:
    """The layer headings (`# ROLE`, `# TASK`, ...) of a rendered message, in order."""
    return _LAYER_RE.findall(text)


def extract_evolved_text(response: str) -> str:
    """The new role/strategy text from an evolution response: its last ```markdown block."""
    blocks = _MARKDOWN_BLOCK_RE.findall(response or "")
    if not blocks or not blocks[-1].strip():
        raise PromptError("the evolution response holds no non-empty ```markdown block")
    return blocks[-1].strip() + "\n"


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "not limited"
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    return f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"


def _metric_text(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "none"
    return f"{value:.6g}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _package_key(entry: str) -> str:
    name = re.split(r"[\s=<>!~\[;]", entry.strip(), maxsplit=1)[0]
    return name.lower().replace("_", "-")


def order_packages(packages: Sequence[str]) -> list[str]:
    """`packages` ("name version" strings) with the `KEY_PACKAGES` first, in that order, then the rest.

    Raises PromptError for a single string or a non-string entry; blank entries are dropped."""
    if isinstance(packages, str | bytes):
        raise PromptError("packages must be a sequence of 'name version' strings, not one string")
    entries = []
    for entry in packages:
        if not isinstance(entry, str):
            raise PromptError(f"packages entries must be strings like 'numpy 2.4.6', got {entry!r}")
        if entry.strip():
            entries.append(" ".join(entry.split()))
    rank = {name: i for i, name in enumerate(KEY_PACKAGES)}
    return sorted(entries, key=lambda e: rank.get(_package_key(e), len(rank)))  # stable for the rest


def _plan_cell(source: int | str, limit: int) -> str:
    """One crossover-plan cell: a parent index (0, 1) or label ("A", "B"), or a note trimmed to `limit`."""
    if isinstance(source, int) and not isinstance(source, bool):
        if not 0 <= source < len(PARENT_LABELS):
            raise PromptError(f"crossover_plan parent index must be 0 or 1, got {source}")
        return PARENT_LABELS[source]
    if not isinstance(source, str) or not source.strip():
        raise PromptError(f"crossover_plan values must be 0, 1, 'A', 'B' or a note, got {source!r}")
    note = trim_middle(" ".join(source.split()).replace("|", "\\|"), limit)
    return " ".join(note.split())  # one table row: no newlines (the trim note has some), no cell breaks


def _check_metric(metric_name: str | None, lower_is_better: bool | None) -> None:
    if (metric_name is None) != (lower_is_better is None):
        raise PromptError("give both metric_name and lower_is_better of the competition, or neither")
    if metric_name is not None and (not isinstance(metric_name, str) or not metric_name.strip()):
        raise PromptError(f"metric_name must be a non-empty string, got {metric_name!r}")
    if lower_is_better is not None and not isinstance(lower_is_better, bool):
        raise PromptError(f"lower_is_better must be a bool, got {lower_is_better!r}")


def _check_limits(cpus: float | None, memory_mb: int | None, timeout_s: float | None) -> None:
    for name, value in (("cpus", cpus), ("memory_mb", memory_mb), ("timeout_s", timeout_s)):
        if value is None:
            continue
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value <= 0
        ):
            raise PromptError(f"{name} must be a positive number or None, got {value!r}")


class PromptBuilder:
    """Builds the messages of every prompt kind from the templates and skills directories."""

    def __init__(
        self,
        templates_dir: str | Path = REPO_ROOT / "prompts",
        skills_dir: str | Path = REPO_ROOT / "skills",
        budget: PromptBudget | None = None,
    ) -> None:
        self.templates_dir = Path(templates_dir)
        self.skills_dir = Path(skills_dir)
        self.budget = budget or PromptBudget()
        if not self.templates_dir.is_dir():
            raise PromptError(f"templates dir {self.templates_dir} does not exist")
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(self.templates_dir),
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
        )
        self.env.filters["duration"] = _duration
        self.env.filters["metric"] = _metric_text
        self.env.filters["number"] = _number
        self.skill_index = self._load_skill_index()

    # -- skills --------------------------------------------------------------------------------------

    def with_budget(self, budget: PromptBudget) -> PromptBuilder:
        """This builder with other budgets (same templates and skills): how a prompt is fitted to a model's
        context (`swarm.agents.fitted_prompts`)."""
        clone = copy.copy(self)
        clone.budget = budget
        return clone

    def _load_skill_index(self) -> list[dict[str, Any]]:
        path = self.skills_dir / "meta" / "index.json"
        if not path.is_file():
            raise PromptError(f"skills index {path} does not exist")
        entries = json.loads(path.read_text(encoding="utf-8")).get("skills", [])
        for entry in entries:
            missing = {"path", "layer", "task_types", "description"} - set(entry)
            if missing:
                raise PromptError(f"skills index entry {entry!r} lacks {sorted(missing)}")
            if entry["layer"] not in LAYERS:
                raise PromptError(f"skill {entry['path']} names unknown layer {entry['layer']!r}")
            if not (self.skills_dir / entry["path"]).is_file():
                raise PromptError(
                    f"skill file {self.skills_dir / entry['path']} listed in the index is missing"
                )
        return entries

    def skills_for(self, layer: str, task_type: str) -> str:
        """The concatenated skill texts for one layer and task type, trimmed to the skills budget."""
        texts = [
            (self.skills_dir / e["path"]).read_text(encoding="utf-8").strip()
            for e in self.skill_index
            if e["layer"] == layer
            and (task_type in e["task_types"] or ("*" in e["task_types"] and task_type in TASK_TYPES))
        ]
        return trim_middle("\n\n".join(texts), self.budget.skills, head_fraction=0.8)

    # -- rendering -----------------------------------------------------------------------------------

    def render(self, template_name: str, **variables: Any) -> str:
        """Render one template; a variable it uses but is not given raises PromptError."""
        try:
            template = self.env.get_template(template_name)
            text = template.render(**variables)
        except jinja2.TemplateNotFound as exc:
            raise PromptError(f"template {exc.name!r} not found in {self.templates_dir}") from None
        except jinja2.UndefinedError as exc:
            raise PromptError(f"template {template_name}: {exc.message}") from None
        return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"

    def assets_hash(self) -> str:
        """The content hash of this builder's templates and skills dirs (see `prompt_assets_hash`)."""
        return prompt_assets_hash(self.templates_dir, self.skills_dir)

    def _common(self, metric_name: str | None = None, lower_is_better: bool | None = None) -> dict[str, Any]:
        _check_metric(metric_name, lower_is_better)
        known = metric_name is not None
        return {
            "layers": LAYERS,
            "gene_sections": GENE_SECTIONS,
            "markers": [section_marker(name) for name in GENE_SECTIONS],
            "metric_prefix": METRIC_LINE_PREFIX,
            "metric_example": metric_line(
                metric_name.strip() if known else "rmse", 0.1234, lower_is_better if known else True
            ),
            "competition_metric": (
                {"name": metric_name.strip(), "lower_is_better": lower_is_better} if known else None
            ),
            "workspace": WORKSPACE,
        }

    def _parent(self, parent: ParentView, metric_name: str | None = None) -> dict[str, Any]:
        b = self.budget
        return {
            "code": trim_middle(parent.code, b.parent_code),
            "output": trim_middle(parent.output, b.parent_output, head_fraction=0.3),
            "is_buggy": parent.is_buggy,
            "bug_reason": trim_middle(parent.bug_reason, b.bug_reason),
            "metric": parent.metric,
            "metric_name": parent.metric_name or metric_name or "metric",
            "lower_is_better": parent.lower_is_better,
            "node_id": parent.node_id,
            "summary": trim_middle(parent.summary, b.bug_reason),
            # gene sections its code does not mark: an improve step asks for their markers
            "missing_markers": [section_marker(name) for name in missing_sections(parent.code)]
            if parent.code.strip()
            else [],
        }

    def _examples(self, examples: Sequence[ExperienceRecord]) -> list[dict[str, Any]]:
        return [
            {
                "agent_id": r.agent_id,
                "task_type": r.task_type,
                "quality": r.quality,
                "metric": r.metric,
                "summary": trim_middle(r.strategy_summary, self.budget.example),
            }
            for r in list(examples)[: self.budget.max_examples]
        ]

    # -- code prompts --------------------------------------------------------------------------------

    def build(
        self,
        task_type: str,
        agent: AgentProfile,
        *,
        task_desc: str,
        parent: ParentView | None = None,
        parents: tuple[ParentView, ParentView] | None = None,
        crossover_plan: Mapping[str, int | str] | None = None,
        gene: str | None = None,
        memory: str = "",
        data_preview: str = "",
        examples: Sequence[ExperienceRecord] = (),
        time_remaining_s: float | None = None,
        steps_remaining: int | None = None,
        packages: Sequence[str] = (),
        metric_name: str | None = None,
        lower_is_better: bool | None = None,
        cpus: float | None = None,
        memory_mb: int | None = None,
        timeout_s: float | None = None,
        harness_scored: bool = False,
        gpus: str | None = None,
    ) -> list[Message]:
        """The system and user messages for one code-writing step (see the module docstring)."""
        _check_request(task_type, agent, task_desc, parent, parents, crossover_plan, gene)
        _check_limits(cpus, memory_mb, timeout_s)
        b = self.budget
        variables = {
            **self._common(metric_name, lower_is_better),
            "task_type": task_type,
            "agent_id": agent.agent_id,
            "role": trim_middle(agent.role, b.role),
            "format_skills": self.skills_for("FORMAT", task_type),
            "strategy_skills": self.skills_for("STRATEGY", task_type),
            "guideline_skills": self.skills_for("GUIDELINES", task_type),
            "agent_strategy": trim_middle(agent.strategy(task_type), b.strategy),
            "task_desc": trim_middle(task_desc, b.task_desc),
            "parent": self._parent(parent, metric_name) if parent is not None else None,
            "parents": [self._parent(p, metric_name) for p in parents] if parents is not None else None,
            "crossover_plan": (
                {g: _plan_cell(src, b.plan_note) for g, src in crossover_plan.items()}
                if crossover_plan is not None
                else None
            ),
            "gene": gene,
            "gene_marker": section_marker(gene) if gene else None,
            "memory": trim_middle(memory, b.memory),
            "data_preview": trim_middle(data_preview, b.data_preview, head_fraction=0.8),
            "examples": self._examples(examples) if task_type != "debug" else [],
            "time_remaining_s": time_remaining_s,
            "steps_remaining": steps_remaining,
            "packages": trim_middle(", ".join(order_packages(packages)), b.packages, head_fraction=1.0),
            "cpus": cpus,
            "max_threads": max(1, math.ceil(cpus)) if cpus is not None else None,
            "memory_mb": memory_mb,
            "timeout_s": timeout_s,
            "harness_scored": harness_scored,
            "gpus": gpus,
        }
        return [
            Message("system", self.render("code.system.j2", **variables)),
            Message("user", self.render(TEMPLATE_BY_TASK[task_type], **variables)),
        ]

    # -- review --------------------------------------------------------------------------------------

    def build_review(
        self,
        *,
        task_desc: str,
        code: str,
        output: str,
        metric: ReportedMetric | None = None,
        exec_time_s: float | None = None,
        timed_out: bool = False,
        metric_name: str | None = None,
        lower_is_better: bool | None = None,
    ) -> list[Message]:
        """Messages asking the feedback model to judge one execution (bug or not, summary, metric)."""
        if not isinstance(task_desc, str) or not task_desc.strip():
            raise PromptError("task_desc must be a non-empty string")
        b = self.budget
        variables = {
            **self._common(metric_name, lower_is_better),
            "review_skills": self.skills_for("GUIDELINES", "review"),
            "task_desc": trim_middle(task_desc, b.task_desc),
            "code": trim_middle(code, b.parent_code),
            "output": trim_middle(output, b.review_output, head_fraction=0.3),
            "metric": metric,
            "exec_time_s": exec_time_s,
            "timed_out": timed_out,
        }
        return [
            Message("system", self.render("review.system.j2", **variables)),
            Message("user", self.render("review.user.j2", **variables)),
        ]

    # -- agent evolution -----------------------------------------------------------------------------

    def build_evolution(
        self,
        part: str,
        agent: AgentProfile,
        *,
        task_desc: str,
        stats: AgentStats,
        elite: AgentProfile | None = None,
        elite_stats: AgentStats | None = None,
        examples: Sequence[ExperienceRecord] = (),
        failures: Sequence[ExperienceRecord] = (),
    ) -> list[Message]:
        """Messages asking the evolution model to rewrite one part (role or a strategy) of `agent`:
        `examples` are its best results, `failures` its worst (failed runs and weakest scores)."""
        if part not in PARTS:
            raise PromptError(f"unknown agent part {part!r}; expected one of {', '.join(PARTS)}")
        if not isinstance(agent, AgentProfile):
            raise PromptError(f"agent must be an AgentProfile, got {type(agent).__name__}")
        if elite is not None and elite_stats is None:
            raise PromptError("elite_stats is required when an elite agent is given")
        b = self.budget
        variables = {
            **self._common(),
            "part": part,
            "task_kind": part.removeprefix("strategy_") if part != "role" else None,
            "agent_id": agent.agent_id,
            "current_text": trim_middle(agent.texts[part], b.evolution_text),
            "current_version": agent.versions.get(part, "unknown"),
            "stats": stats,
            "elite_id": elite.agent_id if elite else None,
            "elite_text": trim_middle(elite.texts[part], b.evolution_text) if elite else None,
            "elite_stats": elite_stats,
            "task_desc": trim_middle(task_desc, b.task_desc // 2),
            "examples": self._examples(examples),
            "failures": [
                {**f, "success": r.success} for f, r in zip(self._examples(failures), failures, strict=False)
            ],
            "max_chars": b.role if part == "role" else b.strategy,
        }
        template = "evolve_role.user.j2" if part == "role" else "evolve_strategy.user.j2"
        return [
            Message("system", self.render("evolve.system.j2", **variables)),
            Message("user", self.render(template, **variables)),
        ]


def _check_request(
    task_type: str,
    agent: AgentProfile,
    task_desc: str,
    parent: ParentView | None,
    parents: tuple[ParentView, ParentView] | None,
    crossover_plan: Mapping[str, int | str] | None,
    gene: str | None,
) -> None:
    """Raise PromptError when the arguments do not fit the task type."""
    if task_type not in TASK_TYPES:
        raise PromptError(f"unknown task type {task_type!r}; expected one of {', '.join(TASK_TYPES)}")
    if not isinstance(agent, AgentProfile):
        raise PromptError(f"agent must be an AgentProfile, got {type(agent).__name__}")
    if not isinstance(task_desc, str) or not task_desc.strip():
        raise PromptError("task_desc must be a non-empty string")
    needs_parent = task_type in ("improve", "debug", "mutate")
    if needs_parent and not isinstance(parent, ParentView):
        raise PromptError(f"task type {task_type!r} needs parent=ParentView(...)")
    if not needs_parent and parent is not None:
        raise PromptError(f"task type {task_type!r} takes no parent")
    if task_type == "improve" and parent.is_buggy:
        raise PromptError("task type 'improve' needs a non-buggy parent; use 'debug' for a buggy one")
    if task_type == "debug" and not parent.is_buggy:
        raise PromptError("task type 'debug' needs a buggy parent; use 'improve' for a good one")
    if task_type == "merge":
        if parents is None or len(parents) != 2 or not all(isinstance(p, ParentView) for p in parents):
            raise PromptError("task type 'merge' needs parents=(ParentView, ParentView)")
        if not crossover_plan:
            raise PromptError(
                "task type 'merge' needs a crossover_plan {gene section: 0 | 1 | 'A' | 'B' | note}"
            )
        unknown = [g for g in crossover_plan if g not in GENE_SECTIONS]
        if unknown:
            raise PromptError(
                f"crossover_plan has unknown gene section(s) {unknown}; expected {GENE_SECTIONS}"
            )
    elif parents is not None or crossover_plan is not None:
        raise PromptError(f"task type {task_type!r} takes no parents or crossover_plan")
    if task_type == "mutate":
        if gene not in GENE_SECTIONS:
            raise PromptError(
                f"task type 'mutate' needs gene, one of {', '.join(GENE_SECTIONS)}; got {gene!r}"
            )
    elif gene is not None:
        raise PromptError(f"task type {task_type!r} takes no gene")
