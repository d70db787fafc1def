"""Miniatures of plain-table competitions whose inputs are text: the census's (spooky, the jigsaw challenges,
tweet-sentiment, AI4Code's notebooks, chaii's answers), detecting-insults' copied columns, and the no-key
runs' versions of them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.metrics.numeric import JIGSAW_IDENTITIES
from tests.layouts.kit import dirs, hexes, sentence


def spooky(root: Path, n_train: int = 45, n_test: int = 12) -> Path:
    """spooky-author-identification: `train.csv` (`id` = `id<5 digits>`, `text`, `author` EAP/HPL/MWS),
    `test.csv` (`id`, `text`), `sample_submission.csv` `id`, `EAP`, `HPL`, `MWS` (Kaggle's constants)."""
    public, _ = dirs(root, "multiclass_logloss", "# Spooky authors\n\nScored by the multi-class log loss.\n")
    rng = np.random.default_rng(105)
    ids = [f"id{v:05d}" for v in rng.choice(100_000, n_train + n_test, replace=False)]
    texts = [sentence(rng) + "." for _ in ids]
    authors = [("EAP", "HPL", "MWS")[k % 3] for k in range(n_train)]
    pd.DataFrame({"id": ids[:n_train], "text": texts[:n_train], "author": authors}).to_csv(
        public / "train.csv", index=False
    )
    pd.DataFrame({"id": ids[n_train:], "text": texts[n_train:]}).to_csv(public / "test.csv", index=False)
    sample = {
        "id": ids[n_train:],
        "EAP": 0.403493538995863,
        "HPL": 0.287808366106543,
        "MWS": 0.308698094897594,
    }
    pd.DataFrame(sample).to_csv(public / "sample_submission.csv", index=False)
    return root


def jigsaw_toxic(root: Path, n_train: int = 60, n_test: int = 12) -> Path:
    """jigsaw-toxic-comment-classification-challenge: `train.csv` (`id` 16 hex digits, `comment_text`, then
    `toxic`, `severe_toxic`, `obscene`, `threat`, `insult`, `identity_hate`), `test.csv` (`id`,
    `comment_text`), `sample_submission.csv` `id` + the six columns at 0.5."""
    public, _ = dirs(root, "auc", "# Toxic comments\n\nScored by the mean column-wise ROC AUC.\n")
    rng = np.random.default_rng(106)
    classes = ["toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate"]
    ids = hexes(rng, n_train + n_test, 16)
    train = pd.DataFrame({"id": ids[:n_train], "comment_text": [sentence(rng) for _ in range(n_train)]})
    for k, column in enumerate(classes):  # every column has positives in a fifth of the rows or more
        train[column] = ((np.arange(n_train) + k) % (2 + k % 3) == 0).astype(int)
    train.to_csv(public / "train.csv", index=False)
    test = pd.DataFrame({"id": ids[n_train:], "comment_text": [sentence(rng) for _ in range(n_test)]})
    test.to_csv(public / "test.csv", index=False)
    pd.DataFrame({"id": test["id"], **dict.fromkeys(classes, 0.5)}).to_csv(
        public / "sample_submission.csv", index=False
    )
    return root


def tweet_sentiment(root: Path, n_train: int = 45, n_test: int = 12) -> Path:
    """tweet-sentiment-extraction: `train.csv` (`textID` 10 hex digits, `text`, `selected_text`, `sentiment`),
    `test.csv` without `selected_text`, `sample_submission.csv` `textID`, `selected_text` empty in every row."""
    public, _ = dirs(root, "word_jaccard", "# Tweet sentiment\n\nScored by the word-level Jaccard score.\n")
    rng = np.random.default_rng(115)
    ids = hexes(rng, n_train + n_test, 10)
    texts = [sentence(rng, 5) for _ in ids]
    sentiment = [("positive", "negative", "neutral")[k % 3] for k in range(len(ids))]
    selected = [
        t if s == "neutral" else " ".join(t.split()[1:3]) for t, s in zip(texts, sentiment, strict=True)
    ]
    table = pd.DataFrame({"textID": ids, "text": texts, "selected_text": selected, "sentiment": sentiment})
    table[:n_train].to_csv(public / "train.csv", index=False)
    table[n_train:].drop(columns=["selected_text"]).to_csv(public / "test.csv", index=False)
    pd.DataFrame({"textID": ids[n_train:], "selected_text": ""}).to_csv(
        public / "sample_submission.csv", index=False
    )
    return root


def ai4code(root: Path, n_train: int = 30, n_test: int = 8) -> Path:
    """AI4Code: `train/<id>.json` and `test/<id>.json` notebooks (`cell_type`, `source`, keyed by 8-hex cell
    ids, markdown after code: the order hidden), `train_orders.csv` (`id` 14 hex digits, `cell_order`),
    `train_ancestors.csv` (`id`, `ancestor_id`, `parent_id`; train notebooks only), `sample_submission.csv`
    `id`, `cell_order` (the test notebook's cells as listed). The metric: Kendall tau over cell orders,
    `kendall_tau`."""
    public, _ = dirs(root, "kendall_tau", "# Google AI4Code\n\nScored by Kendall tau over cell orders.\n")
    rng = np.random.default_rng(120)
    ids = hexes(rng, n_train + n_test, 14)
    orders, listed = [], []
    for k, notebook in enumerate(ids):
        cells = hexes(rng, 4, 8)
        kinds = ["code", "code", "markdown", "markdown"]
        order = [cells[i] for i in rng.permutation(4)]
        content = {"cell_type": dict(zip(cells, kinds, strict=True)), "source": {c: f"# {c}" for c in cells}}
        folder = "train" if k < n_train else "test"
        (public / folder).mkdir(exist_ok=True)
        (public / folder / f"{notebook}.json").write_text(json.dumps(content))
        orders.append(" ".join(order))
        listed.append(" ".join(cells))
    pd.DataFrame({"id": ids[:n_train], "cell_order": orders[:n_train]}).to_csv(
        public / "train_orders.csv", index=False
    )
    ancestors = pd.DataFrame(
        {"id": ids[:n_train], "ancestor_id": [a[:8] for a in ids[:n_train]], "parent_id": ""}
    )
    ancestors.to_csv(public / "train_ancestors.csv", index=False)
    pd.DataFrame({"id": ids[n_train:], "cell_order": listed[n_train:]}).to_csv(
        public / "sample_submission.csv", index=False
    )
    return root


JIGSAW_SUBTYPES = ["severe_toxicity", "obscene", "identity_attack", "insult", "threat"]


def jigsaw_bias(root: Path, n_train: int = 600, n_test: int = 12) -> Path:
    """jigsaw-unintended-bias-in-toxicity-classification: `train.csv` as Kaggle's (`id`, `target` a fraction of
    raters, `comment_text`, the toxicity subtypes, identity columns (here the 9 grade.py scores of 24, blank where
    a comment was not rated for identities), metadata (here `created_date`, `rating`, `toxicity_annotator_count`)),
    `test.csv` (`id`, `comment_text`), `sample_submission.csv` `id`, `prediction` = 0.0; metric `jigsaw_bias_auc`,
    which reads the held-out rows' identity columns."""
    public, _ = dirs(
        root, "jigsaw_bias_auc", "# Jigsaw unintended bias\n\nScored by AUC with bias AUCs per identity.\n"
    )
    rng = np.random.default_rng(130)
    ids = [int(v) for v in sorted(rng.choice(10**7, n_train + n_test, replace=False))]
    raters = rng.integers(4, 10, n_train)
    train = pd.DataFrame(
        {
            "id": ids[:n_train],
            "target": (rng.integers(0, raters + 1) / raters).round(6),
            "comment_text": [sentence(rng) for _ in range(n_train)],
        }
    )
    for column in JIGSAW_SUBTYPES:
        train[column] = (rng.integers(0, raters + 1) / raters / 2).round(6)
    rated = np.arange(n_train) % 4 != 0  # a quarter of the comments were not rated for identities
    for column in JIGSAW_IDENTITIES:
        shares = (rng.random(n_train) * (rng.random(n_train) < 0.4)).round(6)
        train[column] = np.where(rated, shares.astype(str), "")
    train["created_date"] = [f"2016-{1 + k % 12:02d}-01 13:26:11.111+00" for k in range(n_train)]
    train["rating"] = rng.choice(["approved", "rejected"], n_train)
    train["toxicity_annotator_count"] = raters
    train.to_csv(public / "train.csv", index=False)
    test = pd.DataFrame({"id": ids[n_train:], "comment_text": [sentence(rng) for _ in range(n_test)]})
    test.to_csv(public / "test.csv", index=False)
    pd.DataFrame({"id": test["id"], "prediction": 0.0}).to_csv(public / "sample_submission.csv", index=False)
    return root


def shares_competition(root: Path) -> Path:
    """jigsaw-unintended-bias's layout (jigsaw_bias): `target` is the share of raters who found a comment
    toxic, the submission's `prediction`, scored by the bias AUC (made 0/1 at 0.5) with each comment's
    identity columns; here a comment holding "dark" is toxic to most raters."""
    jigsaw_bias(root, n_train=900, n_test=300)
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    rng = np.random.default_rng(5)

    def shares(comments: pd.Series) -> np.ndarray:
        toxic = comments.str.contains("dark").to_numpy()
        return np.where(
            toxic, rng.uniform(0.5, 1.0, len(comments)), rng.uniform(0.0, 0.45, len(comments))
        ).round(3)

    train = pd.read_csv(public / "train.csv", dtype=str, keep_default_na=False)
    train["target"] = shares(train["comment_text"])
    train.to_csv(public / "train.csv", index=False)
    test = pd.read_csv(public / "test.csv", dtype=str, keep_default_na=False)
    answers = test[["id"]].assign(prediction=shares(test["comment_text"]))
    for k, column in enumerate(JIGSAW_IDENTITIES):  # each identity named by a third of the comments, offset
        answers[column] = ((np.arange(len(test)) + k) % 3 == 0).astype(int)
    answers.to_csv(private / "test.csv", index=False)
    return root


def insults(root: Path, n_train: int = 40, n_test: int = 12) -> Path:
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    dates = ["20120618192155Z", "", "20120528192215Z"]  # repeated and missing, as the real dates are

    def rows(start: int, count: int) -> pd.DataFrame:
        insult = [k % 2 for k in range(start, start + count)]
        comment = [
            f'"{"you idiot" if i else "nice point"} #{k}"'
            for k, i in zip(range(start, start + count), insult, strict=True)
        ]
        date = [dates[k % 3] for k in range(start, start + count)]
        return pd.DataFrame({"Insult": insult, "Date": date, "Comment": comment})

    rows(0, n_train).to_csv(public / "train.csv", index=False)
    test = rows(n_train, n_test)
    test[["Date", "Comment"]].to_csv(public / "test.csv", index=False)
    test.assign(Insult=0).to_csv(public / "sample_submission_null.csv", index=False)
    test.assign(Usage="PrivateTest").to_csv(private / "test.csv", index=False)
    (public / "description.md").write_text("# Insults\n\nPredict whether a comment is an insult; ROC AUC.\n")
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "auc"}}))
    return root


def insults_competition(root: Path) -> Path:
    """detecting-insults' layout: the sample copies test.csv's Date and Comment beside the target Insult."""
    return insults(root, n_train=120, n_test=40)


ANSWER_WORDS = ["river", "stone", "light", "mango", "cloud", "ember", "tiger", "plain"]


def question_answering(root: Path, n_train: int = 40, n_test: int = 8) -> Path:
    """chaii's layout: the answer's text and start in train.csv only, the sample's `PredictionString`."""
    public, private = dirs(root, "word_jaccard", "# Answers\n\nScored by the word-level Jaccard score.\n")
    rng = np.random.default_rng(3)

    def rows(n: int, prefix: str) -> pd.DataFrame:
        answers = list(rng.choice(ANSWER_WORDS[:4], n))
        contexts = [
            f"the {a} is here by the {' and '.join(rng.choice(ANSWER_WORDS[4:], 3))}" for a in answers
        ]
        return pd.DataFrame(
            {
                "id": [f"{prefix}{i:03d}" for i in range(n)],
                "context": contexts,
                "question": ["what is here?"] * n,
                "answer_text": answers,
                "answer_start": [4] * n,
                "language": rng.choice(["hindi", "tamil"], n),
            }
        )

    train, test = rows(n_train, "tr"), rows(n_test, "te")
    train.to_csv(public / "train.csv", index=False)
    test.drop(columns=["answer_text", "answer_start"]).to_csv(public / "test.csv", index=False)
    pd.DataFrame({"id": test["id"], "PredictionString": "dummy text"}).to_csv(
        public / "sample_submission.csv", index=False
    )
    test[["id", "answer_text"]].rename(columns={"answer_text": "PredictionString"}).to_csv(
        private / "test.csv", index=False
    )
    return root


def renamed_target_competition(root: Path) -> Path:
    """chaii's layout: the sample's `PredictionString` is train.csv's `answer_text`, which test.csv lacks."""
    return question_answering(root, n_train=120, n_test=30)
