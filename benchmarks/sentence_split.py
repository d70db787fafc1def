"""Time and memory of the harness's split of sentences a line (billion-word-imputation's layout).

    python -m benchmarks.sentence_split [--lines 3000000] [--test 30000]
                                        [--json benchmarks/results/sentence_split.json]

Writes a synthetic billion-word-like public dir (`train_v2.txt` of `--lines` sentences of 5-40 words, about 150
bytes each as Kaggle's; `test_v2.txt` of `--test` sentences with a word taken out, standing for the sample) a
block at a time, then builds the harness split (swarm/layouts/sentences/split.py: the file read twice as a
stream, at most 50,000 sentences held out). Prints the seconds the split took and this process's peak resident
memory (the file is never held whole, so the peak is the split's).
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.common import write_json
from swarm.competitions import load_competition
from swarm.layouts.holdout import build_holdout

DESCRIPTION = """# Synthetic Billion Word

For each sentence in the test set, we have removed exactly one word.

#### Submission File

```
id,"sentence"
1,"A sentence ."
```
"""
WORDS = np.array(["the", "of", "market", "said", "a", "year", "to", "in", "shares", "people", "new", "and"])
BLOCK = 100_000  # sentences written at a time


def sentences(rng: np.random.Generator, count: int) -> list[str]:
    lengths = rng.integers(5, 41, count)
    words = rng.choice(WORDS, int(lengths.sum()))
    ends = np.cumsum(lengths)
    return [" ".join(words[end - n : end]) + " ." for n, end in zip(lengths, ends, strict=True)]


def write_competition(root: Path, lines: int, test: int) -> int:
    """The public dir; returns the training file's size in bytes."""
    public = root / "prepared" / "public"
    public.mkdir(parents=True)
    (root / "prepared" / "private").mkdir()
    (public / "description.md").write_text(DESCRIPTION)
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "mean_levenshtein"}}))
    rng = np.random.default_rng(0)
    with open(public / "train_v2.txt", "w") as train:
        for start in range(0, lines, BLOCK):
            train.write("\n".join(sentences(rng, min(BLOCK, lines - start))) + "\n")
    rows = [f'{i},"{" ".join(s.split()[:2] + s.split()[3:])}"' for i, s in enumerate(sentences(rng, test))]
    (public / "test_v2.txt").write_text('"id","sentence"\n' + "\n".join(rows) + "\n")
    return (public / "train_v2.txt").stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=3_000_000)
    parser.add_argument("--test", type=int, default=30_000)
    parser.add_argument("--json", default="benchmarks/results/sentence_split.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "billion-word"
        size = write_competition(root, args.lines, args.test)
        competition = load_competition(str(root), Path(tmp) / "cache")
        start = time.perf_counter()
        holdout = build_holdout(competition, Path(tmp) / "harness", fraction=0.2)
        seconds = time.perf_counter() - start
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        held = len(holdout.ids)
        described = holdout.describe()
    print(f"sentence split: {args.lines:,} training sentences ({size / 1e6:,.0f} MB), {held:,} held out")
    print(f"  {seconds:.1f} s, peak resident memory {peak_mb:.0f} MB")
    print(f"  {described}")
    write_json(
        Path(args.json),
        args,
        {
            "lines": args.lines,
            "train_mb": round(size / 1e6),
            "held_rows": held,
            "seconds": round(seconds, 2),
            "peak_rss_mb": round(peak_mb),
            "split": described,
        },  # fmt: skip
    )


if __name__ == "__main__":
    main()
