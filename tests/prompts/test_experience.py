"""The experience pool: persistence, queries, bounds, torn writes, killed writers, concurrent writers."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from swarm.agents.experience import ExperienceError, ExperiencePool, ExperienceRecord, input_hash
from swarm.ga.fitness import normalise

REPO = Path(__file__).resolve().parents[2]


def rec(
    node: str,
    *,
    agent: str = "agent_0",
    task: str = "improve",
    quality: float = 0.5,
    success: bool = True,
    ts: float | None = None,
    h: str | None = None,
    metric: float | None = None,
) -> ExperienceRecord:
    return ExperienceRecord(
        agent_id=agent,
        task_type=task,
        input_hash=h or input_hash(node),
        quality=quality,
        success=success,
        strategy_summary=f"summary of {node}",
        node_id=node,
        timestamp=ts if ts is not None else time.time(),
        metric=metric,
    )


def _valid_lines(path: Path) -> list[dict]:
    out = []
    for line in path.read_bytes().splitlines():
        with contextlib.suppress(ValueError):
            out.append(json.loads(line))
    return out


def test_records_persist_and_reload(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    pool = ExperiencePool(path)
    pool.add(rec("n1", quality=0.2))
    pool.add(rec("n2", quality=0.9, agent="agent_1"))
    again = ExperiencePool(path)
    assert [r.node_id for r in again.records()] == ["n1", "n2"]
    assert again.records()[1] == pool.records()[1]


def test_top_k_orders_filters_and_skips_failures(tmp_path: Path) -> None:
    pool = ExperiencePool(tmp_path / "pool.jsonl")
    pool.add(rec("a", quality=0.6, ts=1))
    pool.add(rec("b", quality=0.9, ts=2, agent="agent_1"))
    pool.add(rec("c", quality=0.95, ts=3, success=False))
    pool.add(rec("d", quality=0.6, ts=4))
    pool.add(rec("e", quality=0.8, ts=5, task="merge"))
    pool.add(rec("f", quality=0.7, ts=6, h=input_hash("b")))  # same input as b: shown once
    assert [r.node_id for r in pool.top_k("improve", 3)] == ["b", "d", "a"]
    assert [r.node_id for r in pool.top_k("improve", 10, agent_id="agent_0")] == ["f", "d", "a"]
    assert [r.node_id for r in pool.top_k(("improve", "merge"), 2)] == ["b", "e"]
    assert [r.node_id for r in pool.top_k(None, 10, min_quality=0.75)] == ["b", "e"]
    assert pool.top_k("improve", 0) == []


def _run_history(pool: ExperiencePool, metrics: list[float]) -> None:
    """Records as the pipeline writes them: quality scored against the good nodes known at the time.

    The first node is the only good node when it is recorded, so its stored quality is 1.0 whatever it
    scores; later ones are scored when they join the earlier ones (higher is better here)."""
    for i, m in enumerate(metrics):
        stored = normalise([*metrics[:i], m], lower_is_better=False)[-1]
        task = "draft" if i == 0 else "improve"
        pool.add(rec(f"n{i}", agent=f"agent_{i % 2}", task=task, quality=stored, ts=i, metric=m))


def test_top_k_ranks_on_fresh_scores_not_on_stale_stored_quality(tmp_path: Path) -> None:
    pool = ExperiencePool(tmp_path / "pool.jsonl")
    metrics = [0.70, 0.80, 0.85, 0.75]  # accuracy-like: the first baseline is the second worst
    _run_history(pool, metrics)
    assert pool.records()[0].quality == 1.0  # the stale score that used to win the EXAMPLES layer
    assert pool.top_k(None, 1)[0].node_id == "n0"  # stored qualities (lower_is_better=None): unchanged
    fresh = pool.top_k(None, 4, lower_is_better=False)
    assert [r.node_id for r in fresh] == ["n2", "n1", "n3", "n0"]
    expected = normalise(metrics, lower_is_better=False)
    assert [r.quality for r in fresh] == [expected[i] for i in (2, 1, 3, 0)]
    assert fresh[-1].quality < 0.5 < fresh[0].quality
    # the records themselves are untouched: only the returned copies carry the fresh score
    assert pool.records()[0].quality == 1.0


def test_fresh_scores_follow_the_metric_direction(tmp_path: Path) -> None:
    pool = ExperiencePool(tmp_path / "pool.jsonl")
    rmse = [0.30, 0.21, 0.25, 0.40]  # lower is better: n1 is best, n3 worst
    for i, m in enumerate(rmse):
        pool.add(rec(f"n{i}", quality=0.5, ts=i, metric=m))
    assert [r.node_id for r in pool.top_k("improve", 4, lower_is_better=True)] == ["n1", "n2", "n0", "n3"]
    assert [r.node_id for r in pool.top_k("improve", 4, lower_is_better=False)] == ["n3", "n0", "n2", "n1"]


def test_min_quality_agent_and_task_filters_apply_to_fresh_scores(tmp_path: Path) -> None:
    pool = ExperiencePool(tmp_path / "pool.jsonl")
    metrics = [0.70, 0.80, 0.85, 0.75]
    _run_history(pool, metrics)
    pool.add(rec("bug", agent="agent_0", quality=0.0, success=False, ts=10, metric=0.99))
    pool.add(rec("nometric", agent="agent_0", quality=0.9, ts=11))
    fresh = dict(zip([f"n{i}" for i in range(4)], normalise(metrics, lower_is_better=False), strict=True))
    # n0 passes a stored-quality filter (1.0) but not a fresh one; a success without a metric scores 0.0
    assert "n0" in {r.node_id for r in pool.top_k(None, 10, min_quality=0.5)}
    kept = pool.top_k(None, 10, min_quality=0.5, lower_is_better=False)
    assert {r.node_id for r in kept} == {n for n, q in fresh.items() if q >= 0.5} == {"n1", "n2"}
    # filters do not change the population: agent_0's records are scored against everyone's
    mine = pool.top_k(None, 10, agent_id="agent_0", lower_is_better=False)
    assert [(r.node_id, r.quality) for r in mine] == [
        ("n2", fresh["n2"]),
        ("n0", fresh["n0"]),
        ("nometric", 0.0),
    ]
    drafts = pool.top_k("draft", 10, lower_is_better=False)
    assert [(r.node_id, r.quality) for r in drafts] == [("n0", fresh["n0"])]
    # a failure (even with a metric) is neither returned nor part of the population
    assert all(r.node_id != "bug" for r in pool.top_k(None, 10, lower_is_better=False))
    s = pool.stats("agent_0", lower_is_better=False)
    assert (s.count, s.success_rate) == (4, 0.75)
    assert s.mean_quality == pytest.approx((fresh["n0"] + fresh["n2"] + 0.0 + 0.0) / 4)
    assert pool.stats_by_agent(lower_is_better=False)["agent_0"] == s
    with pytest.raises(ExperienceError, match="lower_is_better must be a bool"):
        pool.top_k(None, 3, lower_is_better="yes")  # type: ignore[arg-type]


def test_stats_per_agent(tmp_path: Path) -> None:
    pool = ExperiencePool(tmp_path / "pool.jsonl")
    for node, q, ok in [("a", 0.8, True), ("b", 0.0, False), ("c", 0.4, True), ("d", 0.0, False)]:
        pool.add(rec(node, quality=q, success=ok))
    pool.add(rec("e", agent="agent_2", quality=1.0))
    s = pool.stats("agent_0")
    assert (s.count, s.success_rate) == (4, 0.5)
    assert s.mean_quality == pytest.approx(0.3)
    assert pool.stats("agent_9").count == 0
    assert set(pool.stats_by_agent()) == {"agent_0", "agent_2"}


def test_pool_is_bounded_by_compaction(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    pool = ExperiencePool(path, max_records=10, compact_margin=0.2)
    for i in range(50):
        pool.add(rec(f"n{i}"))
        assert len(path.read_bytes().splitlines()) <= 12
    kept = [r.node_id for r in pool.records()]
    assert 10 <= len(kept) <= 12 and kept[-1] == "n49"
    assert kept == [f"n{i}" for i in range(50 - len(kept), 50)]
    assert [r.node_id for r in ExperiencePool(path, max_records=10).records()] == kept


def test_torn_last_line_is_skipped_with_a_warning_and_healed(tmp_path: Path, caplog) -> None:
    path = tmp_path / "pool.jsonl"
    pool = ExperiencePool(path)
    pool.add(rec("n1"))
    pool.add(rec("n2"))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 25])  # cut the last record mid-line, as a kill would
    with caplog.at_level(logging.WARNING, logger="swarm.agents.experience"):
        reloaded = ExperiencePool(path)
    assert [r.node_id for r in reloaded.records()] == ["n1"]
    assert "unterminated" in caplog.text
    reloaded.add(rec("n3"))  # must not be glued onto the torn line
    with caplog.at_level(logging.WARNING, logger="swarm.agents.experience"):
        assert [r.node_id for r in ExperiencePool(path).records()] == ["n1", "n3"]
    assert "skipping bad line 2" in caplog.text


_WRITER = """
import sys, time
from swarm.agents.experience import ExperiencePool, ExperienceRecord
pool = ExperiencePool(sys.argv[1], max_records=int(sys.argv[2]))
i = 0
print("ready", flush=True)
while True:
    pool.add(ExperienceRecord("agent_1", "draft", str(i), 0.5, True, "x" * 2000, f"k{i}", time.time()))
    i += 1
"""


def test_pool_survives_a_writer_killed_mid_write(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path), "300"], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(0.4)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    pool = ExperiencePool(path, max_records=300)
    before = len(pool.records())
    assert before > 0
    assert before == len(_valid_lines(path))
    pool.add(rec("after-kill"))
    assert ExperiencePool(path, max_records=300).records()[-1].node_id == "after-kill"


def test_concurrent_threads(tmp_path: Path) -> None:
    pool = ExperiencePool(tmp_path / "pool.jsonl")

    def work(t: int) -> None:
        for i in range(40):
            pool.add(rec(f"t{t}-{i}", agent=f"agent_{t % 4}"))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    nodes = [r.node_id for r in ExperiencePool(tmp_path / "pool.jsonl").records()]
    assert len(nodes) == 320 and len(set(nodes)) == 320


_BATCH_WRITER = """
import sys, time
from swarm.agents.experience import ExperiencePool, ExperienceRecord
path, worker, n, max_records = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
pool = ExperiencePool(path, max_records=max_records)
for i in range(n):
    pool.add(ExperienceRecord(
        agent_id=f"agent_{worker}", task_type="improve", input_hash=f"h{i}", quality=0.5, success=True,
        strategy_summary="x", node_id=f"p{worker}-{i}", timestamp=time.time(),
    ))
"""


@pytest.mark.parametrize("max_records", [10_000, 40])
def test_concurrent_processes(tmp_path: Path, max_records: int) -> None:
    # Separate interpreters, not fork(): a forked pytest process inherits whatever threads
    # and at-fork hooks earlier tests left behind, which says nothing about the pool.
    path = tmp_path / "pool.jsonl"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _BATCH_WRITER, str(path), str(w), "60", str(max_records)],
            cwd=REPO,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(4)
    ]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, errors
    lines = path.read_bytes().splitlines()
    assert len(lines) == len(_valid_lines(path))  # no interleaved or torn lines
    nodes = [r.node_id for r in ExperiencePool(path, max_records=max_records).records()]
    assert len(set(nodes)) == len(nodes)
    if max_records == 10_000:
        assert len(nodes) == 240
    else:
        assert max_records <= len(nodes) <= 48
        for w in range(4):  # each writer's surviving records are its newest, in order
            mine = [int(n.split("-")[1]) for n in nodes if n.startswith(f"p{w}-")]
            assert mine == sorted(mine)


def test_bad_records_and_arguments_are_named(tmp_path: Path) -> None:
    with pytest.raises(ExperienceError, match="quality must be in"):
        rec("x", quality=1.5)
    with pytest.raises(ExperienceError, match="agent_id must be a non-empty string"):
        rec("x", agent="")
    with pytest.raises(ExperienceError, match="success must be a bool"):
        rec("x", success=1)  # type: ignore[arg-type]
    with pytest.raises(ExperienceError, match="max_records must be"):
        ExperiencePool(tmp_path / "p.jsonl", max_records=0)
    pool = ExperiencePool(tmp_path / "p.jsonl")
    with pytest.raises(ExperienceError, match="takes an ExperienceRecord"):
        pool.add({"agent_id": "a"})  # type: ignore[arg-type]
    with pytest.raises(ExperienceError, match="k must be"):
        pool.top_k("draft", -1)
    assert os.path.exists(tmp_path / "p.jsonl.lock")


def test_a_second_pool_follows_appends_and_compaction(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    reader = ExperiencePool(path, max_records=10)
    writer = ExperiencePool(path, max_records=10)
    for i in range(5):
        writer.add(rec(f"n{i}"))
    assert [r.node_id for r in reader.records()] == [f"n{i}" for i in range(5)]
    for i in range(5, 60):
        writer.add(rec(f"n{i}"))
        if i % 7 == 0:
            assert reader.records() == writer.records()
    assert reader.records() == writer.records()
    assert reader.records()[-1].node_id == "n59"
