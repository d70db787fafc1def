"""The INITIALIZATION section: every random number generator seeded with the seed the genome chose."""

SEED = CHOSEN_SEED
random.seed(SEED)
np.random.seed(SEED)
os.environ["PYTHONHASHSEED"] = str(SEED)
