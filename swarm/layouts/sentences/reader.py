"""Sentences a line, with a word taken out of each test sentence: billion-word-imputation.

Its training data is a text file of sentences, one a line (`train_v2.txt`, from `train_v2.txt.zip`), and its
test table (`test_v2.txt`: `"id","sentence"`, which stands for the sample submission) holds sentences from which
one word was removed, "never the first or last word" (its description: "We have removed one word from each
sentence in the test set"); the submission gives each sentence whole again.

`sentence_lines_file(names, sample_name, description)` finds the training file where the description says so and
the sample is the test table; `read_sentences(path, max_rows)` reads it as the sample's target column;
`remove_inner_word(sentence, rng)` takes a word out as MLE-bench's `prepare.py` does. Shared by the harness
(swarm/layouts/sentences/split.py) and the offline coder; the solutions the offline coder writes embed this
module's source, so it uses only pandas and numpy.
"""

import os
import re

import numpy as np
import pandas as pd

ONE_WORD_REMOVED = re.compile(
    r"\bremoved\s+(?:exactly\s+)?one\s+word\b|\bone\s+word\s+(?:has\s+been|was|is)\s+removed\b", re.IGNORECASE
)


def sentence_lines_file(names: list, sample_name: str, description: str) -> str | None:
    """The one `*train*.txt` file among `names` where the sample is a test table (named with "test") and the
    description says one word was removed from each test sentence; None otherwise."""
    if "test" not in str(sample_name).lower() or not ONE_WORD_REMOVED.search(description or ""):
        return None
    found = [n for n in names if n.lower().endswith(".txt") and "train" in n.lower() and n != sample_name]
    return found[0] if len(found) == 1 else None


def read_sentences(path: str, column: str, max_rows: int | None = None) -> pd.DataFrame:
    """The file's sentences, a line each (without its line break), as the column `column`; at most `max_rows`."""
    sentences = []
    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if max_rows is not None and len(sentences) >= max_rows:
                break
            sentences.append(line.rstrip("\r\n"))
    return pd.DataFrame({column: sentences})


def remove_inner_word(sentence: str, rng: np.random.Generator) -> str:
    """The sentence without one of its words (whitespace-separated), never the first or the last, drawn
    uniformly: `prepare.py`'s `remove_random_word`. A sentence of fewer than three words is returned as it is."""
    words = sentence.split()
    if len(words) < 3:
        return sentence
    index = int(rng.integers(1, len(words) - 1))
    return " ".join(words[:index] + words[index + 1 :])


SENTENCE_MAX_ROWS = (
    2_000_000  # training sentences a solution reads at most (billion-word-imputation has 30 million)
)


def find_sentences(probe) -> dict | None:
    """{"train": the training file of sentences, "test": the test table that stands for the sample} where the sample
    (at the top of the probed dir) is a test table with one target and `sentence_lines_file` finds the training file
    among the dir's files; None otherwise."""
    if len(probe.targets) != 1 or not probe.sample_path:
        return None
    folder, sample_name = os.path.split(os.path.abspath(probe.sample_path))
    if folder != os.path.abspath(probe.data_dir):
        return None
    names = [name for name in probe.names if os.path.isfile(os.path.join(probe.data_dir, name))]
    found = sentence_lines_file(names, sample_name, probe.description)
    return None if found is None else {"train": found, "test": sample_name}


def read_sentences_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): the training sentences, a line each, as the sample's target column (at most
    SENTENCE_MAX_ROWS); the sample's rows, the test sentences' ids."""
    most = min(max_rows or SENTENCE_MAX_ROWS, SENTENCE_MAX_ROWS)
    train = read_sentences(os.path.join(data_dir, fields["train"]), str(sample.columns[1]), most)
    return train, sample[[sample.columns[0]]].copy()
