"""Scale: a journal and an experience pool of 10,000 nodes and records, and what each step does with them.

    python -m benchmarks.scale [--nodes 10000] [--records 10000] [--repeats 5] [--seed 0]
                               [--json benchmarks/results/scale.json]

The journal is synthetic but shaped like a run's: drafts, improves of the best or a good node, debug chains
(at most `max_debug_depth` deep) under buggy nodes, some merges and mutations, a quarter of the nodes buggy
with a traceback, accuracy-like metrics that creep up, and code written by the offline coder for the
competition (its gene sections included, as `make_node` stores them). The pool is a JSON Lines file of
records like those `record` appends. Times are medians over `--repeats` (fast queries: 20x as many):
- select parent: the policy's `choose_next` (AIDE, and a GA generation), then the whole `select_parent` step of a run
  holding that journal and pool (parent, agent, prompt with memory and pool examples; no model call);
- best node / best-k; the memory summary at the prompt budget (its size must stay within it) and at 6,000;
- pool load, top-K (stored qualities, and re-scored as prompts ask), stats by agent, one `add`;
- the append-only journal file: written whole (what migrating a run's journal.json does once), loaded with validation
  (with a sidecar of changed fitness values), one node appended (`Journal.save` after a step);
- in that run dir, what a recorded step writes (`update_population`: the node appended, the pool record, the
  dispatcher and the state) and what an epoch's end writes (the population's fitness set again, the
  snapshot, the save): milliseconds and bytes written, medians over 20x `--repeats` steps and `--repeats`
  epoch ends. Target: a recorded step writes at most 1 MB of journal I/O in at most 50 ms at 10,000 nodes.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.common import print_table, write_json
from swarm.agents.experience import ExperiencePool, ExperienceRecord, input_hash
from swarm.agents.prompting import PromptBudget
from swarm.config import load_config
from swarm.ga.genes import split_genes
from swarm.journal import Journal, Node, NodeMeta
from swarm.journal.memory import memory_summary
from swarm.journal.step_record import Execution, Review
from swarm.llm.base import CallContext
from swarm.metric import MetricValue
from swarm.offline_coder import OfflineClient
from swarm.pipeline.policy import choose_next
from swarm.pipeline.state import RunState
from swarm.protocol import GENE_SECTIONS

AGENTS = [f"agent_{i}" for i in range(4)]
TRACEBACK = (
    "Traceback (most recent call last):\n"
    + "".join(
        f'  File "runfile.py", line {40 + 7 * i}, in step_{i}\n    value = transform(frame)\n'
        for i in range(12)
    )
    + "KeyError: 'Cabin_deck'\n"
)


def code_pool(public_dir: Path | None, count: int, seed: int) -> list[tuple[str, str]]:
    """`count` (plan, code) pairs by the offline coder: drafts and improves of them."""
    client = OfflineClient(seed=seed)
    hints: dict[str, Any] = {"input_dir": str(public_dir)} if public_dir else {}
    out: list[tuple[str, str]] = []
    for i in range(count):
        if i % 2 == 0 or not out:
            reply = client.code_reply(CallContext(stage="code", kind="draft", hints={**hints, "seed": i}))
        else:
            parent = out[-1][1]
            ctx = CallContext(stage="code", kind="improve", hints={**hints, "seed": i, "parent_code": parent})
            reply = client.code_reply(ctx)
        out.append((reply.plan, reply.code))
    return out


def synthetic_journal(size: int, codes: list[tuple[str, str]], rng: random.Random) -> Journal:
    """A journal shaped like a long AIDE/GA run (see the module docstring)."""
    journal = Journal()
    good: list[Node] = []
    buggy_leaves: list[Node] = []
    best = 0.70
    for step in range(size):
        kind, parents = "draft", []
        roll = rng.random()
        if step >= 5 and roll < 0.05:
            kind = "draft"
        elif buggy_leaves and roll < 0.35:
            kind, parents = "debug", [buggy_leaves.pop(rng.randrange(len(buggy_leaves)))]
        elif len(good) >= 2 and roll < 0.45:
            kind, parents = "merge", rng.sample(good[-50:], 2)
        elif good and roll < 0.55:
            kind, parents = "mutate", [rng.choice(good[-50:])]
        elif good and step >= 5:
            kind, parents = (
                "improve",
                [max(good[-200:], key=lambda n: n.metric.value) if roll < 0.8 else rng.choice(good)],
            )
        depth = journal.debug_depth(parents[0]) + 1 if kind == "debug" else 0  # this node's debug depth
        plan, code = codes[step % len(codes)]
        is_buggy = rng.random() < 0.25
        metric = None if is_buggy else round(min(0.99, best - abs(rng.gauss(0.0, 0.03))), 6)
        if metric is not None and rng.random() < 0.02:
            best = min(0.95, best + 0.001)
        output = (
            TRACEBACK if is_buggy else "".join(f"fold {k}: accuracy {rng.random():.4f}\n" for k in range(5))
        )
        node = Node(
            code=code,
            plan=plan,
            task_type=kind,
            parent_ids=tuple(p.id for p in parents),
            genes={k: v for k, v in split_genes(code).items() if k in GENE_SECTIONS},
            agent_id=rng.choice(AGENTS),
            epoch=step // 4 + 1,
            fitness=rng.random(),
            meta=NodeMeta.from_dict(
                {"plan_step": step, "worker": "host:1", "sandbox": "local", "submission_path": None}
            ),
            execution=Execution(
                term_out=output + (f"SWARM_METRIC {metric}\n" if metric is not None else ""),
                exec_time=rng.uniform(2, 30),
                exit_code=1 if is_buggy else 0,
                exc_type="KeyError" if is_buggy else None,
            ),
            review=Review(
                analysis="The run finished and wrote submission.csv; validation accuracy as printed."
                if not is_buggy
                else None,
                metric=MetricValue(metric, False),
                is_buggy=is_buggy,
                bug_reason="KeyError: 'Cabin_deck' in the feature step" if is_buggy else None,
            ),
        )
        journal.append(node)
        if is_buggy and depth < 3:  # search.max_debug_depth
            buggy_leaves.append(node)
        elif not is_buggy:
            good.append(node)
    return journal


def write_pool(path: Path, journal: Journal, count: int, rng: random.Random) -> None:
    """`count` records as `record` appends them, one JSON line each, for the journal's nodes (cycled)."""
    nodes = journal.nodes
    lines = []
    for i in range(count):
        node = nodes[i % len(nodes)]
        metric = node.metric.value if node.metric else None
        record = ExperienceRecord(
            agent_id=node.agent_id or "agent_0",
            task_type=node.task_type,
            input_hash=input_hash(str(i), node.id),
            quality=0.0 if node.is_buggy else rng.random(),
            success=not node.is_buggy,
            strategy_summary=(node.plan or node.bug_reason or "")[:500],
            node_id=node.id,
            timestamp=1.7e9 + i,
            metric=metric,
        )
        lines.append(record.to_json() + "\n")
    path.write_text("".join(lines))


def timed(fn: Callable[[], Any], repeats: int) -> dict[str, float]:
    """Median, min and max seconds of `repeats` calls (after one untimed call)."""
    fn()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return {
        "median_ms": 1000 * statistics.median(times),
        "min_ms": 1000 * min(times),
        "max_ms": 1000 * max(times),
    }


def timed_io(fn: Callable[[], Any], repeats: int, root: Path) -> dict[str, float]:
    """`timed`, plus the bytes each call wrote under `root` (its files and `epochs/*/`; a file that grew counts
    its growth, a file replaced or created its size): medians, and the journal's files (`journal_bytes`)
    apart. The scans of the dir are not timed."""
    fn()
    times, written, journal_written = [], [], []
    for _ in range(repeats):
        before = scan(root)
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
        changed = diff(before, scan(root))
        written.append(sum(changed.values()))
        journal_written.append(sum(n for name, n in changed.items() if name.startswith("journal.")))
    return {
        "median_ms": 1000 * statistics.median(times),
        "min_ms": 1000 * min(times),
        "max_ms": 1000 * max(times),
        "bytes": statistics.median(written),
        "journal_bytes": statistics.median(journal_written),
    }


def scan(root: Path) -> dict[str, tuple[int, int, int]]:
    """(inode, size, mtime) of the files directly in `root` and in `root/epochs/*/`, by relative name."""
    found = {}
    for directory in (root, *(p for p in (root / "epochs").glob("*") if p.is_dir())):
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.is_file():
                    st = entry.stat()
                    found[str(Path(entry.path).relative_to(root))] = (st.st_ino, st.st_size, st.st_mtime_ns)
    return found


def diff(before: dict[str, tuple[int, int, int]], after: dict[str, tuple[int, int, int]]) -> dict[str, int]:
    """Bytes written per file between two scans."""
    changed = {}
    for name, (inode, size, mtime) in after.items():
        old = before.get(name)
        if old is None or old[0] != inode:
            changed[name] = size  # created or replaced
        elif (size, mtime) != old[1:]:
            changed[name] = max(size - old[1], 0) or size  # appended to (or rewritten in place)
    return changed


def ga_state(journal: Journal, population_size: int) -> RunState:
    """A state in the middle of a GA generation, the population the best good nodes."""
    epochs = max(n.epoch or 0 for n in journal)
    state = RunState(run_id="scale", competition="titanic", next_step=len(journal), steps_done=len(journal))
    state.epochs_done, state.generation, state.generation_epoch = epochs, 3, epochs + 1
    state.population = [n.id for n in journal.best_k(population_size)]
    return state


def run_dir_timings(
    args: argparse.Namespace, journal: Journal, codes: list[tuple[str, str]], root: Path, repeats: int
) -> dict[str, dict[str, Any]]:
    """In a real run (titanic, offline) whose journal and pool are the synthetic ones: `select_parent`, a
    recorded step (`update_population`) and an epoch's end (fitness, snapshot, save), what they take and
    write."""
    from sandbox.result import ExecutionResult
    from swarm.evaluation.review import ReviewOutcome
    from swarm.pipeline import steps
    from swarm.pipeline.context import create_run, open_run
    from swarm.pipeline.snapshots import write_snapshot
    from swarm.pipeline.state import load_state, save_state

    overrides = [
        f"project.cache_dir={args.cache_dir}",
        "data.competition=titanic",
        "execution.sandbox=local",
        *(f"llm.{s}.provider=offline" for s in ("code", "feedback", "evolution")),
        f"agent.max_steps={10 * len(journal) + 10}",
    ]
    paths = create_run(load_config(None, overrides), root / "run")
    journal.save(paths.journal)
    write_pool(paths.experience, journal, args.records, random.Random(args.seed))
    state = load_state(paths)
    state.next_step = state.steps_done = len(journal)
    state.epochs_done = max(n.epoch or 0 for n in journal)
    save_state(paths, state)
    rc, loaded, state = open_run(paths.root)
    prompts: list[int] = []
    planned: list[steps.PlannedStep] = []

    def plan() -> None:
        planned.append(steps.select_parent(rc, loaded, state.model_copy(deep=True)))
        prompts.append(sum(len(m["content"]) for m in planned[-1].messages))

    timings = {"select parent: with its prompt": timed(plan, repeats)}
    timings["select parent: with its prompt"]["prompt_chars"] = statistics.median(prompts)

    rng = random.Random(args.seed)
    output = "".join(f"fold {k}: accuracy {rng.random():.4f}\n" for k in range(5)) + "SWARM_METRIC 0.8\n"

    def record() -> None:
        plan_text, code = rng.choice(codes)
        step = planned[-1].model_copy(deep=True)
        step.plan.node_id, step.plan.step, step.plan.epoch = (
            uuid.uuid4().hex,
            state.next_step,
            state.epochs_done + 1,
        )
        state.next_step += 1
        outcome = steps.StepOutcome(
            planned=step,
            generation=steps.Generation(node_id=step.plan.node_id, raw=code, plan_text=plan_text, code=code),
            result=ExecutionResult(output=output, exit_code=0, exec_time=12.5, backend="local"),
            outcome=ReviewOutcome(
                is_buggy=False,
                bug_reason=None,
                metric=rng.uniform(0.7, 0.8),
                lower_is_better=False,
                summary="ok",
            ),
        )
        steps.update_population(rc, loaded, state, outcome)

    saves: list[float] = []
    save = rc.save

    def timed_save(*args: Any) -> None:  # the step's writes: journal, dispatcher, state
        started = time.perf_counter()
        save(*args)
        saves.append(time.perf_counter() - started)

    rc.save = timed_save  # type: ignore[method-assign]
    timings["step: record (update_population)"] = timed_io(record, 20 * repeats, paths.root)
    saves = saves[1:]  # the untimed first call
    timings["step: its writes (RunContext.save)"] = {
        "median_ms": 1000 * statistics.median(saves),
        "min_ms": 1000 * min(saves),
        "max_ms": 1000 * max(saves),
    }
    rc.save = save  # type: ignore[method-assign]
    population = [n.id for n in loaded.best_k(rc.cfg.evolution.population_size)]

    def epoch_end() -> None:
        for node_id in population:  # what `end_epoch` does: the population's fitness set again
            loaded.get(node_id).fitness = rng.random()
        state.epochs_done += 1
        write_snapshot(rc.paths, state.epochs_done, loaded, state)
        rc.save(loaded, state)

    timings["epoch end: fitness, snapshot, save"] = timed_io(epoch_end, repeats, paths.root)
    return timings


STEP_MS, STEP_BYTES = 50.0, 1_000_000  # a recorded step at 10,000 nodes: its time and its journal I/O


def step_targets(timings: dict[str, dict[str, Any]], nodes: int) -> dict[str, Any]:
    """Whether a recorded step's writes meet the targets: in a real run, the time of `RunContext.save` in
    `update_population` and the journal bytes the step wrote; else the journal's own append."""
    if "step: record (update_population)" in timings:
        step, writes = (
            timings["step: record (update_population)"],
            timings["step: its writes (RunContext.save)"],
        )
    else:
        step = writes = timings["journal: append one node (save)"]
    result = {
        "nodes": nodes,
        "write_ms": writes["median_ms"],
        "journal_bytes": step["journal_bytes"],
        "bytes": step["bytes"],
        "step_ms": step["median_ms"],
        "met": writes["median_ms"] <= STEP_MS and step["journal_bytes"] <= STEP_BYTES,
    }
    print(
        f"\na recorded step at {nodes} nodes writes {step['journal_bytes'] / 1e3:.1f} kB of journal "
        f"({step['bytes'] / 1e3:.1f} kB in all) in {writes['median_ms']:.1f} ms (the whole step "
        f"{step['median_ms']:.1f} ms); target <= {STEP_BYTES / 1e6:.0f} MB in <= {STEP_MS:.0f} ms: "
        + ("met" if result["met"] else "NOT MET")
    )
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000, help="journal nodes (default 10000)")
    parser.add_argument("--records", type=int, default=10_000, help="experience pool records (default 10000)")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls of the slow operations")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--codes", type=int, default=40, help="distinct solutions the nodes cycle through")
    parser.add_argument(
        "--no-select-parent",
        action="store_true",
        help="skip the timings in a real run dir: select_parent, a recorded step, an epoch's end (no titanic)",
    )
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "swarm-bench-cache")
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/scale.json"))
    args = parser.parse_args(argv)
    if min(args.nodes, args.records, args.repeats, args.codes) < 1:
        parser.error("--nodes, --records, --repeats and --codes must be at least 1")
    fast = 20 * args.repeats
    rng = random.Random(args.seed)

    public = None
    if not args.no_select_parent:
        from swarm.competitions import load_competition

        public = load_competition("titanic", args.cache_dir).public_dir
    started = time.perf_counter()
    codes = code_pool(public, args.codes, args.seed)
    journal = synthetic_journal(args.nodes, codes, rng)
    build_s = time.perf_counter() - started
    counts = {
        kind: sum(1 for n in journal if n.task_type == kind)
        for kind in ("draft", "improve", "debug", "merge", "mutate")
    }
    shape = {
        "nodes": len(journal),
        "buggy": len(journal.buggy_nodes()),
        **counts,
        "max_debug_depth": max(journal.debug_depth(n) for n in journal),
        "mean_code_chars": round(statistics.mean(len(n.code) for n in journal)),
        "build_s": round(build_s, 2),
    }
    print_table("synthetic journal", tuple(shape), [tuple(shape.values())])

    timings: dict[str, dict[str, Any]] = {}
    aide = load_config(None, [])
    ga = load_config(None, ["search.policy=ga"])
    plain_state = RunState(run_id="scale", competition="titanic", next_step=len(journal))
    plain_state.epochs_done = max(n.epoch or 0 for n in journal)
    state = ga_state(journal, ga.evolution.population_size)
    picks = random.Random(args.seed)
    timings["select parent: choose_next (aide)"] = timed(
        lambda: choose_next(journal, [], aide, picks, plain_state, False), fast
    )
    timings["select parent: choose_next (ga generation)"] = timed(
        lambda: choose_next(journal, [], ga, picks, state, False), fast
    )
    timings["best node"] = timed(lambda: journal.best_node(), fast)
    timings["best-k (k=5)"] = timed(lambda: journal.best_k(5), fast)
    budget = PromptBudget().memory
    summaries = {
        budget: memory_summary(journal, max_chars=budget),
        6000: memory_summary(journal, max_chars=6000),
    }
    for chars, text in summaries.items():
        timings[f"memory summary (budget {chars})"] = {
            **timed(lambda c=chars: memory_summary(journal, max_chars=c), fast),
            "chars": len(text),
            "within_budget": len(text) <= chars,
        }

    with tempfile.TemporaryDirectory(prefix="swarm-scale-") as tmp:
        root = Path(tmp)
        pool_path = root / "experience.jsonl"
        write_pool(pool_path, journal, args.records, rng)
        timings["pool: load"] = timed(lambda: ExperiencePool(pool_path), args.repeats)
        pool = ExperiencePool(pool_path, max_records=args.records)
        assert len(pool) == args.records, len(pool)
        timings["pool: top-K (k=5, stored quality)"] = timed(lambda: pool.top_k("improve", 5), fast)
        timings["pool: top-K (k=5, re-scored)"] = timed(
            lambda: pool.top_k("improve", 5, lower_is_better=False), args.repeats
        )
        timings["pool: stats by agent"] = timed(
            lambda: pool.stats_by_agent(lower_is_better=False), args.repeats
        )
        (root / "add.jsonl").write_bytes(pool_path.read_bytes())
        extra = ExperiencePool(root / "add.jsonl", max_records=10 * args.records)
        record = pool.records()[-1]
        timings["pool: add one record"] = timed(lambda: extra.add(record), args.repeats)

        whole = [root / "whole-a.jsonl", root / "whole-b.jsonl"]  # each save goes to the other file: whole

        def write_whole() -> None:
            whole.reverse()
            journal.save(whole[0])

        timings["journal: write whole (migrating journal.json)"] = {
            **timed(write_whole, args.repeats),
            "mb": whole[0].stat().st_size / 1e6,
        }
        for file in whole:
            file.unlink()
        path = root / "journal.jsonl"
        journal.save(path)
        for node in journal.best_k(ga.evolution.population_size):  # a sidecar, as after an epoch's end
            node.fitness = rng.random()
        journal.save(path)
        timings["journal: load + validate"] = timed(lambda: Journal.load(path), args.repeats)
        loaded = Journal.load(path)
        assert loaded == journal, "the journal did not survive its file"
        template = journal.nodes[-1]

        def append_one() -> None:
            loaded.append(
                dataclasses.replace(template, id=uuid.uuid4().hex, step=None, parent_ids=(template.id,))
            )
            loaded.save(path)

        timings["journal: append one node (save)"] = timed_io(append_one, fast, root)
        if not args.no_select_parent:
            timings.update(run_dir_timings(args, journal, codes, root, args.repeats))

    rows = []
    for name, t in timings.items():
        note = ""
        if "chars" in t:
            note = f"{t['chars']} chars" + ("" if t["within_budget"] else " OVER BUDGET")
        elif "mb" in t:
            note = f"{t['mb']:.1f} MB"
        elif "journal_bytes" in t:
            note = f"writes {t['bytes'] / 1e3:.1f} kB, journal {t['journal_bytes'] / 1e3:.1f} kB"
        elif "prompt_chars" in t:
            note = f"prompt {t['prompt_chars']:.0f} chars"
        rows.append((name, t["median_ms"], t["min_ms"], t["max_ms"], note))
    print_table(
        f"{args.nodes} nodes, {args.records} pool records (ms)",
        ("operation", "median", "min", "max", "note"),
        rows,
    )
    over = [name for name, t in timings.items() if t.get("within_budget") is False]
    if over:
        print(f"\nOVER BUDGET: {', '.join(over)}")
    targets = step_targets(timings, len(journal))
    write_json(
        args.json,
        args,
        {"journal": shape, "timings": timings, "memory_over_budget": over, "step_targets": targets},
    )
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
