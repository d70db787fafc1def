"""The REGULARIZATION section: the tree sizes and penalties of the preset the genome chose."""

REG = CHOSEN_REG  # preset CHOSEN_PRESET
