"""Metric rules over the wording of real Kaggle descriptions: whole metric names before their fragments.

The excerpts quote the Evaluation sections of real competitions, shortened (`[...]` marks a cut): most from
openai/mle-bench (`mlebench/competitions/<id>/description.md`, whose grade.py says what is really scored), a
few from the Kaggle pages as public repositories quote them. Each names the library metric the rules must
find (`infer_metric_rules`), or None where the metric named is not in the library; the offline coder's coarse
rules (`metric_from_description`) must find the coarse metric `COARSE_METRIC` maps it to.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from swarm.competitions.metric_wording import COARSE_METRIC, infer_metric_rules, lacking_metric
from swarm.competitions.metrics import METRICS
from swarm.offline_coder.metric_names import (
    CLASSIFICATION_METRICS,
    LOWER_IS_BETTER,
    REGRESSION_METRICS,
    metric_from_description,
)


class Case(NamedTuple):
    """A competition's Evaluation wording, the library metric it names (None: not in the library)."""

    competition: str
    excerpt: str
    metric: str | None
    params: dict[str, Any] = {}
    overview: str = "Predict the target for each row of the test set."


# fmt: off
REAL = [
    # -- log loss: multi-class, multi-label, binary (and "log"/"logarithm" used for other things around them)
    Case("leaf-classification",
         "Submissions are evaluated using the multi-class logarithmic loss. Each image has been labeled with one "
         "true species. [...] where $N$ is the number of images in the test set, $M$ is the number of species "
         "labels, $\\log$ is the natural logarithm",
         "multiclass_logloss"),
    Case("spooky-author-identification",
         "Submissions are evaluated using multi-class logarithmic loss. Each id has one true class. For each id, "
         "you must submit a predicted probability for each author. The formula is then:\n\n"
         "$$\\text{log loss} = -\\frac{1}{N} \\sum_{i=1}^N \\sum_{j=1}^M y_{ij} \\log(p_{ij})$$",
         "multiclass_logloss"),
    Case("dog-breed-identification",
         "Submissions are evaluated on [Multi Class Log Loss](https://www.kaggle.com/wiki/MultiClassLogLoss) "
         "between the predicted probability and the observed target.",
         "multiclass_logloss"),
    # its weights (the any label `patient_overall` 7, a positive twice) are its own: spine_weighted_logloss
    Case("rsna-2022-cervical-spine-fracture-detection",
         "Submissions are evaluated using a weighted multi-label logarithmic loss. Each fracture sub-type is its "
         "own row for every exam, and you are expected to predict a probability for a fracture at each of the "
         "seven cervical vertebrae designated as C1, C2, C3, C4, C5, C6 and C7. There is also an any label, "
         "`patient_overall`, which indicates that a fracture of ANY kind described before exists in the "
         "examination. [...] The any label is weighted more highly than specific fracture level sub-types.",
         "spine_weighted_logloss"),
    Case("statoil-iceberg-classifier-challenge",
         "Submissions are evaluated on the [log loss](https://www.kaggle.com/wiki/LogLoss) between the predicted "
         "values and the ground truth.",
         "logloss"),
    Case("dogs-vs-cats-redux-kernels-edition",
         "Submissions are scored on the log loss:\n\n$$\\text{LogLoss} = -\\frac{1}{n} \\sum_{i=1}^{n} \\left[ "
         "y_i \\log(\\hat{y}_i) + (1 - y_i) \\log(1 - \\hat{y}_i) \\right]$$\n\n[...] \\\\( log() \\\\) is the "
         "natural (base e) logarithm\n\nA smaller log loss is better.",
         "logloss"),
    # the words say "log loss"; that it is over three class columns is in the submission format only
    Case("lmsys-chatbot-arena",
         "Submissions are evaluated on the [log loss](https://www.kaggle.com/code/metric/log-loss?"
         "scriptVersionId=151169978) between the predicted probabilities and the ground truth values (with "
         "\"eps=auto\").",
         "logloss"),
    # -- RMSLE, RMSE of logs, RMSE
    Case("nomad2018-predict-transparent-conductors",
         "Submissions are evaluated on the column-wise [root mean squared logarithmic error](https://www.kaggle."
         "com/wiki/RootMeanSquaredLogarithmicError). The RMSLE for a single column calculated as $\\sqrt{\\frac"
         "{1}{n}\\sum_{i=1}^n(\\log{(p_i + 1)} - \\log{(a_i+1)})^2}$",
         "rmsle"),
    Case("bike-sharing-demand",
         "Submissions are evaluated one the Root Mean Squared Logarithmic Error (RMSLE). The RMSLE is calculated "
         "as\n\n$$\\sqrt{\\frac 1n \\sum_1^n (log(p_i + 1) - log(a_i + 1))^2 }$$\n\nWhere: [...] $$log(x)$$ is "
         "the natural logarithm",
         "rmsle"),
    Case("recruit-restaurant-visitor-forecasting",
         "Submissions are evaluated on the root mean squared logarithmic error.\n\nThe RMSLE is calculated as",
         "rmsle"),
    Case("house-prices-advanced-regression-techniques",
         "Submissions are evaluated on Root-Mean-Squared-Error (RMSE) between the logarithm of the predicted "
         "value and the logarithm of the observed sales price. (Taking logs means that errors in predicting "
         "expensive houses and cheap houses will affect the result equally.)",
         "rmse_log"),
    Case("new-york-city-taxi-fare-prediction",
         "The evaluation metric for this competition is the [root mean-squared error](http://en.wikipedia.org/"
         "wiki/Root-mean-square_deviation) or RMSE. RMSE measures the difference between the predictions of a "
         "model, and the corresponding ground truth.",
         "rmse"),
    Case("denoising-dirty-documents",
         "Submissions are evaluated on the [root mean squared error](https://www.kaggle.com/wiki/RootMeanSquared"
         "Error) between the cleaned pixel intensities and the actual grayscale pixel intensities.",
         "rmse"),
    Case("petfinder-pawpularity-score",
         "#### Root Mean Squared Error $RMSE$\n\nSubmissions are scored on the root mean squared error. RMSE is "
         "defined as:",
         "rmse"),
    Case("stanford-covid-vaccine",
         "Submissions are scored using MCRMSE, mean columnwise root mean squared error:",
         "mcrmse"),
    # -- log of the MAE per group (the offline coder's coarse MAE ranks alike), MAE
    Case("champs-scalar-coupling",
         "Submissions are evaluated on the Log of the Mean Absolute Error, calculated for each scalar coupling "
         "type, and then averaged across types",
         "log_mae"),
    Case("predict-volcanic-eruptions-ingv-oe",
         "Submissions are evaluated on the [mean absolute error (MAE)](https://www.kaggle.com/wiki/"
         "MeanAbsoluteError) between the predicted loss and the actual loss.",
         "mae"),
    # the MAE of the inspiratory rows only (grade.py: the answers' u_out == 0)
    Case("ventilator-pressure-prediction",
         "The competition will be scored as the mean absolute error between the predicted and actual pressures "
         "during the inspiratory phase of each breath. The expiratory phase is not scored. The score is given "
         "by:",
         "masked_mae"),
    # -- ROC AUC
    Case("aerial-cactus-identification",
         "Submissions are evaluated on [area under the ROC curve](http://en.wikipedia.org/wiki/Receiver_"
         "operating_characteristic) between the predicted probability and the observed target.",
         "auc"),
    Case("jigsaw-toxic-comment-classification-challenge",
         "Update: Jan 30, 2018. Due to changes in the competition dataset, we have changed the evaluation metric "
         "of this competition.\n\nSubmissions are now evaluated on the mean column-wise ROC AUC. In other words, "
         "the score is the average of the individual AUCs of each predicted column.",
         "auc"),
    # the overall AUC with power means of per-identity bias AUCs
    Case("jigsaw-unintended-bias-in-toxicity-classification",
         "### Competition Evaluation\n\nThis competition will use a newly developed metric that combines several "
         "submetrics to balance overall performance with various aspects of unintended bias.\n\nFirst, we'll "
         "define each submetric.\n\n### Overall AUC\n\nThis is the ROC-AUC for the full evaluation set.\n\n"
         "### Bias AUCs\n\nTo measure unintended bias, we again calculate the ROC-AUC, this time on three "
         "specific subsets of the test set for each identity",
         "jigsaw_bias_auc"),
    Case("detecting-insults-in-social-commentary",
         "This is a single-class classification problems. [...] The evaluation metric for this competition is "
         "the Area under the Receiver Operating Curve (AUC).",
         "auc"),
    # the AUC weighted by bands of the true positive rate
    Case("alaska2-image-steganalysis",
         "In order to focus on reliable detection with an emphasis on low false-alarm rate, submissions are "
         "evaluated on the weighted AUC. To calculate the weighted AUC, each region of the ROC curve is weighted "
         "according to these chosen parameters:\n\n```\ntpr_thresholds = [0.0, 0.4, 1.0]\nweights = [2, 1]\n```",
         "tpr_weighted_auc"),
    # -- kappa, MAP@K, correlations, SMAPE, R²
    Case("aptos2019-blindness-detection",
         "Submissions are scored based on the quadratic weighted kappa, which measures the agreement between two "
         "ratings.",
         "qwk"),
    Case("learning-agency-lab-automated-essay-scoring-2",
         "Submissions are scored based on the quadratic weighted kappa, which measures the agreement between two "
         "outcomes. This metric typically varies from 0 (random agreement) to 1 (complete agreement).",
         "qwk"),
    Case("h-and-m-personalized-fashion-recommendations",
         "Submissions are evaluated according to the Mean Average Precision @ 12 (MAP@12):",
         "map_at_k", {"k": 12}),
    Case("whale-categorization-playground",
         "Submissions are evaluated according to the Mean Average Precision @ 5 (MAP@5):",
         "map_at_k", {"k": 5}),
    Case("google-quest-challenge",
         "Submissions are evaluated on the mean column-wise [Spearman's correlation coefficient](https://en."
         "wikipedia.org/wiki/Spearman%27s_rank_correlation_coefficient).",
         "spearman"),
    Case("us-patent-phrase-to-phrase-matching",
         "Submissions are evaluated on the [Pearson correlation coefficient](https://en.wikipedia.org/wiki/"
         "Pearson_correlation_coefficient) between the predicted and actual similarity `score`s.",
         "pearson"),
    Case("demand-forecasting-kernels-only",
         "Submissions are evaluated on SMAPE between forecasts and actual values. We define SMAPE = 0 when the "
         "actual and predicted values are both 0.",
         "smape"),
    Case("mercedes-benz-greener-manufacturing",
         "Submissions are evaluated on the R^2 value, also called the coefficient of determination.",
         "r2"),
    # -- F1: averaged, "mean F1", an F1 "measures accuracy"
    Case("herbarium-2020-fgvc7",
         "Submissions are evaluated using the [macro F1 score](https://scikit-learn.org/stable/modules/generated/"
         "sklearn.metrics.f1_score.html).",
         "f1_macro"),
    # label sets: rows of several labels in the sample, or "a space-delimited list"
    Case("imet-2020-fgvc7",
         "Submissions will be evaluated based on their micro averaged [F1 score](https://en.wikipedia.org/wiki/"
         "F1_score).\n\n### Submission File\n\n```\nid,attribute_ids\n00011f01965f141f5d1eea6592fa9862,0 1 2\n"
         "00014abc91ed3e4bf1663fde8136fe80,0 1 2\n```",
         "multilabel_f1_micro"),
    Case("plant-pathology-2021-fgvc8",
         "The evaluation metric for this competition is [Mean F1-Score](https://www.kaggle.com/wiki/MeanFScore)."
         "\n\n### Submission Format\n\n**For every author in the dataset**, submission files should contain two "
         "columns: image and labels. labels should be a space-delimited list.",
         "multilabel_f1_micro"),
    # answers that must match token spans exactly (its grade.py: micro F1 of 0/1 pairs, answer_span_f1)
    Case("tensorflow2-question-answering",
         "Submissions are evaluated using [micro F1](https://scikit-learn.org/stable/modules/generated/sklearn."
         "metrics.f1_score.html) between the predicted and expected answers. Predicted long and short answers "
         "must match exactly the token indices of one of the ground truth labels ((or match YES/NO if the "
         "question has a yes/no short answer). [...] (In contrast, in \"macro\" F1 a separate F1 score is "
         "calculated for each class / label and then averaged.)",
         "answer_span_f1"),
    # one label per row, some of two words: not label sets
    Case("plant-seedlings-classification",
         "Submissions are evaluated on **MeanFScore**, which at Kaggle is actually a [micro-averaged F1-score]"
         "(https://en.wikipedia.org/wiki/F1_score).\n\n### Submission File\n\n```\nfile,species\n"
         "0021e90e4.png,Maize\n003d61042.png,Sugar beet\n007b3da8b.png,Common wheat\netc.\n```",
         "f1_micro"),
    Case("facebook-recruiting-iii-keyword-extraction",
         "The evaluation metric for this competition is [Mean F1-Score](https://www.kaggle.com/wiki/MeanFScore). "
         "The F1 score, commonly used in information retrieval, measures accuracy using the statistics precision "
         "p and recall r. [...]\n\n### Submission Instructions\n\nFor every question in the test set, your "
         "submission file should contain two columns: Id and Tags. [...] Tags should be a space-delimited list "
         "predicted tags.",
         "multilabel_f1_micro"),
    # an F1 of centre points in boxes, said in the same paragraph (F1 alone stays the F1 of labels)
    Case("kuzushiji-recognition",
         "Submissions are evaluated on a modified version of the [F1 Score](https://en.wikipedia.org/wiki/"
         "F1_score). To score a true positive, you must provide center point coordinates that are within the "
         "ground truth bounding box and a matching label. The ground truth bounding boxes are defined in the "
         "format `{label X Y Width Height}`, so if the ground truth label is `U+003F 1 1 10 10` then a prediction "
         "of `U+003F 3 3` would pass.",
         "point_in_box_f1"),
    # -- accuracy, and top-1 classification error (1 - accuracy: the same ranking)
    Case("tabular-playground-series-dec-2021",
         "Submissions are evaluated on multi-class classification accuracy.",
         "accuracy"),
    Case("spaceship-titanic",
         "### Metric\n\nSubmissions are evaluated based on their [classification accuracy](https://developers."
         "google.com/machine-learning/crash-course/classification/accuracy), the percentage of predicted labels "
         "that are correct.",
         "accuracy"),
    Case("movie-review-sentiment-analysis-kernels-only",
         "Submissions are evaluated on classification accuracy (the percent of labels that are predicted "
         "correctly) for every parsed phrase.",
         "accuracy"),
    Case("inaturalist-2019-fgvc6",
         "We use top-1 classification error as the metric for this competition. For each image, an algorithm "
         "will produce 1 label.",
         "accuracy"),
    # -- masks as run-length encodings (their words alone are not enough: see the hard cases), words, KL, MCC
    Case("hubmap-kidney-segmentation",
         "This competition is evaluated on the mean [Dice coefficient](https://en.wikipedia.org/wiki/S%C3%B8rensen"
         "%E2%80%93Dice_coefficient). [...] The Dice coefficient is defined to be 1 when both $X$ and $Y$ are "
         "empty.\n\n#### Submission File\n\nIn order to reduce the submission file size, our metric uses "
         "run-length encoding on the pixel values.",
         "rle_dice", overview="Your efforts will improve the accuracy of kidney tissue segmentation."),
    Case("google-research-identify-contrails-reduce-global-warming",
         "This competition is evaluated on the **global** [Dice coefficient](https://en.wikipedia.org/wiki/S%C3%B8"
         "rensen%E2%80%93Dice_coefficient). [...]\n\n### Submission File\n\n**In order to reduce the submission "
         "file size, our metric uses run-length encoding on the pixel values.** [...] **IMPORTANT:** Empty "
         "predictions must be marked with '-' in the submission file.",
         "rle_dice_global"),
    Case("tgs-salt-identification-challenge",
         "This competition is evaluated on the mean average precision at different intersection over union (IoU) "
         "thresholds. The IoU of a proposed set of object pixels and a set of true object pixels is calculated "
         "as: [...]\n\n### Submission File\n\nIn order to reduce the submission file size, our metric uses "
         "run-length encoding on the pixel values.",
         "rle_iou_map"),
    Case("vesuvius-challenge-ink-detection",
         "We evaluate how well your output image matches our reference image using a modified version of the "
         "[Sørensen--Dice coefficient](https://en.wikipedia.org/wiki/S%C3%B8rensen%E2%80%93Dice_coefficient), "
         "where instead of using the F1 score, we are using the F0.5 score. [...]\n\n### Submission File\n\n"
         "In order to reduce the submission file size, our metric uses run-length encoding on the pixel values.",
         "rle_fbeta"),
    Case("tweet-sentiment-extraction",
         "The metric in this competition is the [word-level Jaccard score](https://en.wikipedia.org/wiki/"
         "Jaccard_index).",
         "word_jaccard"),
    Case("chaii-hindi-and-tamil-question-answering",
         "The metric in this competition is the [word-level Jaccard score](https://en.wikipedia.org/wiki/"
         "Jaccard_index). A good description of Jaccard similarity for strings is [here](https://towardsdata"
         "science.com/overview-of-text-similarity-metrics-3397c4601f50).",
         "word_jaccard"),
    Case("hms-harmful-brain-activity-classification",
         "Submissions are evaluated on the [Kullback Liebler divergence](https://www.kaggle.com/code/metric/"
         "kullback-leibler-divergence/notebook) between the predicted probability and the observed target.",
         "kl_divergence"),
    Case("nfl-player-contact-detection",
         "Submissions are evaluated on [Matthews Correlation Coefficient](https://en.wikipedia.org/wiki/Phi_"
         "coefficient) between the predicted and actual contact events.",
         "mcc"),
    Case("freesound-audio-tagging-2019",
         "The primary competition metric will be label-weighted [label-ranking average precision](https://scikit-"
         "learn.org/stable/modules/model_evaluation.html#label-ranking-average-precision) (*lwlrap*, pronounced "
         "\"Lol wrap\").",
         "lwlrap"),
    # -- orders and edit distances
    Case("AI4Code",
         "Predictions are evaluated by the [Kendall tau correlation](https://en.wikipedia.org/wiki/Kendall_rank_"
         "correlation_coefficient) between predicted cell orders and ground truth cell orders accumulated across "
         "the entire collection of test set notebooks.\n\nLet $S$ be the number of swaps of adjacent entries "
         "needed to sort the predicted cell order into the ground truth cell order. [...]\n\n"
         "$K=1-4 \\frac{\\sum_i S_i}{\\sum_i n_i\\left(n_i-1\\right)}$",
         "kendall_tau"),
    Case("bms-molecular-translation",
         "Submissions are evaluated on the mean [Levenshtein distance](http://en.wikipedia.org/wiki/Levenshtein_"
         "distance) between the InChi strings you submit and the ground truth InChi values.",
         "mean_levenshtein", overview="Translate images into chemical structures with the highest accuracy."),
    Case("billion-word-imputation",
         "Submissions are evaluated on the mean [Levenshtein distance](http://en.wikipedia.org/wiki/Levenshtein_"
         "distance) between the sentences you submit and the original sentences in the test set.",
         "mean_levenshtein"),
    # the distance is defined under a heading of its own, the score (summed, per true gesture) further on
    Case("multi-modal-gesture-recognition",
         "The focus of the challenge is on \"multiple instance, user independent learning\" of gestures [...]\n\n"
         "### Levenshtein Distance\n\nFor each video, you provide an ordered list of labels R corresponding to "
         "the recognized gestures. [...] We compute the so-called Levenshtein distance L(R, T), that is the minimum "
         "number of edit operations (substitution, insertion, or deletion) that one has to perform to go from R "
         "to T (or vice versa). The Levenhstein distance is also known as \"edit distance\".\n\n### Score\n\n"
         "The overall score we compute is the sum of the Levenshtein distances for all the lines of the result "
         "file compared to the corresponding lines in the truth value file, divided by the total number of "
         "gestures in the truth value file. This score is analogous to an error rate. However, it can exceed one.",
         "token_error_rate"),
    # -- Dice with 3-D Hausdorff, as uw-madison's grade.py (swarm.competitions.metrics.masks_3d)
    Case("uw-madison-gi-tract-image-segmentation",
         "This competition is evaluated on the mean Dice coefficient and 3D Hausdorff distance. [...] The two "
         "metrics are combined, with a weight of 0.4 for the Dice metric and 0.6 for the Hausdorff distance. [...] "
         "In order to reduce the submission file size, our metric uses run-length encoding on the pixel values.",
         "dice_hausdorff"),
    # -- 3-D boxes' mAP over IoU thresholds, as 3d-object-detection's grade.py (swarm.competitions.metrics.boxes_3d)
    Case("3d-object-detection-for-autonomous-vehicles",
         "This competition is evaluated on the mean average precision at different intersection over union (IoU) "
         "thresholds. The IoU of a set of predicted 3D bounding volumes and ground truth bounding volumes is "
         "calculated as: [...] The threshold values range from 0.5 to 0.95 with a step size of 0.05",
         "lyft_3d_map"),
    # -- metrics of single competitions (swarm.competitions.metrics.numeric)
    Case("osic-pulmonary-fibrosis-progression",
         "This competition is evaluated on a modified version of the Laplace Log Likelihood. [...] Accordingly, "
         "the metric is designed to reflect both the accuracy and certainty of each prediction.",
         "laplace_log_likelihood"),
    Case("icecube-neutrinos-in-deep-ice",
         "Submissions are evaluated using the mean angular error between the predicted and true event origins. "
         "See [this notebook](https://www.kaggle.com/code/sohier/mean-angular-error) for a python copy of the "
         "metric.\n\nSubmission File\n---------------\n\nFor each `event_id` in the test set, you must predict "
         "the `azimuth` and `zenith`.",
         "mean_angular_error"),
    Case("rsna-breast-cancer-detection",
         "Submissions are evaluated using the [probabilistic F1 score](https://aclanthology.org/2020.eval4nlp-1.9."
         "pdf) (pF1). This extension of the traditional F score accepts probabilities instead of binary "
         "classifications.",
         "probabilistic_f1"),
    Case("siim-covid19-detection",
         "The challenge uses the standard PASCAL VOC 2010 [mean Average Precision (mAP) ](https://storage."
         "googleapis.com/kaggle-media/competitions/SIIM2021/VOC2012_doc.pdf)at IoU > `0.5`.",
         "voc_box_map", {"iou": 0.5}),
    # its grade.py runs COCOeval at 0.4 (coco_box_map, named in competition.json): the wording says VOC
    Case("vinbigdata-chest-xray-abnormalities-detection",
         "The challenge uses the standard PASCAL VOC 2010 [mean Average Precision (mAP)](http://host.robots.ox."
         "ac.uk/pascal/VOC/voc2010/devkit_doc_08-May-2010.pdf) at IoU > 0.4.",
         "voc_box_map", {"iou": 0.4}),
    Case("smartphone-decimeter-2022",
         "Submissions are scored on the mean of the 50th and 95th percentile distance errors.",
         "trip_distance_error", overview="Your work will help produce more accurate positions, bridging the accuracy gap."),
    # only equivalent to ROC AUC for 0/1 targets, so not mapped to it
    Case("porto-seguro-safe-driver-prediction",
         "Submissions are evaluated using the Normalized Gini Coefficient.\n\nDuring scoring, observations are "
         "sorted from the largest to the smallest predictions.",
         None),
]
# fmt: on


def _description(case: Case) -> str:
    return (
        f"# {case.competition}\n\n## Description\n\n{case.overview}\n\n## Evaluation\n\n{case.excerpt}\n\n"
        "### Submission File\n\nid,target\n\n## Data\n\nThe files of the competition."
    )


@pytest.mark.parametrize("case", REAL, ids=[case.competition for case in REAL])
def test_the_rules_name_the_library_metric(case):
    found = infer_metric_rules(_description(case))
    if case.metric is None:
        assert found is None, found
        assert lacking_metric(_description(case)).endswith("a metric the library lacks")
    else:
        assert found is not None
        assert (found.name, found.params) == (case.metric, case.params), found.reason
        assert found.reason.startswith("description.md's Evaluation section says")
        assert lacking_metric(_description(case)) is None


@pytest.mark.parametrize("case", REAL, ids=[case.competition for case in REAL])
def test_the_offline_rules_name_its_coarse_metric(case):
    coarse = COARSE_METRIC[case.metric] if case.metric else None
    assert metric_from_description(_description(case)) == coarse


def test_the_cases_are_many_and_varied():
    assert len(REAL) >= 40
    assert len({case.competition for case in REAL}) == len(REAL)
    covered = {case.metric for case in REAL}
    # no MLE-bench competition is scored on these (the hard cases below name them); kuzushiji-recognition's
    # "F1" is of centre points in boxes (point_in_box_f1), not of 0/1 labels; rsna-2022's weighted multi-label
    # log loss is its own (spine_weighted_logloss), not the plain mean over columns; vinbigdata's description
    # names the VOC mAP its grader computes with COCOeval (coco_box_map)
    uncovered = {
        "balanced_accuracy",
        "mse",
        "f1_weighted",
        "rle_iou",
        "f1",
        "multilabel_logloss",
        "coco_box_map",
    }
    assert set(METRICS) - covered <= uncovered


def test_every_library_metric_has_its_coarse_metric():
    assert set(COARSE_METRIC) == set(METRICS)
    coarse = set(CLASSIFICATION_METRICS) | set(REGRESSION_METRICS)
    assert {value for value in COARSE_METRIC.values() if value} == coarse
    # the direction survives the mapping (the coarse metric ranks submissions the same way)
    for name, value in COARSE_METRIC.items():
        if value is not None:
            assert LOWER_IS_BETTER[value] == METRICS[name].lower_is_better, name


# Made-up wording, for what the real excerpts above do not show on their own.
HARD = [
    # the bug: "logarithm" in a multi-class log loss is not RMSLE, with or without a section
    ("Multi-class logarithmic loss.", "multiclass_logloss", "logloss"),
    (
        "## Evaluation\n\nMulti-class logarithmic loss; log is the natural logarithm.",
        "multiclass_logloss",
        "logloss",
    ),
    # log loss and RMSE in one description: the Evaluation section names the metric
    (
        "# Toy\n\nEarlier versions were scored with RMSE.\n\n## Evaluation\n\nSubmissions are evaluated on the "
        "log loss.\n\n## Data\n\nA column `rmse` from an old model.",
        "logloss",
        "logloss",
    ),
    (
        "# Toy\n\nPredict probabilities; log loss is a good training loss.\n\n## Evaluation\n\nSubmissions are "
        "scored on the root mean squared error.",
        "rmse",
        "rmse",
    ),
    # in a section, the metric named first
    ("## Evaluation\n\nScored on the log loss, not on accuracy or AUC.", "logloss", "logloss"),
    # a (weighted) multi-label log loss without rsna-2022's any label `patient_overall` is the plain one
    ("## Evaluation\n\nScored on a weighted multi-label logarithmic loss.", "multilabel_logloss", "logloss"),
    ("## Evaluation\n\nScored on the RMSE of the counts, not on the RMSLE.", "rmse", "rmse"),
    # words prose uses loosely yield to a whole name later in the section
    (
        "## Evaluation\n\nTo reward accuracy on rare classes, submissions are scored on the macro F1 score.",
        "f1_macro",
        "f1",
    ),
    ("## Evaluation\n\nScored with the weighted kappa between predicted and true grades.", "qwk", None),
    ("## Evaluation\n\nThe mean F1 over all test rows.", "f1", "f1"),
    ("## Evaluation\n\nThe F1 score, macro-averaged over the classes.", "f1_macro", "f1"),
    ("## Evaluation\n\nThe weighted F1 score over the classes.", "f1_weighted", "f1"),
    ("## Evaluation\n\nSubmissions are scored by balanced accuracy.", "balanced_accuracy", "accuracy"),
    ("## Evaluation\n\nScored on the mean squared error (MSE).", "mse", "rmse"),
    ("## Evaluation\n\nThe Pearson correlation coefficient.", "pearson", None),
    # precision-recall is not ROC: the library has no PR-AUC, so there is no metric to name
    ("## Evaluation\n\nSubmissions are evaluated on area under the precision-recall curve.", None, None),
    ("## Evaluation\n\nScored on the PR AUC of the positive class.", None, None),
    ("## Evaluation\n\nScored on AUC-PR (average precision).", None, None),
    ("## Evaluation\n\nScored on the F2 score.", None, None),
    ("## Evaluation\n\nScored on the mean absolute percentage error (MAPE).", None, None),
    ("## Evaluation\n\nScored on the symmetric mean absolute percentage error.", "smape", None),
    # an unknown metric in the section is final; a section naming no metric at all falls back to the text
    ("Accuracy matters.\n\n## Evaluation\n\nThe mean Dice coefficient.", None, None),
    ("Scored on accuracy.\n\n## Evaluation\n\nSee the leaderboard.", "accuracy", "accuracy"),
    ("## Evaluation\n\nThe top-5 classification error.", None, None),
    # masks: a Dice or IoU names a library metric only for run-length encoded masks
    ("## Evaluation\n\nThe mean Dice coefficient of the run-length encoded masks.", "rle_dice", None),
    ("## Evaluation\n\nThe mean intersection over union (IoU).\n\nMasks are in RLE.", "rle_iou", None),
    ("## Evaluation\n\nThe mean intersection over union (IoU) of the boxes.", None, None),
    ("## Evaluation\n\nThe global Dice.\n\n## Data\n\nColumn encoded_pixels.", "rle_dice_global", None),
    # plain "Jaccard" may be of words or of masks; "word-level" settles it
    ("## Evaluation\n\nScored on the Jaccard index.", None, None),
    ("## Evaluation\n\nThe word-based Jaccard similarity.", "word_jaccard", None),
    # F1 over label sets
    (
        "## Evaluation\n\nThe F1 score. Each row holds a space-separated list of labels.",
        "multilabel_f1_micro",
        "f1",
    ),
    ("## Evaluation\n\nThe micro F1 score over multi-label predictions.", "multilabel_f1_micro", "f1"),
    ("## Evaluation\n\nScored on the KL divergence.", "kl_divergence", None),
    ("## Evaluation\n\nScored on log(MAE).", "log_mae", "mae"),
    # Kendall tau of orders; of numbers ("in order to" is no order) it is another metric, not in the library
    (
        "## Evaluation\n\nKendall's tau between the predicted and the true ordering of the items.",
        "kendall_tau",
        None,
    ),
    ("## Evaluation\n\nThe Kendall tau correlation of the predicted scores.", None, None),
    ("## Evaluation\n\nThe Kendall tau of the scores, in order to reward ranking.", None, None),
    # edit distances: the mean, the sum per true label; normalised or of words they are others
    ("## Evaluation\n\nThe average Levenshtein distance of the predicted strings.", "mean_levenshtein", None),
    ("## Evaluation\n\nThe mean normalized Levenshtein distance.", None, None),
    ("## Evaluation\n\nThe sum of the Levenshtein distances per line.", None, None),
    ("## Evaluation\n\nThe word error rate (WER) of the transcripts.", None, None),
    # an F1 of boxes, without centre points, is not the kuzushiji metric
    ("## Evaluation\n\nThe F1 score of the predicted bounding boxes.", "f1", "f1"),
]


@pytest.mark.parametrize(("text", "metric", "coarse"), HARD)
def test_hard_wording(text, metric, coarse):
    found = infer_metric_rules(text)
    assert (found.name if found else None) == metric, found
    assert metric_from_description(text) == coarse
    if metric is not None:
        assert COARSE_METRIC[metric] == coarse
