"""The TRAINING_TRICKS section: validation, the fits (seed bags), the special targets (lookups, boxes, masks,
recommendations, inserted words), the SWARM_METRIC line and submission.csv. `most_common_answers` is inserted
from swarm/offline_coder/inference.py, where the coder reads the same answers."""

VALIDATION = CHOSEN_VALIDATION  # "holdout": 80/20 split then refit on all rows; "kfold": average fold models
# (when test lies after train, both are time-ordered: the latest rows validate, and the test model is refit)
N_FOLDS = CHOSEN_FOLDS
TARGET_TRANSFORM = CHOSEN_TARGET_TRANSFORM  # "log1p" fits regression targets on log1p(y) and maps predictions back
SEED_BAG = CHOSEN_SEED_BAG  # models per fit, each with its own seed, averaged
SPLIT_SEED = 2024  # fixed, not SEED: every solution is validated on the same rows, so their scores compare
os.makedirs(WORK_DIR, exist_ok=True)
os.makedirs(SUB_DIR, exist_ok=True)


def fit_predict(task, n_classes, X_fit, y_fit, frames, log_target):
    """Fit SEED_BAG models and average their predictions (values or class probabilities) on each frame, on
    one thread below MANY_ROWS rows (HistGradientBoosting's OpenMP pool follows threadpool_limits)."""
    global N_JOBS
    N_JOBS = CPUS if len(X_fit) >= MANY_ROWS else 1
    with threadpool_limits(N_JOBS):
        return fit_bag(task, n_classes, X_fit, y_fit, frames, log_target)


def fit_bag(task, n_classes, X_fit, y_fit, frames, log_target):
    outputs = [0.0 for _ in frames]
    for bag in range(SEED_BAG):
        model = build_model(task, SEED + 1000 * bag)
        if task == "regression":
            fit_target = np.log1p(y_fit) if log_target else y_fit
            model.fit(X_fit, fit_target)
            for i, frame in enumerate(frames):
                # never predict outside the training range: linear models extrapolate wildly on outliers
                pred = np.clip(model.predict(frame), fit_target.min(), fit_target.max())
                outputs[i] = outputs[i] + (np.expm1(pred) if log_target else pred) / SEED_BAG
        else:
            model.fit(X_fit, y_fit)
            for i, frame in enumerate(frames):
                proba = np.zeros((len(frame), n_classes))
                proba[:, np.asarray(model.classes_, dtype=int)] = model.predict_proba(frame)
                outputs[i] = outputs[i] + proba / SEED_BAG
    return outputs


def make_splits(task, y, times=None):
    """Train/validation row indices: N_FOLDS folds, or one stratified 80/20 holdout; with `times` (test lies
    after train) validation rows always come after their training rows, as the test rows will."""
    rows = np.arange(len(y))
    if times is not None:
        ordered = rows[np.argsort(times, kind="stable")]
        if VALIDATION == "kfold":
            chunks = np.array_split(ordered, N_FOLDS + 1)
            return [(np.concatenate(chunks[: i + 1]), chunks[i + 1]) for i in range(N_FOLDS)]
        cut = int(round(0.8 * len(ordered)))
        return [(ordered[:cut], ordered[cut:])]
    stratify = task != "regression" and np.bincount(y).min() >= max(N_FOLDS, 2)
    if VALIDATION == "kfold":
        if stratify:
            return list(StratifiedKFold(N_FOLDS, shuffle=True, random_state=SPLIT_SEED).split(rows, y))
        return list(KFold(N_FOLDS, shuffle=True, random_state=SPLIT_SEED).split(rows))
    train_rows, valid_rows = train_test_split(
        rows, test_size=0.2, random_state=SPLIT_SEED, stratify=y if stratify else None
    )
    return [(train_rows, valid_rows)]


test_ids = test_df[ID_COL] if ID_COL in test_df.columns else sample_sub[ID_COL]
submission = sample_sub[[ID_COL]].copy()


def by_sample_order(values):
    """Test predictions reordered to the sample submission's ids; where several test rows share an id (an image
    per row, a submission row per breast), the id's value is their mean, or their most common label."""
    if len(test_ids) == len(sample_sub) and (np.asarray(test_ids) == np.asarray(sample_sub[ID_COL])).all():
        return np.asarray(values)  # the test rows are the sample's, in its order (also where ids repeat)
    series = pd.Series(np.asarray(values), index=np.asarray(test_ids))
    if not series.index.is_unique and set(sample_sub[ID_COL]).issubset(series.index):
        grouped = series.groupby(level=0, sort=False)
        series = grouped.mean() if series.dtype.kind in "fiub" else grouped.agg(lambda s: s.mode().iloc[0])
    if series.index.is_unique and set(sample_sub[ID_COL]).issubset(series.index):
        return series.reindex(np.asarray(sample_sub[ID_COL])).to_numpy()
    return series.to_numpy()


# <insert: most_common_answers>


def lookup_answers(target, keys_fit, answers_fit, keys):
    """Free text (a "lookup" target): each key's most common answer in the fitted rows; a key never seen
    answers itself where most answers repeat their key (`identity`), else the most common answer."""
    if target["source"] is None:
        return np.full(len(keys), answers_fit.mode().iloc[0], dtype=object)
    found = keys.map(most_common_answers(keys_fit, answers_fit))
    return found.fillna(keys if target["identity"] else answers_fit.mode().iloc[0]).to_numpy(dtype=object)


def box_predictions(boxes, X_known, X_test):
    """Boxes (a list of (class, corners) per row): per class, a binary classifier of whether a row has one gives
    each test row's confidence, at the class's mean box; (test rows' box strings, validation accuracy)."""
    labels = sorted({label for groups in boxes for label, _ in groups})
    columns, right = [], []
    for label in labels:
        y = np.array([int(any(got == label for got, _ in groups)) for groups in boxes])
        corners = np.mean([box for groups in boxes for got, box in groups if got == label], axis=0)
        if y.min() == y.max():  # every row has the class, or none: its share is the confidence
            confidence = np.full(len(X_test), float(y[0]))
        else:
            for train_rows, valid_rows in make_splits("binary", y):
                (valid_pred,) = fit_predict("binary", 2, X_known.iloc[train_rows], y[train_rows],
                                            [X_known.iloc[valid_rows]], False)
                right.append(float(np.mean((valid_pred[:, 1] >= 0.5) == y[valid_rows])))
            (test_pred,) = fit_predict("binary", 2, X_known, y, [X_test], False)
            confidence = test_pred[:, 1]
        box = " ".join(f"{v:.1f}" for v in corners)
        columns.append([f"{label} {c:.4f} {box}" for c in confidence])
    strings = [" ".join(row) for row in zip(*columns)] if columns else [""] * len(X_test)
    return strings, float(np.mean(right)) if right else 1.0


BIGRAM_SENTENCES = 200_000  # training sentences whose word pairs are counted (more would not fit in memory)
CANDIDATES = 8  # words tried at each gap of a sentence: the likeliest followers of the word before it


def edit_distance(a, b):
    """Levenshtein distance of two texts, character by character."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        last, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            last, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, last + (x != y))
    return row[-1]


def insert_words(sentences, shown):
    """A word was taken out of each shown sentence (never the first or last): put back, at the gap where it is
    likeliest, the word whose pairs with its neighbours are likeliest against the neighbours' own pair (word pairs
    counted in training sentences); a word goes in only where that gain passes a margin chosen on training
    sentences with a word taken out as the test's were. (sentences, share of validation sentences restored)."""
    rng = np.random.default_rng(SPLIT_SEED)
    usable = [s for s in sentences if len(s.split()) > 2]
    order = rng.permutation(len(usable))
    n_valid = min(1000, len(usable) // 5)
    valid = [usable[i] for i in order[:n_valid]]
    pairs, counts = {}, {}
    for sentence in (usable[i] for i in order[n_valid : n_valid + BIGRAM_SENTENCES]):
        words = sentence.split()
        for left, right in zip(words, words[1:]):
            pairs[(left, right)] = pairs.get((left, right), 0) + 1
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    followers = {}
    for (left, right), n in pairs.items():
        followers.setdefault(left, []).append((n, right))
    followers = {w: [r for _, r in sorted(f, reverse=True)[:CANDIDATES]] for w, f in followers.items()}
    smooth = 0.1 * max(1, len(counts))

    def log_p(left, right):
        return np.log((pairs.get((left, right), 0) + 0.1) / (counts.get(left, 0) + smooth))

    def best(sentence):
        words, found = sentence.split(), (-np.inf, 1, "")
        for gap in range(1, len(words)):
            left, right = words[gap - 1], words[gap]
            base = log_p(left, right)
            for word in followers.get(left, []):
                gain = log_p(left, word) + log_p(word, right) - base
                if gain > found[0]:
                    found = (gain, gap, word)
        return found

    def put_back(sentence, found, margin):
        gain, gap, word = found
        words = sentence.split()
        return " ".join(words[:gap] + [word] + words[gap:]) if word and gain > margin else sentence

    shown_valid = [remove_inner_word(s, rng) for s in valid]
    found_valid = [best(s) for s in shown_valid]
    margins = [np.inf, 0.0, 1.0, 2.0, 4.0, 8.0]  # inf: never insert
    distances = [
        np.mean([edit_distance(t, put_back(s, f, m)) for t, s, f in zip(valid, shown_valid, found_valid)])
        if valid else 0.0
        for m in margins
    ]
    margin = margins[int(np.argmin(distances))]
    print(f"word insertion: margin {margin}, validation edit distance {min(distances):.3f} "
          f"(left as shown: {distances[0]:.3f})")
    restored = float(np.mean([put_back(s, f, margin) == t for t, s, f in zip(valid, shown_valid, found_valid)]))
    return [put_back(s, best(s), margin) for s in shown], restored if valid else 0.0


scores = []
for target in TARGETS:
    name, task = target["name"], target["task"]
    if task == "insert_word":  # a word taken out of each test sentence (the sample is the test table)
        column = target.get("column") or name
        guessed, restored = insert_words(Y[name].astype(str).tolist(), sample_sub[column].astype(str).tolist())
        scores.append(restored)
        submission[column] = guessed
        continue
    if task == "mask" and DATA_FILES.get("keyed"):  # a mask per (image, class) row: slice_mask_predictions
        strings, dice = slice_mask_predictions(INPUT_DIR, DATA_FILES["keyed"], train_df, sample_sub,
                                               lambda: build_model("binary", SEED), SPLIT_SEED)
        scores.append(dice)
        submission[target.get("column") or name] = strings
        continue
    if task == "recommend":  # each id's next items: its own recent ones, then the most bought (recommended)
        _ev = DATA_FILES["later_events"]
        strings, found = recommended(INPUT_DIR, _ev, sample_sub[ID_COL].tolist(), _ev["days"])
        scores.append(found)
        submission[target.get("column") or name] = strings
        continue
    if task == "mask":  # a mask per example folder: a classifier of its pixels (mask_predictions)
        strings, dice = mask_predictions(INPUT_DIR, DATA_FILES["masks"], train_df[ID_COL].tolist(),
                                         sample_sub[ID_COL].tolist(), lambda: build_model("binary", SEED), SPLIT_SEED)
        scores.append(dice)
        submission[target.get("column") or name] = strings
        continue
    if task == "boxes":  # a string of boxes per example: a classifier per class, at the class's mean box
        boxes = Y[name].fillna("").astype(str).map(box_groups).tolist()
        strings, accuracy = box_predictions(boxes, X.reset_index(drop=True), X_test)
        scores.append(accuracy)
        submission[target.get("column") or name] = by_sample_order(np.asarray(strings, dtype=object))
        continue
    if task == "lookup":  # validated on a seeded fifth of the rows, then fitted on all of them
        known = Y[name].notna().to_numpy()
        answers = Y.loc[known, name].astype(str).reset_index(drop=True)
        source = target["source"] or name
        keys = train_df.loc[known, source].astype(str).reset_index(drop=True) if target["source"] else answers
        valid = np.random.default_rng(SPLIT_SEED).random(len(answers)) < 0.2
        guessed = lookup_answers(target, keys[~valid], answers[~valid], keys[valid])
        scores.append(float(np.mean(guessed == answers[valid].to_numpy())))
        column = target.get("column") or name
        if target["source"] is None:  # nothing names the answer: the sample's own values, a valid submission
            submission[column] = sample_sub[column].to_numpy()
            continue
        test_keys = test_df[source].astype(str)
        submission[column] = by_sample_order(lookup_answers(target, keys, answers, test_keys))
        continue
    known = Y[name].notna().to_numpy()
    X_known = X[known].reset_index(drop=True)
    if task == "regression":
        y = Y.loc[known, name].to_numpy(dtype=float)
        classes, n_classes = None, 0
    else:
        values = Y.loc[known, name]
        if target.get("threshold") is not None:  # shares of raters: the class is whether the share reaches it
            values = (values.astype(float) >= target["threshold"]).astype(int)
        y, classes = pd.factorize(values, sort=True)
        classes, n_classes = list(classes), len(classes)
    log_target = task == "regression" and TARGET_TRANSFORM == "log1p" and y.min() > -1
    times = globals().get("TIME_ORDER")
    times = None if times is None else np.asarray(times)[known]
    splits = make_splits(task, y, times)
    if times is not None:
        print(f"{name}: validation is time-ordered (the latest rows validate, as test lies after train)")
    oof = np.zeros(len(y)) if task == "regression" else np.zeros((len(y), n_classes))
    test_pred = 0.0
    for train_rows, valid_rows in splits:
        valid_pred, fold_test = fit_predict(
            task, n_classes, X_known.iloc[train_rows], y[train_rows], [X_known.iloc[valid_rows], X_test], log_target
        )
        oof[valid_rows] = valid_pred
        test_pred = test_pred + fold_test / len(splits)
    if VALIDATION != "kfold" or times is not None:  # time-ordered folds lack the latest rows: refit on all
        (test_pred,) = fit_predict(task, n_classes, X_known, y, [X_test], log_target)
    valid_rows = np.concatenate([rows for _, rows in splits])
    pos = classes.index(target["positive"]) if classes and target["positive"] in classes else max(n_classes - 1, 0)
    scores.append(evaluate(target, y[valid_rows], oof[valid_rows], pos))
    column = target.get("column") or name  # the submission's name for the target (chaii: answer_text's)
    if task == "regression":
        submission[column] = by_sample_order(test_pred)
    elif target["output"] == "proba_wide":
        for column, cls in target["columns"].items():
            submission[column] = by_sample_order(test_pred[:, classes.index(cls)] if cls in classes else np.zeros(len(X_test)))
    elif target["output"] == "proba" and n_classes == 2:
        submission[column] = by_sample_order(test_pred[:, pos])
    else:
        submission[column] = by_sample_order(np.asarray(classes, dtype=object)[test_pred.argmax(axis=1)])

value = float(np.mean(scores))
print(f"validation {METRIC} ({VALIDATION}, {MODEL_FAMILY}): {value:.6f}")
print("SWARM_METRIC " + json.dumps({"name": METRIC, "value": value, "lower_is_better": bool(LOWER_IS_BETTER)}))
for column in sample_sub.columns:  # columns the sample copies from the test rows (a date beside the id)
    if column not in submission.columns:
        submission[column] = sample_sub[column].to_numpy()
submission = submission[list(sample_sub.columns)]
submission.to_csv(os.path.join(SUB_DIR, "submission.csv"), index=False)
print(f"wrote {len(submission)} rows to submission/submission.csv")
