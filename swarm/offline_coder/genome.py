"""The offline coder's choices per gene section: what a draft samples, what improve/mutate change.

A genome maps each section of swarm.protocol.GENE_SECTIONS to a small JSON-able dict of choices; the renderer
turns each section's choices into code and records them in the section's `# offline-choice: {...}` comment.
"""

from __future__ import annotations

import random
from typing import Any

from swarm.protocol import GENE_SECTIONS

Genome = dict[str, dict[str, Any]]

DRAFT_FEATURE_SETS = ("basic", "freq", "rich")
# "minimal" (no text or file features) is reached only by debugging a DATA section that failed on "basic".
FEATURE_SETS = ("minimal", *DRAFT_FEATURE_SETS)
DRAFT_FAMILIES = ("linear", "rf", "extratrees", "hgb", "lgbm")
FAMILIES = (*DRAFT_FAMILIES, "blend")  # a blend is reached by improving, never drafted
# A linear model is upgraded by blending it with boosted trees, not by replacing it with a forest: on small
# tabular data a good linear model often beats a forest, and the blend keeps its strengths.
MODEL_UPGRADE = {"linear": "blend", "rf": "hgb", "extratrees": "hgb", "hgb": "lgbm", "lgbm": "blend"}
BOOSTED = frozenset({"hgb", "lgbm", "blend"})
REGRESSION_OBJECTIVES = ("l2", "huber", "l1")
CLASSIFICATION_OBJECTIVES = ("standard", "balanced")
BALANCED_CLASS_METRICS = frozenset({"f1", None})  # coarse metrics (or none known) where "balanced" may help
# (learning_rate, n_estimators), weakest first; improve climbs this ladder.
OPTIMIZER_LADDER = ((0.1, 150), (0.06, 300), (0.04, 500), (0.03, 700))
REG_PRESETS: dict[str, dict[str, Any]] = {
    "light": {"max_depth": -1, "num_leaves": 63, "min_samples_leaf": 5, "l2": 0.0, "subsample": 1.0,
              "colsample": 1.0},
    "medium": {"max_depth": 8, "num_leaves": 31, "min_samples_leaf": 20, "l2": 1.0, "subsample": 0.8,
               "colsample": 0.8},
    "strong": {"max_depth": 5, "num_leaves": 15, "min_samples_leaf": 40, "l2": 5.0, "subsample": 0.7,
               "colsample": 0.6},
}  # fmt: skip


def is_regression(task: dict | None) -> bool:
    """Whether the (first) target of a task dict is a regression target."""
    return bool(task) and task["targets"][0]["task"] == "regression"


def wants_log_target(task: dict | None) -> bool:
    """Whether a log1p target transform usually helps: skewed non-negative target or a log metric."""
    if not is_regression(task):
        return False
    return task["metric"] == "rmsle" or any(t.get("skewed") for t in task["targets"])


def objectives(task: dict | None) -> tuple[str, ...]:
    """The training objectives worth trying. Balanced class weights trade accuracy, log loss and calibration
    for minority recall, so they are offered only when the metric rewards that (F1) or is not known."""
    if is_regression(task):
        return REGRESSION_OBJECTIVES
    if task and task.get("metric") not in BALANCED_CLASS_METRICS:
        return CLASSIFICATION_OBJECTIVES[:1]
    return CLASSIFICATION_OBJECTIVES


def optimizer_choice(step: int) -> dict[str, Any]:
    lr, n = OPTIMIZER_LADDER[step]
    return {"step": step, "learning_rate": lr, "n_estimators": n}


def regularization_choice(preset: str) -> dict[str, Any]:
    return {"preset": preset, **REG_PRESETS[preset]}


def safe_choice(section: str, task: dict | None) -> dict[str, Any]:
    """The choice least likely to fail or time out for `section`."""
    safe: Genome = {
        "DATA": {"features": "basic"},
        "MODEL": {"family": "hgb"},
        "LOSS": {"objective": objectives(task)[0]},
        "OPTIMIZER": optimizer_choice(0),
        "REGULARIZATION": regularization_choice("medium"),
        "INITIALIZATION": {"seed": 42},
        "TRAINING_TRICKS": {"validation": "holdout", "folds": 5, "target_transform": "none", "seed_bag": 1},
    }
    return safe[section]


def fallback_choice(section: str, choice: dict[str, Any], task: dict | None) -> dict[str, Any]:
    """What a debug step writes for a section that failed: its safe choice, or for a DATA section that failed
    with the safe feature set, the minimal one (no text or file features)."""
    safe = safe_choice(section, task)
    if section == "DATA" and choice == safe:
        return {"features": "minimal"}
    return safe


def safe_genome(task: dict | None) -> Genome:
    return {section: safe_choice(section, task) for section in GENE_SECTIONS}


def draft_genome(task: dict | None, rng: random.Random) -> Genome:
    """A varied first solution: some drafts are weak on purpose so that search has room to improve."""
    validation = rng.choice(("holdout", "kfold"))
    return {
        "DATA": {"features": rng.choice(DRAFT_FEATURE_SETS)},
        "MODEL": {"family": rng.choices(DRAFT_FAMILIES, weights=(2, 2, 1, 2, 3))[0]},
        "LOSS": {"objective": objectives(task)[0] if rng.random() < 0.8 else rng.choice(objectives(task))},
        "OPTIMIZER": optimizer_choice(rng.choice((0, 1, 2))),
        "REGULARIZATION": regularization_choice(rng.choice(tuple(REG_PRESETS))),
        "INITIALIZATION": {"seed": rng.randrange(1, 10_000)},
        "TRAINING_TRICKS": {
            "validation": validation,
            "folds": 5,
            "target_transform": "log1p" if is_regression(task) and rng.random() < 0.3 else "none",
            "seed_bag": 1,
        },
    }


def matters(section: str, genome: Genome) -> bool:
    """Whether changing `section` can change the solution's predictions, given its model family.

    A linear model ignores the boosting schedule and is deterministic (no seed); forests ignore the schedule.
    """
    family = genome.get("MODEL", {}).get("family")
    if section == "OPTIMIZER":
        return family in BOOSTED or family is None
    if section == "INITIALIZATION":
        return family != "linear"
    return True


def upgrade(
    section: str, choice: dict[str, Any], task: dict | None, family: str | None = None
) -> dict[str, Any] | None:
    """A change of `choice` that usually helps (for a model of `family`), or None when none is known."""
    if section == "MODEL":
        stronger = MODEL_UPGRADE.get(choice.get("family"))
        return {"family": stronger} if stronger else None
    if section == "OPTIMIZER":
        step = int(choice.get("step", len(OPTIMIZER_LADDER) - 1))
        return optimizer_choice(step + 1) if step + 1 < len(OPTIMIZER_LADDER) else None
    if section == "DATA":
        index = FEATURE_SETS.index(choice["features"]) if choice.get("features") in FEATURE_SETS else 3
        return {"features": FEATURE_SETS[index + 1]} if index + 1 < len(FEATURE_SETS) else None
    if section == "TRAINING_TRICKS":
        if wants_log_target(task) and choice.get("target_transform") != "log1p":
            return {**choice, "target_transform": "log1p"}
        if choice.get("validation") != "kfold":
            return {**choice, "validation": "kfold", "folds": 5}
        if int(choice.get("seed_bag", 1)) < 3 and family != "linear":  # a linear model has no seed
            return {**choice, "seed_bag": 3}
        return None
    if section == "REGULARIZATION" and choice.get("preset") == "light":
        return regularization_choice("medium")
    return None


def explore(
    section: str, choice: dict[str, Any], task: dict | None, rng: random.Random, family: str | None = None
) -> dict[str, Any]:
    """A different choice for `section`, picked at random (used when no upgrade is known)."""
    if section == "DATA":
        options = [{"features": f} for f in DRAFT_FEATURE_SETS]
    elif section == "MODEL":
        options = [{"family": f} for f in FAMILIES]
    elif section == "LOSS":
        options = [{"objective": o} for o in objectives(task)]
    elif section == "OPTIMIZER":
        options = [optimizer_choice(step) for step in range(len(OPTIMIZER_LADDER))]
    elif section == "REGULARIZATION":
        options = [regularization_choice(p) for p in REG_PRESETS]
    elif section == "INITIALIZATION":
        return {"seed": rng.randrange(1, 10_000)}
    elif section == "TRAINING_TRICKS":
        base = {**safe_choice(section, task), **choice}
        bags = (1,) if family == "linear" else (1, 3)  # a linear model has no seed to bag over
        options = [{**base, "validation": v, "seed_bag": b} for v in ("holdout", "kfold") for b in bags]
        if is_regression(task):
            options += [{**base, "target_transform": t} for t in ("none", "log1p")]
    else:
        raise ValueError(f"unknown gene section {section!r}")
    others = [o for o in options if o != choice]
    return rng.choice(others or options)


def _has_options(section: str, task: dict | None) -> bool:
    """Whether `section` has more than one choice for this task (LOSS may have a single objective)."""
    return section != "LOSS" or len(objectives(task)) > 1


# How much improve prefers changing each section when it knows an upgrade / when it can only explore.
UPGRADE_WEIGHT = {"MODEL": 4.0, "TRAINING_TRICKS": 4.0, "OPTIMIZER": 3.0, "DATA": 2.0, "REGULARIZATION": 1.5}
EXPLORE_WEIGHT = {"REGULARIZATION": 1.0, "LOSS": 0.6, "DATA": 0.5, "MODEL": 0.3, "OPTIMIZER": 0.3,
                  "TRAINING_TRICKS": 0.3, "INITIALIZATION": 0.2}  # fmt: skip


def change_one(
    genome: Genome,
    task: dict | None,
    rng: random.Random,
    section: str | None = None,
    explore_only: bool = False,
) -> tuple[str, dict[str, Any], bool]:
    """Pick a section (or use `section`) and a new choice for it: (section, choice, is_upgrade).

    `explore_only=True` skips the known upgrades and picks at random among the other choices. A `section`
    with a single choice for this task (LOSS for an accuracy metric) is passed over for another section.
    """
    if section is not None and not _has_options(section, task):
        section = None
    if section is None:
        candidates = [
            s for s in GENE_SECTIONS if s in genome and matters(s, genome) and _has_options(s, task)
        ]
    else:
        candidates = [section]
    if not candidates:
        raise ValueError("the parent has no section the offline coder can change")
    family = genome.get("MODEL", {}).get("family")
    ups = {s: None if explore_only else upgrade(s, genome.get(s, {}), task, family) for s in candidates}
    if section is None:
        weights = [UPGRADE_WEIGHT.get(s, 1.0) if ups[s] else EXPLORE_WEIGHT.get(s, 0.2) for s in candidates]
        section = rng.choices(candidates, weights=weights)[0]
    if ups[section] is not None and rng.random() < 0.9:
        return section, ups[section], True
    return section, explore(section, genome.get(section, {}), task, rng, family), False
