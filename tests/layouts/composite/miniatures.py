"""A miniature of text-normalization-challenge-english-language's layout: the sample's ids join two columns of
the test table (`<sentence_id>_<token_id>`), and no table has an `id` column (issue 29, point 3)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

WORDS = ("the", "cat", "sat", "on", "a", "mat", "we", "saw", "it", "run", "home", "and", "sun", "is", "red")
MARKS = (".", ",", "!", "?")
UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")  # fmt: skip
TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
# Words pandas' read_csv reads as missing by default, which text normalization's tables hold as tokens to speak.
MISSING_WORDS = ("NA", "None", "null", "N/A", "nan")


def spelled(number: int) -> str:
    """0-999 in words: 42 -> 'forty two', 305 -> 'three hundred five'."""
    if number >= 100:
        hundreds, rest = divmod(number, 100)
        return f"{UNITS[hundreds]} hundred" + (f" {spelled(rest)}" if rest else "")
    if number < 20:
        return UNITS[number]
    tens, units = divmod(number, 10)
    return TENS[tens] + (f" {UNITS[units]}" if units else "")


def sentences(
    count: int, rng: np.random.Generator, numbers: int = 30, missing_words: bool = False
) -> pd.DataFrame:
    """`count` sentences of 3-6 tokens: words (PLAIN), a mark (PUNCT) and numbers below `numbers` (NUMBER);
    `after` is the token itself, or a number spelled out. `missing_words`: every third sentence begins with one of
    MISSING_WORDS in turn (PLAIN, its `after` the word itself), in place of its drawn first token: the draws,
    and so the other tokens, stay those of the miniature without them."""
    rows = []
    for sentence in range(count):
        length = int(rng.integers(3, 7))
        for token in range(length):
            if token == length - 1:
                kind, before = "PUNCT", str(rng.choice(MARKS))
            elif rng.random() < 0.25:
                kind, before = "NUMBER", str(int(rng.integers(0, numbers)))
            else:
                kind, before = "PLAIN", str(rng.choice(WORDS))
            after = spelled(int(before)) if kind == "NUMBER" else before
            rows.append((sentence, token, kind, before, after))
        if missing_words and sentence % 3 == 0:
            word = MISSING_WORDS[sentence // 3 % len(MISSING_WORDS)]
            rows[-length] = (sentence, 0, "PLAIN", word, word)
    return pd.DataFrame(rows, columns=["sentence_id", "token_id", "class", "before", "after"])


def text_normalization_competition(
    root: Path,
    n_train: int = 60,
    n_test: int = 15,
    *,
    zipped: bool = False,
    declare_labels: bool = False,
    numbers: int = 30,
    missing_words: bool = False,
) -> Path:
    """`en_train.csv` (`sentence_id,token_id,class,before,after`), `en_test_2.csv` (`sentence_id,token_id,before`,
    sentence ids 0.. as train's), `en_sample_submission_2.csv` (`id,after`, ids `<sentence>_<token>`, `after` the
    token as it is); the answers in private/; scored by accuracy on `after`. `zipped`: each table in a zip of its
    own, as MLE-bench ships them. `declare_labels`: competition.json lists every `after` there is, so that a
    prediction no test token has is still a valid one (accuracy takes labels only from the answers otherwise).
    `numbers`: tokens are numbers below it (a few hundred make `after` free text: over 200 distinct answers).
    `missing_words`: tokens "NA", "None", "null", "N/A" and "nan" in train and test (see `sentences`)."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    rng = np.random.default_rng(29)
    train = sentences(n_train, rng, numbers, missing_words)
    test = sentences(n_test, rng, numbers, missing_words)
    train.to_csv(public / "en_train.csv", index=False)
    test[["sentence_id", "token_id", "before"]].to_csv(public / "en_test_2.csv", index=False)
    ids = test["sentence_id"].astype(str) + "_" + test["token_id"].astype(str)
    pd.DataFrame({"id": ids, "after": test["before"]}).to_csv(
        public / "en_sample_submission_2.csv", index=False
    )
    pd.DataFrame({"id": ids, "after": test["after"]}).to_csv(private / "answers.csv", index=False)
    (public / "description.md").write_text(
        "# Text normalization\n\nConvert each token (`before`) to its spoken form (`after`): 12 -> twelve.\n\n"
        "## Evaluation\n\nSubmissions are evaluated on prediction accuracy (the share of tokens exactly right).\n"
    )
    meta: dict = {"metric": {"name": "accuracy"}}
    if declare_labels:
        meta["labels"] = {"after": sorted({*MARKS, *WORDS, *(spelled(n) for n in range(numbers))})}
    (root / "competition.json").write_text(json.dumps(meta))
    for name in ("en_train.csv", "en_test_2.csv", "en_sample_submission_2.csv") if zipped else ():
        with zipfile.ZipFile(public / f"{name}.zip", "w") as archive:
            archive.write(public / name, name)
        (public / name).unlink()
    return root


def text_normalization_layout(root: Path) -> Path:
    """The miniature as MLE-bench ships it (zipped tables), big enough for a model to learn `after` from `before`
    (200 sentences: the offline coder's default solution reaches about 0.96), every `after` declared."""
    return text_normalization_competition(root, n_train=200, n_test=40, zipped=True, declare_labels=True)


def free_text_normalization_layout(root: Path) -> Path:
    """The zipped miniature with numbers below 600: over 200 distinct `after` answers, free text to the offline
    coder (looked up from `before`, not classified) and to the harness (an answer no row has is wrong, not
    invalid: no competition.json `labels`, as in MLE-bench's dirs)."""
    return text_normalization_competition(root, n_train=500, n_test=40, zipped=True, numbers=600)


def missing_words_normalization_layout(root: Path) -> Path:
    """The zipped miniature with "NA", "None", "null", "N/A" and "nan" tokens in train and test (a user's no-key
    run on such a miniature wrote blanks for them, and the harness refused the file)."""
    return text_normalization_competition(root, n_train=200, n_test=40, zipped=True, missing_words=True)
