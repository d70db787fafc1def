"""How well a guess tells held-out rows from test rows: the area under the ROC curve of its scores."""

from __future__ import annotations

import numpy as np
import pandas as pd


def auc(scores: np.ndarray, held: np.ndarray) -> float:
    """How often a held-out row scores above a test row (ties half): 0.5 is chance, 0 or 1 a perfect guess."""
    ranks = pd.Series(scores).rank().to_numpy()
    n_held, n_test = held.sum(), (~held).sum()
    return float((ranks[held].sum() - n_held * (n_held + 1) / 2) / (n_held * n_test))
