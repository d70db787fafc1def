"""The harness: the run's metric, its own validation split, and scoring solutions on the rows it holds out."""
