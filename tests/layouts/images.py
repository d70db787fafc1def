"""The PNGs several layouts' miniatures write where a model must tell bright images from dark ones."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image


def bright_or_dark_image(path: Path, bright: bool, rng: np.random.Generator) -> None:
    """A 16x16 grey PNG at `path`, bright (about 170) or dark (about 70), with noise drawn from `rng`."""
    pixels = np.clip(rng.normal(170 if bright else 70, 30, size=(16, 16)), 0, 255).astype(np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(pixels, mode="L").save(path)
