"""Search with the offline coder on the bundled competitions: every step's code runs for real and is graded.

The search is AIDE's greedy loop: draft, then repeatedly improve (or mutate one gene of) the node with the best
validation score. Its drafts come from seed 1, a weak first try (a random forest on basic features judged on
a holdout split), which is what a search has to get past; every solution is validated on the same rows
(a fixed split seed), so validation scores of different nodes compare.
"""

from __future__ import annotations

import pytest

from swarm.llm.base import CallContext
from swarm.offline_coder import OfflineClient
from swarm.offline_coder.sections import read_genome, split_code
from swarm.protocol import GENE_SECTIONS

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        __import__("importlib").util.find_spec("swarm.competitions") is None, reason="no swarm.competitions"
    ),
]
BUNDLED = ["titanic", "house-prices", "telco-churn"]
SEED = 1
# (request kind, gene): improve picks its own section; mutate is told which one to change.
STEPS = [("improve", None), ("improve", None), ("mutate", "REGULARIZATION"), ("improve", None)]


def ask(bundled, tools, client, competition_id, kind, node, **hints) -> str:
    ctx = CallContext(stage="code", kind=kind, node_id=node, hints=bundled.hints(competition_id, **hints))
    return tools.code_of(client.complete([], ctx))


def assert_valid(run, what: str) -> None:
    assert run.returncode == 0, f"{what} failed:\n{run.output[-3000:]}"
    assert run.metric is not None, f"{what} printed no SWARM_METRIC line"
    assert run.report is not None and run.report.valid, f"{what}: {run.report and run.report.reason}"


@pytest.mark.parametrize("competition_id", BUNDLED)
def test_search_improves_the_graded_score(bundled, tools, competition_id):
    client = OfflineClient(seed=SEED)
    draft = ask(bundled, tools, client, competition_id, "draft", "d0", seed=SEED)
    first = bundled.run(competition_id, draft)
    assert_valid(first, "the draft")
    best_code, best = draft, first
    trail = [f"draft: val {first.metric.value:.4f}, graded {first.report.score:.4f}"]
    for i, (kind, gene) in enumerate(STEPS):
        extra = {"gene": gene} if gene else {}
        child = ask(bundled, tools, client, competition_id, kind, f"s{i}", parent_code=best_code, **extra)
        run = bundled.run(competition_id, child)
        assert_valid(run, f"step {i} ({kind})")
        kept = run.better_than(best, on="metric")
        trail.append(
            f"{kind}: val {run.metric.value:.4f}, graded {run.report.score:.4f}{' kept' if kept else ''}"
        )
        if kept:
            best_code, best = child, run
    assert best.better_than(first, on="metric"), "search never beat the draft on validation:\n" + "\n".join(
        trail
    )
    assert best.better_than(first, on="score"), (
        "the node search chose grades worse than the draft:\n" + "\n".join(trail)
    )


@pytest.mark.parametrize("competition_id", BUNDLED)
def test_merge_and_debug_run_on_bundled_competitions(bundled, tools, competition_id):
    client = OfflineClient(seed=SEED)
    # the seed-0 and seed-1 drafts, as test_execution.py's draft test asks for them (their runs are cached)
    a = ask(bundled, tools, OfflineClient(seed=0), competition_id, "draft", "d0", seed=0)
    b = ask(bundled, tools, client, competition_id, "draft", "d0", seed=SEED)
    plan = {name: 1 - i % 2 for i, name in enumerate(GENE_SECTIONS)}  # alternate, starting with parent b
    merged = ask(
        bundled, tools, client, competition_id, "merge", "m0", parent_codes=[a, b], crossover_plan=plan
    )
    genome = read_genome(split_code(merged))
    assert genome == {name: read_genome(split_code((a, b)[plan[name]]))[name] for name in GENE_SECTIONS}
    assert_valid(bundled.run(competition_id, merged), "the merge")

    split = split_code(merged)
    split.sections["MODEL"] = split.sections["MODEL"].replace(
        "MODEL_FAMILY = ", "MODEL_FAMILY = undefined_name or "
    )
    broken = split.join()
    failed = bundled.run(competition_id, broken)
    assert failed.returncode != 0 and "NameError" in failed.output
    fixed = ask(
        bundled, tools, client, competition_id, "debug", "g0", parent_code=broken, parent_output=failed.output
    )
    assert "undefined_name" not in fixed
    assert_valid(bundled.run(competition_id, fixed), "the debugged merge")
