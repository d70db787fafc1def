"""Miniatures of billion-word-imputation's training sentences a line, a word taken out of each test sentence:
the census's (`billion_word`, its description as Kaggle's says it) and a phrased one for the no-key run."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.layouts.sentences.reader import remove_inner_word
from tests.layouts.kit import WORDS, dirs, sentence

BILLION_WORD_DESCRIPTION = """# Billion Word Imputation

For each sentence in the test set, we have removed exactly one word. Participants must create a model capable of
inserting back the correct missing word at the correct location in the sentence.

## Evaluation

Submissions are evaluated on the mean Levenshtein distance between the sentences you submit and the original
sentences in the test set.

#### Submission File

Your submission file should contain the sentence id and a predicted sentence. Note that test.csv is a valid
submission file itself.

The file should contain a header and have the following format:

```
id,"sentence"
1,"Former Dodgers manager , the team 's undisputed top ambassador , is going strong at 83 ."
etc...
```
"""


def billion_word(root: Path, n_train: int = 40, n_test: int = 10, phrased: bool = False) -> Path:
    """billion-word-imputation: `train_v2.txt.zip` (a sentence a line, no header) and `test_v2.txt.zip`
    (`"id","sentence"`, a word taken out of each sentence), no sample submission; the description's Submission
    File section shows the test table's header ("test.csv is a valid submission file itself"). The sentences
    are words drawn at random, or `phrased`: "the <adjective> <noun> <verb> the <noun> at night ."."""
    public, private = dirs(root, "mean_levenshtein", BILLION_WORD_DESCRIPTION)
    rng = np.random.default_rng(139)
    if phrased:
        sentences = [
            f"the {rng.choice(WORDS[:3])} {rng.choice(WORDS[3:8])} {rng.choice(['sees', 'finds', 'keeps'])} the "
            f"{rng.choice(WORDS[3:8])} at night ."
            for _ in range(n_train + n_test)
        ]
    else:
        sentences = [sentence(rng, 8) + " ." for _ in range(n_train + n_test)]
    with zipfile.ZipFile(public / "train_v2.txt.zip", "w") as archive:
        archive.writestr("train_v2.txt", "\n".join(sentences[:n_train]) + "\n")
    test = pd.DataFrame({"id": range(1, n_test + 1), "sentence": sentences[n_train:]})
    answers = test.assign(sentence=test["sentence"])
    test["sentence"] = [remove_inner_word(s, rng) for s in test["sentence"]]  # as prepare.py
    with zipfile.ZipFile(public / "test_v2.txt.zip", "w") as archive:
        archive.writestr("test_v2.txt", test.to_csv(index=False, quoting=1))
    answers.to_csv(private / "test.csv", index=False, quoting=1)
    return root


def sentence_lines_competition(root: Path) -> Path:
    """billion-word-imputation's layout (billion_word): training sentences a line in `train_v2.txt.zip`, the
    test table `test_v2.txt.zip` (a word taken out of each sentence) standing for the sample, which the
    description shows."""
    return billion_word(root, n_train=400, n_test=40, phrased=True)
