"""The OPTIMIZER section: the boosting schedule the genome chose."""

OPT = {"learning_rate": CHOSEN_LEARNING_RATE, "n_estimators": CHOSEN_N_ESTIMATORS}  # boosting rounds / trees and step size
