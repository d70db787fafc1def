"""The harness split of sentences a line (`swarm.layouts.sentences.reader`): billion-word-imputation.

The training file holds a sentence a line (Kaggle's `train_v2.txt`: about 30 million, 4 GB, so it is streamed);
the test table (`test_v2.txt`, the sample) holds test sentences with one inner word removed. The split draws
training sentences of more than two words at random (min(fraction, MAX_HELD_LINES) of them), takes one inner
word out of each at a seeded position as `prepare.py` does, and writes them among the test rows under new ids,
in the test table's own format (`id,"sentence"`, quotes doubled); `labels.csv` holds the whole sentences, and the
view's training file lacks the drawn lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.atomic import PUBLIC, write_text_atomic
from swarm.evaluation.fresh_ids import draw_fresh_ids
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest, write_view_ids
from swarm.evaluation.new_ids import new_ids
from swarm.evaluation.view_files import extracted_archives, fresh_view, mirror
from swarm.layouts.sentences.reader import remove_inner_word

MAX_HELD_LINES = 50_000  # held-out sentences at most: each is scored by an edit distance at every step


@dataclass(frozen=True)
class SentenceLines:
    """The training file of sentences and the test table that stands for the sample."""

    train: Path
    test: Path
    target: str


def split_sentence_lines(request: SplitRequest, fields: dict) -> SplitParts:
    """Hold out training sentences as test rows and write the view (see the module docstring); NoHoldout where a
    split other than a random one is asked for, or the file has too few sentences to draw from."""
    competition, spec, root, sample = request.competition, request.spec, request.root, request.sample
    seed = request.seed
    targets = [c for c in sample.columns if c != spec.id_column and c not in spec.passthrough_columns]
    layout = SentenceLines(
        competition.public_dir / fields["train"], competition.sample_submission, targets[0]
    )
    eligible, aim, held_lines = _drawn_lines(layout, request)

    public, dest = competition.public_dir, fresh_view(root)
    sentences = _copy_kept_lines(layout.train, dest / layout.train.name, held_lines)
    words = np.random.default_rng(seed + 2)
    shown = [remove_inner_word(sentence, words) for sentence in sentences]
    id_col, target = spec.id_column, layout.target
    test_ids = [str(i).strip() for i in sample[id_col]]
    ids = new_ids(len(shown), test_ids, set(test_ids), np.random.default_rng(seed + 1))
    held = pd.DataFrame({id_col: ids, target: shown})
    rows = pd.concat([sample[[id_col, target]], held], ignore_index=True)
    order = np.random.default_rng(seed + 3).permutation(len(rows))
    # Every test and held-out sentence under a fresh id (the test's numbers, as many more as held out).
    fresh = draw_fresh_ids(order, test_ids, set(), len(ids), np.random.default_rng(seed + 4))
    if fresh.fresh:
        rows[id_col] = [*fresh.test, *fresh.held]
        write_view_ids(root, {"test": fresh.test, "held": fresh.held}, {"test": test_ids, "held": ids})
        ids = fresh.held
        held = held.assign(**{id_col: ids})
    _write_like(layout.test, dest / layout.test.name, rows.iloc[order])
    mirror(public, dest, {layout.train, layout.test, *extracted_archives(public)})

    return SplitParts(
        labels=pd.DataFrame({target: sentences}),
        held=held,
        ids=ids,
        split=(
            "random",
            f"{layout.train.name} holds sentences a line: {aim} of those with more than two words drawn, one inner "
            "word taken out of each, as the description says of the test's",
        ),
        n_train=len(eligible) - aim,
        rekeyed=True,
        classes={target: None},
        table=f"{layout.train.name} ({aim} sentences, a word taken out of each)",
        hidden=[],
        file_dirs=[],
        fresh=fresh,
    )


def _eligible_lines(path: Path) -> np.ndarray:
    """Per line of the file (split at each b"\\n"), whether it has a word to take out; streamed, a byte a line
    in memory."""
    flags = bytearray()
    with open(path, "rb") as lines:
        for line in lines:
            flags.append(len(line.split()) > 2)
    return np.frombuffer(bytes(flags), dtype=np.uint8).astype(bool)


def _drawn_lines(layout: SentenceLines, request: SplitRequest) -> tuple[np.ndarray, int, np.ndarray]:
    """(which lines may be drawn: sentences of more than two words, how many are held out, which lines are):
    min(fraction, MAX_HELD_LINES) of the eligible lines at random; NoHoldout where a split other than a random
    one is asked for, or none would be held out or none kept."""
    if request.split not in ("auto", "random"):
        raise NoHoldout(
            f"{layout.train.name} holds sentences a line, which the harness draws at random only; the split "
            f"{request.split!r} does not apply"
        )
    eligible = _eligible_lines(layout.train)
    count = int(eligible.sum())
    aim = min(int(round(request.fraction * count)), MAX_HELD_LINES)
    if aim < 1 or aim >= len(eligible):
        raise NoHoldout(f"{layout.train.name} has {count} sentences of more than two words: none to hold out")
    rng = np.random.default_rng(request.seed)
    held_lines = np.zeros(len(eligible), dtype=bool)
    held_lines[np.flatnonzero(eligible)[rng.choice(count, aim, replace=False)]] = True
    return eligible, aim, held_lines


def _copy_kept_lines(source: Path, target: Path, held: np.ndarray) -> list[str]:
    """Copy `source` to `target` line by line, as bytes, without the `held` lines, whose sentences (stripped,
    read as UTF-8) are returned in file order; the copy is readable by any uid, as every public file."""
    sentences = []
    with open(source, "rb") as lines, open(target, "wb") as out:
        for number, line in enumerate(lines):
            if held[number]:
                sentences.append(line.decode("utf-8", errors="replace").strip())
            else:
                out.write(line)
    target.chmod(0o644)
    return sentences


def _write_like(original: Path, path: Path, rows: pd.DataFrame) -> None:
    """The test table in the original's format: its header line as it is, each row `<id>,"<text>"` with quotes
    doubled (`prepare.py`'s writing)."""
    with open(original, encoding="utf-8") as handle:
        header = handle.readline().rstrip("\r\n")
    body = [f'{i},"{str(text).replace(chr(34), chr(34) * 2)}"' for i, text in rows.itertuples(index=False)]
    write_text_atomic(path, "\n".join([header, *body]) + "\n", mode=PUBLIC)
