"""The estimators of the MODEL section's build_model(task, seed): the renderer copies a function's body (the
lines under its `def`). Family "lgbm" is lgbm then hgb (the fallback without LightGBM), "hgb" hgb, "rf" and
"extratrees" forest (CHOSEN_REGRESSOR and CHOSEN_CLASSIFIER are their classes), "linear" linear; a blend's
boosted member is lgbm then hgb, its linear member linear."""


def lgbm(task, seed):
    if HAS_LGBM:
        params = dict(
            n_estimators=OPT["n_estimators"],
            learning_rate=OPT["learning_rate"],
            num_leaves=REG["num_leaves"],
            max_depth=REG["max_depth"],
            min_child_samples=REG["min_samples_leaf"],
            reg_lambda=REG["l2"],
            subsample=REG["subsample"],
            subsample_freq=1,
            colsample_bytree=REG["colsample"],
            random_state=seed,
            n_jobs=N_JOBS,
            verbose=-1,
            **LGBM_DEVICE,
        )
        if task == "regression":
            objective = {"huber": "huber", "l1": "regression_l1"}.get(OBJECTIVE, "regression")
            return lgb.LGBMRegressor(objective=objective, **params)
        return lgb.LGBMClassifier(class_weight="balanced" if OBJECTIVE == "balanced" else None, **params)


def hgb(task, seed):
    params = dict(
        max_iter=OPT["n_estimators"],
        learning_rate=OPT["learning_rate"],
        max_leaf_nodes=max(REG["num_leaves"], 2),
        max_depth=REG["max_depth"] if REG["max_depth"] > 0 else None,
        min_samples_leaf=REG["min_samples_leaf"],
        l2_regularization=REG["l2"],
        max_features=REG["colsample"],
        random_state=seed,
    )
    if task == "regression":
        loss = "absolute_error" if OBJECTIVE == "l1" else "squared_error"
        return HistGradientBoostingRegressor(loss=loss, **params)
    return HistGradientBoostingClassifier(class_weight="balanced" if OBJECTIVE == "balanced" else None, **params)


def forest(task, seed):
    params = dict(
        n_estimators=min(OPT["n_estimators"], 200),
        max_depth=2 * REG["max_depth"] if REG["max_depth"] > 0 else None,
        min_samples_leaf=max(1, REG["min_samples_leaf"] // 5),
        random_state=seed,
        n_jobs=N_JOBS,
    )
    if task == "regression":
        return make_pipeline(SimpleImputer(strategy="median"), CHOSEN_REGRESSOR(max_features=0.33, **params))
    balanced = "balanced" if OBJECTIVE == "balanced" else None
    return make_pipeline(
        SimpleImputer(strategy="median"), CHOSEN_CLASSIFIER(max_features="sqrt", class_weight=balanced, **params)
    )


def linear(task, seed):
    if task == "regression":
        if OBJECTIVE in ("huber", "l1"):
            model = HuberRegressor(alpha=max(REG["l2"], 1e-4), max_iter=1000)
        else:
            model = Ridge(alpha=1.0 + 10.0 * REG["l2"])
    else:
        balanced = "balanced" if OBJECTIVE == "balanced" else None
        model = LogisticRegression(C=1.0 / (1.0 + REG["l2"]), max_iter=2000, class_weight=balanced)
    return make_pipeline(SimpleImputer(strategy="median"), StandardScaler(), model)
