"""Build the bundled leaderboards from a seeded population of reference pipelines.

    python -m swarm.competitions.build_leaderboards [--only ID] [--cache-dir DIR] [--out DIR]

Per competition: prepare it, train every reference team on public/train.csv only, predict public/test.csv,
score the submission with the grader against the private answers, and write `leaderboards/<id>.csv`
(best first: teamName, score, model, n_features, log_target, params) plus `<id>.json` (how it was built).
Image files named by the ids reach the teams as a column of file paths (`image`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.bundled import get_spec, list_bundled, prepare_bundled
from swarm.competitions.competition import load_competition_dir
from swarm.competitions.grading import score_submission
from swarm.competitions.reference_pipelines import PipelineSpec, fit_predict, sample_population
from swarm.competitions.validation import InvalidSubmission

LEADERBOARD_DIR = Path(__file__).parent / "leaderboards"


IMAGE = "image"  # the column of image file paths added for a competition with image folders


@dataclass(frozen=True)
class Population:
    task: str
    output: str
    n_teams: int
    seed: int
    kinds: dict[str, str] = field(default_factory=dict)  # special columns (reference_pipelines.ENCODINGS)
    # (train folder, test folder) of images named by the ids: the teams see them as an `image` column.
    image_folders: tuple[str, str] | None = None
    # A regression target that may be zero or negative (a standardised score): no team fits its logarithm,
    # and the predicted values are not clipped to >= 1.
    signed: bool = False


POPULATIONS = {
    "titanic": Population("classification", "label", 80, 11),
    "house-prices": Population("regression", "value", 120, 12),
    "telco-churn": Population("classification", "proba", 150, 13),
    "food-reviews": Population(
        "classification", "proba", 120, 14, kinds={"review": "text", "product": "code"}
    ),
    "chicago-ridership": Population("regression", "value", 120, 15, kinds={"date": "datetime"}),
    "flight-delays": Population("classification", "proba", 100, 17, kinds={"date": "datetime"}),
    "electricity-demand": Population("regression", "value", 120, 18, kinds={"datetime": "datetime"}),
    "exam-schools": Population("regression", "value", 120, 19, signed=True),
    "digit-images": Population(
        "classification", "label", 100, 16, kinds={IMAGE: "image"}, image_folders=("train", "test")
    ),
}


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _submission(ids: pd.Series, target: str, predictions: np.ndarray, plan: Population) -> pd.DataFrame:
    if plan.output == "label":
        predictions = np.asarray(predictions).astype(int)
    elif plan.output == "value" and not plan.signed:
        predictions = np.clip(np.asarray(predictions, dtype=float), 1.0, None)
    return pd.DataFrame({ids.name: ids.to_numpy(), target: predictions})


def build_one(
    competition_id: str, cache_dir: Path, out_dir: Path, n_teams: int | None = None
) -> pd.DataFrame:
    """Score the reference population of one competition and write its leaderboard files."""
    spec = get_spec(competition_id)
    plan = POPULATIONS[competition_id]
    competition = load_competition_dir(prepare_bundled(competition_id, cache_dir))
    train = pd.read_csv(competition.public_dir / "train.csv")
    test = pd.read_csv(competition.public_dir / "test.csv")
    if plan.image_folders is not None:
        for frame, folder in zip((train, test), plan.image_folders, strict=True):
            paths = frame[spec.id_column].map(lambda name, f=folder: str(competition.public_dir / f / name))
            frame[IMAGE] = paths
    features = [c for c in train.columns if c not in (spec.id_column, spec.target)]
    population = sample_population(
        features, plan.task, n_teams or plan.n_teams, plan.seed, plan.kinds, log_targets=not plan.signed
    )
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for number, team in enumerate(population, start=1):
            rows.append(_score_team(number, team, competition, train, test, spec, plan, Path(scratch)))
    board = pd.DataFrame(rows).dropna(subset=["score"])
    board = board.sort_values("score", ascending=competition.metric.lower_is_better, kind="mergesort")
    out_dir.mkdir(parents=True, exist_ok=True)
    board.to_csv(out_dir / f"{competition_id}.csv", index=False)
    meta = {
        "competition": competition_id,
        "metric": competition.metric.name,
        "lower_is_better": competition.metric.lower_is_better,
        "teams": len(board),
        "population_seed": plan.seed,
        "answers_sha256": sha256_of(competition.answers),
        "built_with": _versions(images=plan.image_folders is not None),
    }
    (out_dir / f"{competition_id}.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return board


def _score_team(number, team: PipelineSpec, competition, train, test, spec, plan, scratch: Path) -> dict:
    predictions = fit_predict(
        team, train, train[spec.target], test, plan.task, plan.output, seed=plan.seed * 1000 + number
    )
    path = scratch / f"team-{number:03d}.csv"
    _submission(test[spec.id_column], spec.target, predictions, plan).to_csv(path, index=False)
    try:
        score = score_submission(competition, path)
    except InvalidSubmission as exc:
        print(f"  team {number}: invalid submission ({exc})", file=sys.stderr)
        score = None
    return {
        "teamName": f"ref-{number:03d}",
        "score": score,
        "model": team.family,
        "n_features": len(team.features),
        "log_target": team.log_target,
        "params": team.describe(),
    }


def _versions(images: bool = False) -> dict:
    import lightgbm
    import sklearn

    versions = {
        "pandas": pd.__version__,
        "numpy": np.__version__,
        "scikit-learn": sklearn.__version__,
        "lightgbm": lightgbm.__version__,
    }
    if images:  # the images are rendered and read with Pillow
        import PIL

        versions["pillow"] = PIL.__version__
    return versions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=list_bundled(), action="append", help="build only this competition")
    parser.add_argument(
        "--cache-dir", type=Path, help="where to prepare the competitions (default: a temp dir)"
    )
    parser.add_argument("--out", type=Path, default=LEADERBOARD_DIR, help="output dir for the leaderboards")
    parser.add_argument("--teams", type=int, help="override the number of teams (for quick trials)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        cache = args.cache_dir or Path(tmp)
        for competition_id in args.only or list_bundled():
            start = time.perf_counter()
            board = build_one(competition_id, cache, args.out, args.teams)
            took = time.perf_counter() - start
            print(
                f"{competition_id}: {len(board)} teams in {took:.1f}s; best {board['score'].iloc[0]:.5f}, "
                f"median {board['score'].median():.5f}, worst {board['score'].iloc[-1]:.5f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
