"""Solutions that lie about their score, served by a scripted model through the main job: the harness scores
every one on the rows it held out, so no fake becomes the best node, on the local and the Docker sandbox.

- honest: survival by sex, printing the accuracy it measured;
- a constant submission claiming 0.99999 (also called a bug by the review: every row has the same prediction);
- a made-up metric name with value 7.5 (for an accuracy competition);
- one that tries to read the harness's held-out labels from the run dir and submit them.
"""

from __future__ import annotations

import json
import textwrap

import pandas as pd
import pytest

from flows.competition import CompetitionParams, competition_flow
from swarm.journal import Journal
from tests.doubles.loopback_server import LoopbackServer, Reply

from .conftest import files_holding, ready_backend, solution, stage_overrides

pytestmark = pytest.mark.usefixtures("prefect_server", "model_key")


def reply(name: str, body: str) -> str:
    code = f"# fake: {name}\n" + textwrap.dedent(body).strip() + "\n"
    return f"Here is my solution.\n\n```python\n{code}```\n"


CONSTANT = """
    import csv
    test = list(csv.DictReader(open("input/test.csv")))
    with open("submission/submission.csv", "w") as f:
        f.write("PassengerId,Survived\\n")
        for r in test:
            f.write("%s,0\\n" % r["PassengerId"])
    print('SWARM_METRIC {"name": "accuracy", "value": 0.99999, "lower_is_better": false}')
    """
MADE_UP = """
    import csv
    test = list(csv.DictReader(open("input/test.csv")))
    with open("submission/submission.csv", "w") as f:
        f.write("PassengerId,Survived\\n")
        for r in test:
            f.write("%s,1\\n" % r["PassengerId"])
    print('SWARM_METRIC {"name": "wow_score", "value": 7.5, "lower_is_better": false}')
    """
READS_LABELS = """
    import csv, glob, os
    found = {}
    for pattern in PATTERNS:
        for path in glob.glob(pattern):
            try:
                found.update({r["PassengerId"]: r["Survived"] for r in csv.DictReader(open(path))})
                print("READ LABELS", path)
            except (OSError, KeyError) as exc:
                print("BLOCKED", type(exc).__name__)
    test = list(csv.DictReader(open("input/test.csv")))
    with open("submission/submission.csv", "w") as f:
        f.write("PassengerId,Survived\\n")
        for r in test:
            f.write("%s,%s\\n" % (r["PassengerId"], found.get(r["PassengerId"], "0")))
    print('SWARM_METRIC {"name": "accuracy", "value": 1.0, "lower_is_better": false}')
    """
HARNESS_LABELS = ["../../../harness/labels.csv", "/*/harness/labels.csv", "/tmp/*/runs/*/harness/labels.csv"]
# The competition's own train.csv holds the held-out rows' labels too. Docker (and bwrap) mount only the
# harness's public dir; the local backend's slot uids can read any world-readable file, so on `local` a hostile
# solution that finds the original files could fake its harness score (the README says so): not tried there.
ORIGINAL_TRAIN = ["/tmp/swarm-faults-*/cache/competitions/titanic/prepared/public/train.csv"]


def replies(backend: str) -> dict[str, str]:
    patterns = HARNESS_LABELS + (ORIGINAL_TRAIN if backend != "local" else [])
    reads = READS_LABELS.replace("PATTERNS", repr(patterns))
    return {
        "constant claims 0.99999": reply("constant claims 0.99999", CONSTANT),
        "made-up metric 7.5": reply("made-up metric 7.5", MADE_UP),
        "reads the labels": reply("reads the labels", reads),
        "honest": solution("honest"),
    }


def label(node) -> str:
    first = node.code.splitlines()[0]
    return first.removeprefix("# fake: ") if first.startswith("# fake: ") else "honest"


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["local", pytest.param("docker", marks=pytest.mark.docker)])
def test_no_fake_score_wins(backend, request, open_competition, base_overrides, monkeypatch) -> None:
    ready_backend(backend, request, monkeypatch)
    run_dir = open_competition / "runs" / f"fakes-{backend}"
    scripted = replies(backend)
    assert (open_competition / "cache" / "competitions" / "titanic").is_dir()  # where ORIGINAL_TRAIN looks
    with LoopbackServer() as server:
        server.enqueue(*[Reply.say(text) for text in scripted.values()])
        overrides = [
            *base_overrides,
            f"project.cache_dir={open_competition / 'cache'}",
            f"project.runs_dir={open_competition / 'runs'}",
            f"execution.sandbox={backend}",
            *stage_overrides(server),
            f"agent.max_steps={len(scripted)}",
            f"search.num_drafts={len(scripted)}",
            "search.parallel=1",
            f"evolution.steps_per_epoch={len(scripted)}",
        ]
        summary = competition_flow(CompetitionParams(run_dir=str(run_dir), overrides=overrides))
        prompts = json.dumps([r.body for r in server.requests])

    nodes = {label(n): n for n in Journal.load(run_dir / "journal.jsonl")}
    assert set(nodes) == set(scripted)
    honest = nodes["honest"]
    assert summary["validation_source"] == "harness"
    assert summary["best_node"] == honest.id
    for name, node in nodes.items():
        assert node.meta.validation_source == "harness", name
    assert nodes["constant claims 0.99999"].meta.claimed_metric == pytest.approx(0.99999)
    assert nodes["made-up metric 7.5"].meta.claimed_metric == pytest.approx(7.5)
    for fake in ("constant claims 0.99999", "made-up metric 7.5", "reads the labels"):
        # Each writes one prediction for every row: the review calls it a bug, and the harness score it got
        # is what a constant guess is worth, whatever it printed.
        assert nodes[fake].is_buggy, fake
        assert "same prediction" in nodes[fake].bug_reason, fake
        assert nodes[fake].metric is None or nodes[fake].metric.value < 0.7, fake
    assert honest.is_buggy is False
    assert "READ LABELS" not in nodes["reads the labels"].term_out
    # The held-out labels never reach a prompt or a file the sandbox sees.
    labels = pd.read_csv(run_dir / "harness" / "labels.csv", dtype=str)
    rows = "\n".join(
        f"{i},{y}" for i, y in list(zip(labels["PassengerId"], labels["Survived"], strict=True))[:5]
    )
    assert rows not in prompts
    assert files_holding(run_dir, [rows]) == [f"{run_dir / 'harness' / 'labels.csv'}: {rows[:20]}"]
    public_train = pd.read_csv(run_dir / "harness" / "public" / "train.csv", dtype=str)
    assert set(labels["PassengerId"]).isdisjoint(public_train["PassengerId"])
    report = (run_dir / "report.md").read_text()
    assert "harness" in report and "claim" in report
    assert summary["grade"]["valid"]
