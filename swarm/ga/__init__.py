"""The solution layer's genetic algorithm: `genes` splits a solution's code into its gene sections and checks
which are missing, `fitness` normalises a metric within a population to [0, 1], and `population` keeps the good
nodes of a run (elitism, tournament selection) and chooses each offspring's operator (merge or mutate).
Nothing here imports the agent layer, the pipeline or the offline coder.
"""
