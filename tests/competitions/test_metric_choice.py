"""Which metric a run optimises: rules over real Kaggle wording, the model path, precedence, saving."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swarm.competitions import load_competition, load_competition_dir
from swarm.competitions.errors import CompetitionError
from swarm.competitions.metric_wording import evaluation_section, infer_metric_rules
from swarm.competitions.metrics import METRICS
from swarm.evaluation.metric_choice import (
    SOURCE_BUNDLED,
    SOURCE_COMPETITION_JSON,
    SOURCE_MODEL,
    SOURCE_OVERRIDE,
    SOURCE_RULES,
    SOURCES,
    MetricChoice,
    MetricUnknown,
    resolve_metric,
)
from swarm.llm.base import LLMError
from swarm.offline_coder import OfflineClient
from swarm.pipeline.metric_model import infer_metric_with_model, metric_reader, metric_tool
from tests.competitions.scripted_client import ScriptedClient

# Evaluation sections as Kaggle words them (abridged), with the library metric and params they name.
KAGGLE = {
    "leaf-classification": (
        "## Evaluation\n\nSubmissions are evaluated using the multi-class logarithmic loss. Each image has been "
        "labeled with one true species. For each image, you must submit a set of predicted probabilities (one "
        "for every species). The formula is then,\n\n$$logloss = -\\frac{1}{N}\\sum_{i=1}^N\\sum_{j=1}^My_{ij}"
        "\\log(p_{ij}),$$\n\nwhere N is the number of images in the test set, M is the number of species, log "
        "is the natural logarithm.",
        "multiclass_logloss",
        {},
    ),
    "spooky-author-identification": (
        "## Evaluation\n\nSubmissions are evaluated using multi-class logarithmic loss. Each id has one true "
        "class. For each id, you must submit a predicted probability for each author.",
        "multiclass_logloss",
        {},
    ),
    "bike-sharing-demand": (
        "## Evaluation\n\nSubmissions are evaluated one the Root Mean Squared Logarithmic Error (RMSLE). The "
        "RMSLE is calculated as\n\n$$ \\sqrt{\\frac{1}{n} \\sum_{i=1}^n (\\log(p_i + 1) - \\log(a_i+1))^2 } $$",
        "rmsle",
        {},
    ),
    "house-prices-advanced-regression-techniques": (
        "## Evaluation\n\n### Goal\n\nIt is your job to predict the sales price for each house.\n\n### Metric\n\n"
        "Submissions are evaluated on Root-Mean-Squared-Error (RMSE) between the logarithm of the predicted "
        "value and the logarithm of the observed sales price. (Taking logs means that errors in predicting "
        "expensive houses and cheap houses will affect the result equally.)",
        "rmse_log",
        {},
    ),
    "titanic": (
        "## Goal\n\nIt is your job to predict if a passenger survived the sinking of the Titanic or not.\n\n"
        "## Metric\n\nYour score is the percentage of passengers you correctly predict. This is known as "
        "accuracy.",
        "accuracy",
        {},
    ),
    "jigsaw-toxic-comment-classification-challenge": (
        "## Evaluation\n\nUpdate: Jan 30, 2018. Due to changes in the competition dataset, we have changed the "
        "evaluation metric of this competition.\n\nSubmissions are now evaluated on the mean column-wise ROC "
        "AUC. In other words, the score is the average of the individual AUCs of each predicted column.",
        "auc",
        {},
    ),
    "aerial-cactus-identification": (
        "## Evaluation\n\nSubmissions are evaluated on area under the ROC curve between the predicted "
        "probability and the observed target.",
        "auc",
        {},
    ),
    "aptos2019-blindness-detection": (
        "## Evaluation\n\nSubmissions are scored based on the quadratic weighted kappa, which measures the "
        "agreement between two ratings. This metric typically varies from 0 (random agreement between raters) "
        "to 1 (complete agreement between raters).",
        "qwk",
        {},
    ),
    "humpback-whale-identification": (
        "## Evaluation\n\nSubmissions are evaluated according to the Mean Average Precision @ 5 (MAP@5):\n\n"
        "$$MAP@5 = \\frac{1}{U} \\sum_{u=1}^{U} \\sum_{k=1}^{min(n,5)} P(k)$$",
        "map_at_k",
        {"k": 5},
    ),
    "landmark-retrieval-2019": (
        "## Evaluation\n\nSubmissions are evaluated according to mean Average Precision @ 100 (mAP@100).",
        "map_at_k",
        {"k": 100},
    ),
    "new-york-city-taxi-fare-prediction": (
        "## Evaluation\n\nThe evaluation metric for this competition is the root mean-squared error or RMSE. "
        "RMSE measures the difference between the predictions of a model, and the corresponding ground truth. "
        "A large RMSE is equivalent to a large average error, so smaller values of RMSE are better.",
        "rmse",
        {},
    ),
    "tabular-playground-series-dec-2021": (
        "## Evaluation\n\nSubmissions are evaluated on multi-class classification accuracy.",
        "accuracy",
        {},
    ),
    "commonlitreadabilityprize": (
        "## Evaluation\n\nSubmissions are scored on the root mean squared error. RMSE is defined as:\n\n"
        "$$\\textrm{RMSE} = \\sqrt{\\frac{1}{n} \\sum_{i=1}^{n} (y_i - \\hat{y}_i)^2}$$",
        "rmse",
        {},
    ),
    "feedback-prize-english-language-learning": (
        "## Evaluation\n\nSubmissions are scored using MCRMSE, mean columnwise root mean squared error:\n\n"
        "$$\\textrm{MCRMSE} = \\frac{1}{N_{t}}\\sum_{j=1}^{N_{t}}\\sqrt{\\frac{1}{n} \\sum_{i=1}^{n} "
        "(y_{ij} - \\hat{y}_{ij})^2}$$",
        "mcrmse",
        {},
    ),
    "statoil-iceberg-classifier-challenge": (
        "## Evaluation\n\nSubmissions are evaluated on the log loss between the predicted values and the "
        "ground truth.",
        "logloss",
        {},
    ),
    "lish-moa": (
        "## Evaluation\n\nSubmissions are scored by the mean columnwise log loss. For every row, you must "
        "predict the probability that the sample had a positive response for each target.",
        "multilabel_logloss",
        {},
    ),
    "web-traffic-time-series-forecasting": (
        "## Evaluation\n\nSubmissions are evaluated on SMAPE between forecasts and actual values. We define "
        "SMAPE = 0 when the actual and predicted values are both 0.",
        "smape",
        {},
    ),
    "google-quest-challenge": (
        "## Evaluation\n\nSubmissions are evaluated on the mean column-wise Spearman's correlation coefficient.",
        "spearman",
        {},
    ),
    "ubiquant-market-prediction": (
        "## Evaluation\n\nSubmissions are evaluated on the mean of the Pearson correlation coefficient for "
        "each time ID.",
        "pearson",
        {},
    ),
    "mercedes-benz-greener-manufacturing": (
        "## Evaluation\n\nSubmissions are evaluated on the R^2 value, also called the coefficient of "
        "determination.",
        "r2",
        {},
    ),
    "allstate-claims-severity": (
        "## Evaluation\n\nSubmissions are evaluated on the mean absolute error (MAE) between the predicted "
        "loss and the actual loss.",
        "mae",
        {},
    ),
    "human-protein-atlas-image-classification": (
        "## Evaluation\n\nSubmissions will be evaluated based on their macro F1 score.",
        "f1_macro",
        {},
    ),
    "nlp-getting-started": (
        "## Evaluation\n\nSubmissions are evaluated using F1 between the predicted and expected answers.",
        "f1",
        {},
    ),
    "playground-series-s3e5": (
        "## Evaluation\n\nSubmissions are scored based on the quadratic weighted kappa, also known as "
        "Cohen's kappa, which measures the agreement between two outcomes.",
        "qwk",
        {},
    ),
    "balanced-accuracy": (
        "## Evaluation\n\nSubmissions are evaluated using balanced accuracy, the mean recall of each class.",
        "balanced_accuracy",
        {},
    ),
    "mse-competition": (
        "## Evaluation\n\nSubmissions are evaluated on the mean squared error between prediction and target.",
        "mse",
        {},
    ),
    "micro-f1": (
        "## Evaluation\n\nThe metric is the micro-averaged F1 score over all labels.",
        "f1_micro",
        {},
    ),
}


@pytest.mark.parametrize("competition_id", sorted(KAGGLE))
def test_rules_read_kaggle_evaluation_sections(competition_id):
    text, name, params = KAGGLE[competition_id]
    description = f"# {competition_id}\n\n## Overview\n\nPredict the target.\n\n{text}\n\n## Data\n\nFiles."
    found = infer_metric_rules(description)
    assert found is not None, competition_id
    assert (found.name, found.params) == (name, params)
    assert found.name in METRICS
    assert "Evaluation section" in found.reason and '"' in found.reason


def test_rules_quote_the_words_they_matched():
    found = infer_metric_rules(KAGGLE["spooky-author-identification"][0])
    assert found.reason == 'description.md\'s Evaluation section says "multi-class logarithmic loss"'
    # the whole name wins over its fragments ("logarithmic" is not RMSLE, "log loss" is not binary)
    found = infer_metric_rules("Evaluated with the Multi-class Logarithmic Loss and nothing else.")
    assert found.name == "multiclass_logloss"
    assert 'says "Multi-class Logarithmic Loss"' in found.reason and found.reason.startswith(
        "description.md "
    )


def test_the_evaluation_section_wins_and_ends_at_the_next_heading():
    text = (
        "# Churn\n\nAccuracy matters in life; AUC too.\n\n## Evaluation\n\nSubmissions are scored on the log "
        "loss.\n\n## Data\n\nThe column `roc_flag` holds ROC AUC values of an old model."
    )
    assert evaluation_section(text).strip() == "Submissions are scored on the log loss."
    assert infer_metric_rules(text).name == "logloss"
    # a sub-heading stays inside the section; a plain "Evaluation" line also marks one
    assert (
        infer_metric_rules("## Evaluation\n\n### Metric\n\nWe use the RMSE.\n\n## Data\nAUC").name == "rmse"
    )
    assert (
        infer_metric_rules("Intro: accuracy is nice.\nEvaluation\nScored with mean absolute error.").name
        == "mae"
    )


def test_no_metric_named_gives_none():
    assert infer_metric_rules("# Toy\n\nPredict y from x.\n") is None
    assert infer_metric_rules("") is None


def test_library_names_written_as_code_or_bold():
    assert infer_metric_rules("## Evaluation\nScored with **rmse_log** (lower is better).").name == "rmse_log"
    found = infer_metric_rules("## Evaluation\nThe metric is `map@3`.")
    assert (found.name, found.params) == ("map_at_k", {"k": 3})
    assert (
        infer_metric_rules("## Evaluation\nPredict `Survived` (0 or 1); scored on accuracy.").name
        == "accuracy"
    )


def test_rules_on_the_bundled_descriptions(cache_dir):
    expected = {"titanic": "accuracy", "house-prices": "rmse_log", "telco-churn": "auc"}
    for competition_id, name in expected.items():
        competition = load_competition(competition_id, cache_dir)
        assert competition.metric.name == name
        assert infer_metric_rules(competition.description).name == name


# -- MetricChoice ----------------------------------------------------------------------------------------------


def test_round_trip_and_describe():
    choice = MetricChoice("map_at_k", False, SOURCE_RULES, 'says "MAP@5"\n(twice)', {"k": 5})
    assert choice.reason == 'says "MAP@5" (twice)'
    data = json.loads(json.dumps(choice.to_dict()))
    assert MetricChoice.from_dict(data) == choice
    assert choice.describe() == (
        'metric: map_at_k (k=5) (higher is better), from description.md (rules): says "MAP@5" (twice); '
        "override with --metric NAME"
    )
    plain = MetricChoice("rmse_log", True, SOURCE_COMPETITION_JSON, "competition.json names 'rmse_log'")
    assert plain.describe() == (
        "metric: rmse_log (lower is better), from competition.json: competition.json names 'rmse_log'; "
        "override with --metric NAME"
    )
    assert MetricChoice.from_dict({k: v for k, v in plain.to_dict().items() if k != "params"}) == plain


GOOD = {"name": "rmse", "lower_is_better": True, "source": SOURCE_MODEL, "reason": "says RMSE", "params": {}}


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (["rmse"], "expected an object"),
        ({"name": "rmse"}, "missing lower_is_better, source, reason"),
        ({**GOOD, "name": "gini"}, "unknown metric 'gini'"),
        ({**GOOD, "name": None}, "unknown metric None"),
        ({**GOOD, "lower_is_better": "yes"}, "lower_is_better must be true or false"),
        ({**GOOD, "lower_is_better": 1}, "lower_is_better must be true or false"),
        ({**GOOD, "source": "a hunch"}, "unknown source 'a hunch'"),
        ({**GOOD, "reason": 3}, "reason must be a string"),
        ({**GOOD, "params": [1]}, "params must be an object"),
        ({**GOOD, "params": {"k": 3}}, "has no parameter"),
        ({**GOOD, "name": "map_at_k", "params": {"k": 0}}, "'k' must be"),
        ({**GOOD, "extra": 1}, "unknown field"),
    ],
)
def test_from_dict_rejects_garbage(data, problem):
    with pytest.raises(ValueError, match="metric choice") as info:
        MetricChoice.from_dict(data)
    assert problem in str(info.value)


def test_sources_are_the_documented_ones():
    assert SOURCES == (
        "--metric / data.metric",
        "competition.json",
        "bundled competition",
        "description.md (model)",
        "description.md (rules)",
    )


# -- the model path, with a scripted client ----------------------------------------------------------------------


def test_the_model_answer_becomes_the_choice():
    client = ScriptedClient(
        {"name": "qwk", "lower_is_better": False, "reason": "says quadratic weighted kappa"}
    )
    choice = infer_metric_with_model(client, KAGGLE["aptos2019-blindness-detection"][0], ctx_run_id="run-1")
    assert choice == MetricChoice("qwk", False, SOURCE_MODEL, "says quadratic weighted kappa")
    ((messages, tool, ctx),) = client.calls
    assert tool.name == "choose_metric"
    assert (ctx.stage, ctx.kind, ctx.run_id) == ("code", "metric", "run-1")
    assert [m.role for m in messages] == ["system", "user"] and "quadratic weighted kappa" in messages[
        1
    ].content
    assert all(name in messages[0].content for name in METRICS)  # the formulas of the whole library


def test_the_tool_schema_enumerates_the_library():
    schema = metric_tool().json_schema()
    assert sorted(schema["properties"]["name"]["enum"]) == sorted(METRICS)
    assert set(schema["required"]) == {"name", "lower_is_better", "reason"}
    assert "k" in schema["properties"]


def test_a_wrong_direction_is_corrected_and_said():
    client = ScriptedClient({"name": "auc", "lower_is_better": True, "reason": "says ROC AUC"})
    choice = infer_metric_with_model(client, "Scored on ROC AUC.")
    assert choice.lower_is_better is False
    assert choice.reason.startswith(
        "says ROC AUC (the model said lower is better, but auc is higher is better"
    )


def test_an_unknown_name_from_the_model_is_an_error():
    client = ScriptedClient({"name": "gini", "lower_is_better": False, "reason": "normalized Gini"})
    with pytest.raises(ValueError, match="the model named metric 'gini', which is not in the metric library"):
        infer_metric_with_model(client, "Scored on the normalized Gini coefficient.")


def test_map_at_k_takes_k_from_the_model_or_the_description():
    text = KAGGLE["humpback-whale-identification"][0]
    client = ScriptedClient(
        {"name": "map_at_k", "lower_is_better": False, "reason": "MAP@5", "k": 5},
        {"name": "map_at_k", "lower_is_better": False, "reason": "MAP@5"},
    )
    assert infer_metric_with_model(client, text).params == {"k": 5}
    assert infer_metric_with_model(client, text).params == {"k": 5}


def test_a_long_description_is_trimmed_but_keeps_its_evaluation_section():
    client = ScriptedClient({"name": "rmse", "lower_is_better": True, "reason": "RMSE"})
    text = "# Big\n\n" + "Lorem ipsum dolor sit amet. " * 5000 + "\n\n## Evaluation\n\nScored on RMSE.\n"
    infer_metric_with_model(client, text)
    user = client.calls[0][0][1].content
    assert len(user) < 13_000 and "Scored on RMSE." in user


# -- the offline coder answering choose_metric ------------------------------------------------------------------


def test_the_offline_client_answers_choose_metric_with_the_rules():
    choice = infer_metric_with_model(OfflineClient(), KAGGLE["bike-sharing-demand"][0])
    # Rules, not a model, chose it, and the source says so ("description.md (rules)").
    assert (choice.name, choice.lower_is_better, choice.source) == ("rmsle", True, SOURCE_RULES)
    assert "Root Mean Squared Logarithmic Error" in choice.reason
    whale = infer_metric_with_model(OfflineClient(), KAGGLE["humpback-whale-identification"][0])
    assert whale.params == {"k": 5}


def test_the_offline_client_never_guesses():
    with pytest.raises(LLMError, match="no metric found in the description"):
        infer_metric_with_model(OfflineClient(), "# Toy\n\nPredict y from x.\n")


# -- precedence ------------------------------------------------------------------------------------------------


def _foreign(root: Path, description: str, metric: dict | None = None) -> Path:
    public = root / "prepared" / "public"
    (root / "prepared" / "private").mkdir(parents=True)
    public.mkdir(parents=True)
    (public / "description.md").write_text(description)
    (public / "sample_submission.csv").write_text("id,y\n1,0\n2,0\n")
    if metric is not None:
        (root / "competition.json").write_text(json.dumps({"id": root.name, "metric": metric}))
    return root


def test_override_beats_the_bundled_competition(cache_dir):
    titanic = load_competition("titanic", cache_dir)
    client = ScriptedClient()
    choice = resolve_metric(titanic, override="auc", model=metric_reader(client), bundled=True)
    assert (choice.name, choice.lower_is_better, choice.source) == ("auc", False, SOURCE_OVERRIDE)
    assert choice.reason == "named 'auc'" and client.calls == []
    whale = resolve_metric(titanic, override="MAP@5", model=None, bundled=True)
    assert (whale.name, whale.params) == ("map_at_k", {"k": 5})
    with pytest.raises(CompetitionError, match="unknown metric 'nonsense'"):
        resolve_metric(titanic, override="nonsense", model=None, bundled=True)


def test_the_bundled_competition_beats_the_model(cache_dir):
    house = load_competition("house-prices", cache_dir)
    client = ScriptedClient()
    choice = resolve_metric(house, override=None, model=metric_reader(client), bundled=True)
    assert (choice.name, choice.lower_is_better, choice.source) == ("rmse_log", True, SOURCE_BUNDLED)
    assert "competition.json names 'rmse_log'" in choice.reason and client.calls == []
    assert resolve_metric(house, override="  ", model=None, bundled=True).source == SOURCE_BUNDLED


def test_competition_json_beats_the_model_and_keeps_its_direction(tmp_path):
    root = _foreign(
        tmp_path / "odd", "## Evaluation\nScored on accuracy.", {"name": "rmse", "lower_is_better": False}
    )
    client = ScriptedClient()
    choice = resolve_metric(
        load_competition_dir(root), override=None, model=metric_reader(client), bundled=False
    )
    assert (choice.name, choice.lower_is_better, choice.source) == ("rmse", False, SOURCE_COMPETITION_JSON)
    assert (
        choice.reason == "competition.json names 'rmse' and declares higher is better" and client.calls == []
    )
    whale = _foreign(tmp_path / "whale", "no words", {"name": "map@3"})
    assert resolve_metric(load_competition_dir(whale), override=None, model=None, bundled=False).params == {
        "k": 3
    }


def test_the_model_beats_the_rules(tmp_path):
    competition = load_competition_dir(_foreign(tmp_path / "c", "## Evaluation\nScored on accuracy."))
    assert competition.metric is None
    client = ScriptedClient(
        {"name": "balanced_accuracy", "lower_is_better": False, "reason": "the model's view"}
    )
    choice = resolve_metric(competition, override=None, model=metric_reader(client, "r9"), bundled=False)
    assert (choice.name, choice.source, choice.reason) == (
        "balanced_accuracy",
        SOURCE_MODEL,
        "the model's view",
    )
    assert client.calls[0][2].run_id == "r9"


def test_rules_without_a_model_and_when_the_model_fails(tmp_path):
    competition = load_competition_dir(_foreign(tmp_path / "c", KAGGLE["aerial-cactus-identification"][0]))
    plain = resolve_metric(competition, override=None, model=None, bundled=False)
    assert (plain.name, plain.lower_is_better, plain.source) == ("auc", False, SOURCE_RULES)
    assert "(the model call failed" not in plain.reason
    for failure in (LLMError("endpoint down"), {"name": "gini", "lower_is_better": False, "reason": "x"}):
        choice = resolve_metric(
            competition, override=None, model=metric_reader(ScriptedClient(failure)), bundled=False
        )
        assert (choice.name, choice.source) == ("auc", SOURCE_RULES)
        assert "(the model call failed: " in choice.reason
    assert (
        "endpoint down"
        in resolve_metric(
            competition,
            override=None,
            model=metric_reader(ScriptedClient(LLMError("endpoint down"))),
            bundled=False,
        ).reason
    )


def test_the_offline_coder_resolves_a_described_metric(tmp_path):
    competition = load_competition_dir(_foreign(tmp_path / "c", KAGGLE["leaf-classification"][0]))
    choice = resolve_metric(competition, override=None, model=metric_reader(OfflineClient()), bundled=False)
    assert (choice.name, choice.lower_is_better, choice.source) == ("multiclass_logloss", True, SOURCE_RULES)


def test_a_metric_the_library_lacks_is_named_in_the_error(tmp_path):
    description = "# Seg\n\nAccuracy matters.\n\n## Evaluation\n\nScored on the mean Dice coefficient.\n"
    assert infer_metric_rules(description) is None
    competition = load_competition_dir(_foreign(tmp_path / "seg", description))
    with pytest.raises(MetricUnknown) as info:
        resolve_metric(competition, override=None, model=None, bundled=False)
    message = str(info.value)
    assert '(description.md\'s Evaluation section says "Dice", a metric the library lacks); pass' in message
    assert message.count(". ") == 0 and "\n" not in message


@pytest.mark.parametrize("client", [None, OfflineClient(), ScriptedClient(LLMError("down"))])
def test_no_metric_anywhere_is_one_clear_sentence(tmp_path, client):
    competition = load_competition_dir(_foreign(tmp_path / "toy", "# Toy\n\nPredict y from x.\n"))
    with pytest.raises(MetricUnknown) as info:
        resolve_metric(competition, override=None, model=metric_reader(client), bundled=False)
    message = str(info.value)
    assert message.startswith(
        "competition 'toy': no metric could be found in competition.json or description.md"
    )
    assert "pass --metric NAME (one of: " in message and all(name in message for name in METRICS)
    assert message.count(". ") == 0 and "\n" not in message
    assert isinstance(info.value, CompetitionError)
