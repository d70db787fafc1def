"""The search's settings (`agent.*`, `search.*`, `evolution.*` of a run's config): its budget, its policy and the
agents' and population's evolution; `swarm.config` assembles them with the other sections and re-exports them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

SearchPolicy = Literal["aide", "ga", "mcts"]
TaskRunnerKind = Literal["threads", "dask"]


class Section(BaseModel):
    """A config section: unknown fields are errors, and assignments are validated."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class AgentConfig(Section):
    """The run's budget: steps and seconds of search."""

    max_steps: int = Field(20, ge=1, description="Search steps (nodes) a run makes at most.")
    time_limit_s: float = Field(
        3600.0, gt=0, description="Seconds of search a run may spend (over resumes); its end follows."
    )


class SearchConfig(Section):
    """How the search picks its next step: the policy, drafts, debugging, steps at once and where they run."""

    policy: SearchPolicy = Field(
        "aide",
        description="aide (draft, improve the best, debug buggy leaves) or ga (the population evolved too).",
    )
    num_drafts: int = Field(3, ge=1, description="Fresh solutions drafted before the search improves any.")
    debug_prob: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="Chance a step debugs a buggy leaf instead of improving the best node.",
    )
    max_debug_depth: int = Field(3, ge=0, description="Debug attempts in a row on one failing line of nodes.")
    parallel: int = Field(
        2, ge=1, description="Steps run at once (each with its share of CPUs, memory, GPUs)."
    )
    mcts_exploration: float = Field(
        1.0,
        ge=0.0,
        description="mcts: UCT's exploration weight beside a subtree's mean reward (rewards in [0, 1]).",
    )
    mcts_widening: float = Field(
        1.0,
        gt=0.0,
        description="mcts: a node may have ceil(mcts_widening * visits ** mcts_widening_power) children.",
    )
    mcts_widening_power: float = Field(
        0.5, ge=0.0, le=1.0, description="mcts: how fast the children a node may have grow with its visits."
    )
    mcts_merge_rate: float = Field(
        0.15,
        ge=0.0,
        le=1.0,
        description="mcts: chance that expanding a good node merges it with another (a GA crossover).",
    )
    mcts_mutate_rate: float = Field(
        0.15,
        ge=0.0,
        le=1.0,
        description="mcts: chance that expanding a good node rewrites one of its gene sections (a GA mutation).",
    )
    task_runner: TaskRunnerKind = Field(
        "threads", description="Where parallel steps run: threads of the flow's process, or a Dask cluster."
    )
    dask_address: str | None = Field(
        None,
        description="Dask scheduler address (tcp://host:8786); none = a local cluster of `parallel` workers.",
    )
    patience: int = Field(
        6,
        ge=0,
        description="Steps without a better best harness score after which the policy switches to its "
        "stagnation mode (AIDE: a new draft per `patience` such steps; GA: stagnation_mutation_rate); 0 = off.",
    )
    stagnation_mutation_rate: float = Field(
        0.5, ge=0.0, le=1.0, description="The GA's mutation rate (at least) while the search stagnates."
    )


class EvolutionConfig(Section):
    """The GA's population, the agents the dispatcher picks from and their evolution, the experience pool."""

    population_size: int = Field(12, ge=2, description="Solutions the GA's population keeps.")
    elite_size: int = Field(3, ge=0, description="Best solutions carried into each GA generation unchanged.")
    tournament_k: int = Field(
        3, ge=1, description="Solutions drawn per tournament when the GA picks a parent."
    )
    crossover_rate: float = Field(
        0.8, ge=0.0, le=1.0, description="Chance a GA step merges two parents' gene sections."
    )
    mutation_rate: float = Field(
        0.2, ge=0.0, le=1.0, description="Chance a GA step mutates one gene section."
    )
    steps_per_epoch: int = Field(4, ge=1, description="Steps in one epoch (one epoch flow).")
    num_agents: int = Field(
        4, ge=1, description="Agents (role and strategy prompts) the dispatcher picks from."
    )
    evolution_interval: int = Field(3, ge=1, description="Every this many epochs the weakest agents evolve.")
    epsilon: float = Field(
        0.3,
        ge=0.0,
        le=1.0,
        description="The dispatcher's chance to pick an agent at random, not the best by EMA.",
    )
    learning_rate: float = Field(
        0.3, gt=0.0, le=1.0, description="Weight of a step's result in its agent's EMA score."
    )
    min_records_for_evolution: int = Field(
        20, ge=0, description="Experience-pool records needed before agents evolve."
    )
    agents_kept: int = Field(2, ge=1, description="Best agents kept as they are when agents evolve.")
    ga_min_population: int | None = Field(
        None,
        ge=2,
        description="Good nodes the population needs before GA epochs start (policy ga); none = population_size.",
    )
    experience_top_k: int = Field(
        3,
        ge=0,
        description="Best past records of the experience pool shown in each prompt (the seed's design: 5).",
    )
    experience_min_quality: float = Field(
        0.0,
        ge=0.0,
        le=1.0,
        description="Records shown only at this quality or above (its score normalised among the pool's "
        "successes, 0 the worst and 1 the best, rescored as the pool grows; the seed's design: 0.5).",
    )
    experience_max_records: int = Field(
        10_000, ge=1, description="Records the experience pool keeps (the oldest go first)."
    )

    @model_validator(mode="after")
    def _elite_fits(self) -> EvolutionConfig:
        if self.elite_size > self.population_size:
            raise ValueError("elite_size must not exceed population_size")
        return self
