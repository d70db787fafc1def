"""The LOSS section: the training objective the genome chose and `evaluate`, the competition metric."""

OBJECTIVE = CHOSEN_OBJECTIVE  # training objective; the competition metric (METRIC) is fixed


def evaluate(target, y_true, pred, pos):
    """METRIC for one target: `pred` holds values (regression) or class probabilities (n_rows x n_classes)."""
    if target["task"] == "regression":
        if METRIC == "rmsle":
            diff = np.log1p(np.clip(pred, 0, None)) - np.log1p(np.clip(y_true, 0, None))
            return float(np.sqrt(np.mean(diff**2)))
        if METRIC == "mae":
            return float(mean_absolute_error(y_true, pred))
        if METRIC == "r2":
            return float(r2_score(y_true, pred))
        return float(np.sqrt(mean_squared_error(y_true, pred)))
    labels = pred.argmax(axis=1)
    if METRIC == "auc":
        if pred.shape[1] == 2:
            return float(roc_auc_score(y_true == pos, pred[:, pos]))
        return float(roc_auc_score(y_true, pred, multi_class="ovr", labels=list(range(pred.shape[1]))))
    if METRIC == "logloss":
        proba = np.clip(pred, 1e-15, 1.0)
        return float(log_loss(y_true, proba / proba.sum(axis=1, keepdims=True), labels=list(range(pred.shape[1]))))
    if METRIC == "f1":
        if pred.shape[1] == 2:
            return float(f1_score(y_true == pos, labels == pos))
        return float(f1_score(y_true, labels, average="macro"))
    return float(accuracy_score(y_true, labels))
