"""The DATA section of an offline solution: features built per kind of column (swarm/formats/columns.py).

Feature sets, weakest first ("minimal" is reached only by debugging a failing feature builder):
- minimal: numbers, category codes, frequencies of many-level codes, date parts; no text, no files;
- basic:   + free text as out-of-fold scores of a TF-IDF (word 1-2 grams) linear model, text lengths; images
             centred on their ink, downscaled to 8x8 pixels, plus gradient-orientation histograms on a 4x4 grid;
             sound clips as log energies of 16 mel bands of their short-time spectrum (mean, spread and peak over
             time) and a few clip statistics (swarm/formats/audio.py), and their size; the size of other files;
- freq:    + frequencies of every code, character 2-5 grams in the text model, 12x12 pixels, 24 bands;
- rich:    + missing flags, logs of skewed numbers, one-hot small codes, out-of-fold target means of many-level
             codes, more date parts, 16 SVD components of the text, 16x16 pixels and colour statistics, 32 bands.
Date columns give year/month/day/weekday/hour/day of year and days elapsed; when test lies after train,
TIME_ORDER holds train's times so that validation is time-ordered (TRAINING_TRICKS).
"""

from __future__ import annotations

import inspect
from typing import Any

from swarm.formats.columns import resolve_file
from swarm.layouts.registry import READ_BY_CODER

# A labelled CSV larger than this is read as a seeded draw of about MAX_TRAIN_ROWS rows (nyc-taxi's 55 million).
LARGE_TABLE_BYTES = 1_000_000_000
MAX_TRAIN_ROWS = 2_000_000

READ = """FEATURES = {features!r}  # minimal < basic < freq < rich (see the kinds of columns in COLUMN_KINDS)
LARGE_TABLE_BYTES, MAX_TRAIN_ROWS = {large_table_bytes!r}, {max_train_rows!r}
sample_sub = read_csv_as_meant(os.path.join(INPUT_DIR, DATA_FILES["sample"]))  # text keeps "NA", "None"
if DATA_FILES.get("train_files"):  # training files labelled by their names or folders (file_label_frame)
    train_df = file_label_frame(INPUT_DIR, DATA_FILES["train_files"])
    test_df = sample_sub[[ID_COL]].copy()
    test_df[FILE_COLUMN] = test_file_paths(INPUT_DIR, DATA_FILES["train_files"], test_df[ID_COL])
{layout_branches}else:
    # CSV or parquet tables, or JSON records (records_table); without a test table the test rows are the
    # sample's ids.
    def read_table(name, labelled=False):
        path = os.path.join(INPUT_DIR, name)
        if name.lower().endswith((".json", ".jsonl")):
            return records_table(path)
        if name.lower().endswith(".parquet"):  # a labelled one: at most its first MAX_TRAIN_ROWS rows
            return parquet_table(path, MAX_TRAIN_ROWS if labelled else None)
        if labelled and os.path.getsize(path) > LARGE_TABLE_BYTES:  # too large to model whole: a seeded draw
            head = read_csv_as_meant(path, nrows=10_000)
            rows = os.path.getsize(path) / max(1.0, len(head.to_csv(index=False).encode()) / max(1, len(head)))
            share, rng = min(1.0, MAX_TRAIN_ROWS / max(rows, 1.0)), np.random.default_rng(0)
            parts = [chunk[rng.random(len(chunk)) < share] for chunk in read_csv_as_meant(path, chunksize=1_000_000)]
            print(f"{{name}}: {{os.path.getsize(path) / 1e6:.0f}} MB, about {{share:.1%}} of its rows read")
            return pd.concat(parts, ignore_index=True)
        return read_csv_as_meant(path)

    train_df = read_table(DATA_FILES["train"], labelled=True)
    test_df = read_table(DATA_FILES["test"]) if DATA_FILES["test"] else sample_sub[[ID_COL]].copy()
    if DATA_FILES.get("label_sets"):  # label sets in one column: a 0/1 column per class (spread_label_sets)
        train_df = spread_label_sets(train_df, DATA_FILES["label_sets"], list(sample_sub.columns[1:]))
    if DATA_FILES.get("id_parts") and not DATA_FILES["test"]:  # the ids join labelled columns (with_id_parts)
        test_df = with_id_parts(test_df, train_df, DATA_FILES["id_parts"], ID_COL)
if ID_COL not in test_df.columns:  # the tables name the id but for case (iwildcam's `id` for the sample's `Id`)
    _same = {{c: ID_COL for c in test_df.columns if str(c).lower() == ID_COL.lower()}}
    train_df, test_df = train_df.rename(columns=_same), test_df.rename(columns=_same)
if DATA_FILES.get("composite"):  # the sample's ids join test columns: compared as stripped text
    sample_sub[ID_COL] = sample_sub[ID_COL].astype(str).str.strip()
Y = train_df[[t["name"] for t in TARGETS]].copy()
# free-text targets are looked up, boxes modelled a class at a time, taken-out words put back by word pairs, masks
# modelled a pixel at a time, later events recommended from the log: none is a target of the feature models
MODELLED = [t for t in TARGETS if t["task"] not in ("lookup", "boxes", "insert_word", "mask", "recommend")]
N_TRAIN = len(train_df)
_targets = {{t["name"] for t in TARGETS}}
_cols = [c for c in train_df.columns if c not in _targets and c in test_df.columns]
_full = pd.concat([train_df[_cols], test_df[_cols]], ignore_index=True)
_feats = {{}}


def column_kind(c):
    \"\"\"The kind of column `c` (COLUMN_KINDS, else a guess from its values).\"\"\"
    info = COLUMN_KINDS.get(c)
    if info:
        return info
    if pd.api.types.is_numeric_dtype(_full[c]):
        return {{"kind": "numeric"}}
    levels = _full[c].nunique()
    return {{"kind": "categorical" if levels <= 50 else "high_cardinality", "levels": levels}}


KINDS = {{c: column_kind(c) for c in _cols}}
if ID_COL in KINDS and KINDS[ID_COL]["kind"] not in ("datetime", "file", "text"):
    del KINDS[ID_COL]  # the id is a feature only when it is a date, a file name or text


def columns_of(kind):
    return [c for c, info in KINDS.items() if info["kind"] == kind]


def known_target(t):
    \"\"\"(rows of train with this target, target values: floats, or class codes and the classes).\"\"\"
    known = Y[t["name"]].notna().to_numpy()
    if t["task"] == "regression":
        return known, Y.loc[known, t["name"]].to_numpy(dtype=float), None
    codes, classes = pd.factorize(Y.loc[known, t["name"]], sort=True)
    return known, codes, list(classes)


def oof_folds(n, codes=None):
    \"\"\"5 shuffled folds over n train rows (stratified when class codes allow it).\"\"\"
    rows = np.arange(n)
    if codes is not None and np.bincount(codes).min() >= 5:
        return list(StratifiedKFold(5, shuffle=True, random_state=0).split(rows, codes))
    return list(KFold(5, shuffle=True, random_state=0).split(rows))
"""

NUMBERS_AND_CODES = """for c in columns_of("numeric"):
    _feats[c] = pd.to_numeric(_full[c], errors="coerce").astype(float)
for c in columns_of("categorical") + columns_of("high_cardinality"):
    _codes = pd.factorize(_full[c].astype("string"), sort=True)[0].astype(float)
    _feats[c + "__code"] = pd.Series(np.where(_codes < 0, np.nan, _codes))
for c in columns_of("high_cardinality") + (columns_of("categorical") if FEATURES in ("freq", "rich") else []):
    _feats[c + "__freq"] = _full[c].map(_full[c].value_counts(normalize=True)).astype(float)
"""

DATES = """TIME_ORDER = None  # train rows' times when test lies after train: validation is then time-ordered
for c in columns_of("datetime"):
    _d = pd.to_datetime(_full[c].astype(str), errors="coerce", format="mixed")
    _parts = {"year": _d.dt.year, "month": _d.dt.month, "day": _d.dt.day, "weekday": _d.dt.day_of_week,
              "hour": _d.dt.hour, "dayofyear": _d.dt.day_of_year}
    if FEATURES == "rich":
        _parts |= {"minute": _d.dt.minute, "week": _d.dt.isocalendar().week.astype(float),
                   "quarter": _d.dt.quarter, "weekend": (_d.dt.day_of_week >= 5).astype(float)}
    for part, values in _parts.items():
        if values.nunique() > 1:
            _feats[f"{c}__{part}"] = values.astype(float)
    _feats[c + "__days"] = (_d - _d.min()).dt.total_seconds() / 86400.0
    if TIME_ORDER is None and KINDS[c].get("test_after_train"):
        TIME_ORDER = _d.iloc[:N_TRAIN].fillna(_d.min()).astype("int64").to_numpy()
"""

TEXT = """

def text_scores(matrix, prefix, strength):
    \"\"\"Out-of-fold scores of a linear model on `matrix` (train rows, then test rows), per target: values for
    regression, log-odds for two classes, probabilities for more. `strength` is the inverse regularization.\"\"\"
    scores = {}
    for t in MODELLED:
        known, y, classes = known_target(t)
        rows = np.flatnonzero(known)
        k = 1 if classes is None or len(classes) == 2 else len(classes)

        def fit(X_fit, y_fit):
            if classes is None:
                return Ridge(alpha=1.0 / strength).fit(X_fit, y_fit)
            return LogisticRegression(C=strength, max_iter=2000).fit(X_fit, y_fit)

        def score(model, X_part):
            if classes is None:
                return model.predict(X_part)[:, None]
            proba = np.zeros((X_part.shape[0], len(classes)))
            proba[:, model.classes_] = model.predict_proba(X_part)
            if k == 1:
                positive = np.clip(proba[:, -1:], 1e-6, 1 - 1e-6)
                return np.log(positive / (1 - positive))
            return proba

        train_part = matrix[:N_TRAIN][rows]
        full_model = fit(train_part, y)
        values = score(full_model, matrix)  # rows without a target and test rows: the model of all rows
        for fit_rows, out_rows in oof_folds(len(rows), None if classes is None else y):
            values[rows[out_rows]] = score(fit(train_part[fit_rows], y[fit_rows]), train_part[out_rows])
        for j in range(k):
            scores[f"{prefix}_{t['name']}_{j}"] = values[:, j]
    return scores


_text_cols = columns_of("text") if FEATURES != "minimal" else []
if _text_cols:
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import TfidfVectorizer

    _words, _chars = [], []
    for c in _text_cols:
        _docs = _full[c].fillna("").astype(str)
        _feats[c + "__chars"] = _docs.str.len().astype(float)
        _feats[c + "__words"] = _docs.str.split().str.len().astype(float)
        _word = TfidfVectorizer(ngram_range=(1, 2), min_df=2, max_features=100_000, sublinear_tf=True)
        _words.append(_word.fit_transform(_docs))
        if FEATURES in ("freq", "rich"):
            _char = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), min_df=3, max_features=100_000,
                                    sublinear_tf=True)
            _chars.append(_char.fit_transform(_docs))
    # one linear model per kind of n-gram: the downstream model weighs words against characters
    _feats |= text_scores(hstack(_words).tocsr(), "text_words", 4.0)
    if _chars:
        _feats |= text_scores(hstack(_chars).tocsr(), "text_chars", 1.0)
    TEXT_MATRIX = hstack(_words + _chars).tocsr()
    if FEATURES == "rich" and min(TEXT_MATRIX.shape) > 17:
        from sklearn.decomposition import TruncatedSVD

        _svd = TruncatedSVD(16, random_state=0).fit_transform(TEXT_MATRIX)
        for j in range(_svd.shape[1]):
            _feats[f"text_svd_{j}"] = _svd[:, j]
    print(f"text columns {_text_cols}: TF-IDF {TEXT_MATRIX.shape[1]} terms -> linear-model scores")
"""

FILES = """

def centred(arr):
    \"\"\"The image moved so that its ink (what differs from the border's typical value) is centred.\"\"\"
    background = np.median(np.concatenate([arr[0], arr[-1], arr[:, 0], arr[:, -1]]))
    weight = np.abs(arr - background)
    total = weight.sum()
    if total <= 0:
        return arr
    rows, cols = arr.shape
    cy = (weight.sum(axis=1) * np.arange(rows)).sum() / total
    cx = (weight.sum(axis=0) * np.arange(cols)).sum() / total
    return np.roll(arr, (int(round((rows - 1) / 2 - cy)), int(round((cols - 1) / 2 - cx))), axis=(0, 1))


def gradient_histograms(arr, cells=4, bins=8):
    \"\"\"Orientation histograms of the gradients on a cells x cells grid (a small HOG), L2-normalised.\"\"\"
    gy, gx = np.gradient(arr)
    magnitude = np.hypot(gx, gy)
    orientation = np.minimum(((np.arctan2(gy, gx) % np.pi) / np.pi * bins).astype(int), bins - 1)
    rows, cols = arr.shape
    out = []
    for i in range(cells):
        for j in range(cells):
            part = (slice(i * rows // cells, (i + 1) * rows // cells), slice(j * cols // cells, (j + 1) * cols // cells))
            out.append(np.bincount(orientation[part].ravel(), weights=magnitude[part].ravel(), minlength=bins))
    values = np.concatenate(out)
    return values / (np.linalg.norm(values) + 1e-6)


def image_features(paths, size, colour):
    \"\"\"Per image: grey pixels of the centred image downscaled to size x size (0..1), gradient histograms, and
    width/height and channel means/stds if `colour`.\"\"\"
    from PIL import Image

    width = size * size + 128 + (8 if colour else 0)
    out = np.full((len(paths), width), np.nan)
    unreadable = 0
    for i, path in enumerate(paths):
        if path is None:
            continue
        try:
            with Image.open(path) as image:
                grey = centred(np.asarray(image.convert("L"), dtype=float) / 255.0)
                small = Image.fromarray((grey * 255).astype(np.uint8)).resize((size, size), Image.Resampling.BOX)
                out[i, : size * size] = np.asarray(small, dtype=float).ravel() / 255.0
                out[i, size * size : size * size + 128] = gradient_histograms(grey)
                if colour:
                    rgb = np.asarray(image.convert("RGB"), dtype=float) / 255.0
                    out[i, size * size + 128 :] = [image.size[0], image.size[1], *rgb.mean(axis=(0, 1)), *rgb.std(axis=(0, 1))]
        except (OSError, ValueError):  # unreadable or truncated: its features stay missing
            out[i] = np.nan
            unreadable += 1
    if unreadable:
        print(f"{unreadable} of {len(paths)} images could not be read: their pixel features are missing")
    return out


for c in columns_of("file") if FEATURES != "minimal" else []:
    _paths = [resolve_file(v, KINDS[c], INPUT_DIR) for v in _full[c]]
    print(f"file column {c}: {sum(p is not None for p in _paths)} of {len(_paths)} files found")
    if KINDS[c].get("image") and HAS_PIL:
        _size = {"basic": 8, "freq": 12}.get(FEATURES, 16)
        _pixels = image_features(_paths, _size, colour=FEATURES == "rich")
        for j in range(_pixels.shape[1]):
            _feats[f"{c}__px{j}"] = _pixels[:, j]
    elif KINDS[c].get("audio"):  # sound clips: spectral band energies (audio_features, pasted in the preamble)
        _bands = {"basic": 16, "freq": 24}.get(FEATURES, 32)
        _sound = audio_features(_paths, _bands)
        for j, _name in enumerate(audio_feature_names(_bands)):
            _feats[f"{c}__{_name}"] = _sound[:, j]
        _feats[c + "__bytes"] = [float(os.path.getsize(p)) if p else np.nan for p in _paths]
    else:
        _feats[c + "__bytes"] = [float(os.path.getsize(p)) if p else np.nan for p in _paths]
"""

RICH = """

def target_means(c, t):
    \"\"\"Out-of-fold smoothed means of a binary or numeric target per level of column `c`.\"\"\"
    known, y, classes = known_target(t)
    if classes is not None and len(classes) != 2:
        return None
    y = y.astype(float)
    keys = _full[c].astype("string").fillna("<missing>")
    train_keys = keys.iloc[:N_TRAIN][known].reset_index(drop=True)
    prior, weight = float(y.mean()), 20.0

    def means(fit_rows):
        stats = pd.DataFrame({"k": train_keys.iloc[fit_rows].to_numpy(), "y": y[fit_rows]}).groupby("k")["y"]
        return (stats.sum() + prior * weight) / (stats.count() + weight)

    values = keys.map(means(np.arange(len(y)))).astype(float).fillna(prior).to_numpy(copy=True)
    rows = np.flatnonzero(known)
    for fit_rows, out_rows in oof_folds(len(y)):
        fold_means = train_keys.iloc[out_rows].map(means(fit_rows)).astype(float).fillna(prior)
        values[rows[out_rows]] = fold_means.to_numpy()
    return values


if FEATURES == "rich":
    _feats["row_nan_count"] = _full[list(KINDS)].isna().sum(axis=1).astype(float)
    for c in columns_of("numeric"):
        _values = pd.to_numeric(_full[c], errors="coerce").astype(float)
        if _values.isna().any():
            _feats[c + "__isna"] = _values.isna().astype(float)
        if _values.min() >= 0 and _values.skew() > 2:
            _feats[c + "__log"] = np.log1p(_values)
    for c in columns_of("categorical"):
        if _full[c].nunique() <= 5:
            for _level in _full[c].dropna().unique():
                _feats[f"{c}_is_{_level}"] = (_full[c] == _level).astype(float)
    for c in columns_of("high_cardinality"):
        _means = target_means(c, MODELLED[0]) if MODELLED else None
        if _means is not None:
            _feats[c + "__target_mean"] = _means
"""

FINISH = """
_feats = pd.DataFrame(_feats, index=pd.RangeIndex(len(_full)))
_empty = [c for c in _feats.columns if _feats[c].iloc[:N_TRAIN].isna().all()]
if _empty:  # no training row has a value (every file unreadable): nothing to learn, and a histogram gradient-
    # boosting model cannot bin them; a constant leaves the model its prior where they were all it had
    print(f"{len(_empty)} feature(s) without a value in any training row set to 0, e.g. {_empty[:3]}")
    _feats[_empty] = 0.0
if _feats.shape[1] == 0 and MODELLED:  # looked-up targets alone need none
    raise ValueError(f"DATA built no features from columns {dict((c, k['kind']) for c, k in KINDS.items())}")
_feats.columns = [f"f{i}_" + re.sub(r"[^0-9A-Za-z_]", "_", str(c))[:40] for i, c in enumerate(_feats.columns)]
X = _feats.iloc[:N_TRAIN].reset_index(drop=True)
X_test = _feats.iloc[N_TRAIN:].reset_index(drop=True)
_summary = ", ".join(f"{k}: {len(columns_of(k))}" for k in sorted({i["kind"] for i in KINDS.values()}))
print(f"features ({FEATURES}): {X.shape[1]} from columns ({_summary}), train rows: {len(X)}, test rows: {len(X_test)}")
"""


def _layout_branches() -> str:
    """The READ code's branch for each registered layout: its reader's (train, test) frames."""
    return "".join(
        f"elif DATA_FILES.get({layout.name!r}):  # {layout.summary}\n"
        f"    train_df, test_df = {layout.read.__name__}(INPUT_DIR, DATA_FILES[{layout.name!r}], sample_sub)\n"
        for layout in READ_BY_CODER
    )


def render_data(choice: dict[str, Any]) -> str:
    """The DATA section's code (without its marker) for a feature-set choice."""
    features = choice.get("features", "basic")
    files = "\n\n" + inspect.getsource(resolve_file) + FILES  # the solution finds files as the coder did
    read = READ.format(
        features=features,
        large_table_bytes=LARGE_TABLE_BYTES,
        max_train_rows=MAX_TRAIN_ROWS,
        layout_branches=_layout_branches(),
    )
    return read + NUMBERS_AND_CODES + DATES + TEXT + files + RICH + FINISH
