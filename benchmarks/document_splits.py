"""Time and memory of the harness's streamed splits of large document files: BSON documents
(cdiscount's `train.bson`) and JSON lines of annotated questions (tensorflow2-question-answering's
`simplified-nq-train.jsonl`).

    python -m benchmarks.document_splits [--mb 1000] [--json benchmarks/results/document_splits.json]

Writes a synthetic public dir of each layout whose training file holds about `--mb` MB (a tenth as much in the
test file), a document at a time: cdiscount-like products of one to four pictures of 2-9 KB each, and
natural-questions-like records of a 4 KB document each. Then builds each harness split
(swarm/layouts/bson/split.py, swarm/layouts/qa/split.py: both files copied as a stream, the held-out
documents moved to the test file) in a child process, and prints the seconds, the rate in MB/s and the child's peak
resident memory (the files are never held whole).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import write_json
from swarm.competitions import load_competition
from swarm.layouts.bson.reader import encode
from swarm.layouts.holdout import build_holdout

WORDS = np.array(["the", "river", "who", "was", "born", "in", "city", "film", "season", "of", "team", "and"])


def _dirs(root: Path, metric: str) -> Path:
    public = root / "prepared" / "public"
    public.mkdir(parents=True)
    (root / "prepared" / "private").mkdir()
    (public / "description.md").write_text("# Synthetic\n")
    (root / "competition.json").write_text(json.dumps({"metric": {"name": metric}}))
    return public


def write_bson(root: Path, megabytes: float) -> float:
    """A cdiscount-like public dir; returns the training file's size in MB."""
    public, rng = _dirs(root, "accuracy"), np.random.default_rng(0)
    test_ids = []
    for name, share, labelled in (("train.bson", 1.0, True), ("test.bson", 0.1, False)):
        with open(public / name, "wb") as out:
            written, product = 0, 0
            while written < share * megabytes * 1e6:
                pictures = [
                    {"picture": bytes(int(rng.integers(2000, 9000)))} for _ in range(rng.integers(1, 5))
                ]
                product_id = int(rng.integers(0, 2**31 - 1))
                category = {"category_id": 1_000_000_000 + product % 50} if labelled else {}
                document = encode({"_id": product_id, **category, "imgs": pictures})
                out.write(document)
                written += len(document)
                product += 1
                if not labelled:
                    test_ids.append(product_id)
    pd.DataFrame({"_id": test_ids, "category_id": 1_000_000_000}).to_csv(
        public / "sample_submission.csv", index=False
    )
    return (public / "train.bson").stat().st_size / 1e6


def write_questions(root: Path, megabytes: float) -> float:
    """A tensorflow2-question-answering-like public dir; returns the training file's size in MB."""
    public, rng = _dirs(root, "answer_span_f1"), np.random.default_rng(1)
    document = " ".join(rng.choice(WORDS, 700))  # about 4 KB
    sample = []
    for name, share, labelled in (
        ("simplified-nq-train.jsonl", 1.0, True),
        ("simplified-nq-test.jsonl", 0.1, False),
    ):
        with open(public / name, "w") as out:
            written, k = 0, 0
            while written < share * megabytes * 1e6:
                example = str(int(rng.integers(-(2**62), 2**62)))
                record = {"example_id": example, "question_text": " ".join(rng.choice(WORDS, 8)),
                          "document_text": document, "long_answer_candidates": [{"start_token": 0, "end_token": 50}]}  # fmt: skip
                if labelled:
                    answer = (
                        {"start_token": 0, "end_token": 50} if k % 2 else {"start_token": -1, "end_token": -1}
                    )
                    record["annotations"] = [
                        {"long_answer": answer, "short_answers": [], "yes_no_answer": "NONE"}
                    ]
                else:
                    sample += [f"{example}_long", f"{example}_short"]
                line = json.dumps(record) + "\n"
                out.write(line)
                written += len(line)
                k += 1
    pd.DataFrame({"example_id": sample, "PredictionString": ""}).to_csv(
        public / "sample_submission.csv", index=False
    )
    return (public / "simplified-nq-train.jsonl").stat().st_size / 1e6


def _split(root: str, cache: str, harness: str, queue: multiprocessing.Queue) -> None:
    competition = load_competition(root, Path(cache))
    start = time.perf_counter()
    holdout = build_holdout(competition, Path(harness), fraction=0.2)
    seconds = time.perf_counter() - start
    queue.put((seconds, len(holdout.ids), holdout.describe()))
    queue.put(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def measure(root: Path, tmp: Path) -> dict:
    """Build the split in a child process: (seconds, held-out rows, description, the child's peak RSS in MB)."""
    queue: multiprocessing.Queue = multiprocessing.Queue()
    child = multiprocessing.Process(
        target=_split, args=(str(root), str(tmp / "cache"), str(tmp / "harness"), queue)
    )
    child.start()
    seconds, held, described = queue.get()
    peak = queue.get()
    child.join()
    return {"seconds": round(seconds, 2), "held_rows": held, "peak_rss_mb": round(peak), "split": described}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=1000.0, help="size of each training file, MB")
    parser.add_argument("--json", default="benchmarks/results/document_splits.json")
    args = parser.parse_args()
    results = {}
    for name, write in (("bson", write_bson), ("questions", write_questions)):
        with tempfile.TemporaryDirectory() as tmp:
            size = write(Path(tmp) / name, args.mb)
            found = measure(Path(tmp) / name, Path(tmp))
        found.update(train_mb=round(size), mb_per_s=round(size / max(found["seconds"], 1e-9), 1))
        results[name] = found
        print(f"{name} split: a {size:,.0f} MB training file, {found['held_rows']:,} held-out rows")
        print(
            f"  {found['seconds']:.1f} s ({found['mb_per_s']} MB/s), peak resident memory {found['peak_rss_mb']} MB"
        )
        print(f"  {found['split']}")
    write_json(Path(args.json), args, results)


if __name__ == "__main__":
    main()
