"""`digit-images`: handwritten digits as PNG files in train/ and test/ (scikit-learn's digits), scored by
accuracy.

Laid out like MLE-bench's image competitions (aerial-cactus-identification): train.csv holds `id,label`
where `id` is a file name in train/; test.csv holds the test file names, whose images are in test/.
Each 8x8 scan is upscaled to 20x20, warped (rotated, sheared and scaled about its centre), its stroke sometimes
thickened, pasted at a random offset into a 28x28 canvas and given random contrast and noise (all seeded), so a
model must cope with shifted, slanted digits. The warp is per image, so that no image can be found again among
scikit-learn's digits, which any sandbox can import (a solution could otherwise match each test image to its
scan and score perfectly without learning).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.bundled.base import BundledSpec

SEED = 20240606
CANVAS = 28
DIGIT = 20
MAX_SHIFT = 4  # pixels in each direction from the centre
NOISE = 12.0  # standard deviation of the Gaussian pixel noise (0-255 scale)
MAX_ROTATION = 18.0  # degrees either way
MAX_SHEAR = 0.3  # horizontal shear either way
SCALES = (0.8, 1.1)  # the digit's size, relative to 20x20
THICKER = 0.4  # share of digits whose stroke is thickened (a 3x3 maximum filter)
SOURCE = "source"  # hidden column: the row of scikit-learn's digits an image comes from


def build() -> pd.DataFrame:
    from sklearn.datasets import load_digits

    digits = load_digits()
    return pd.DataFrame({SOURCE: np.arange(len(digits.target)), "label": digits.target.astype(int)})


def hex_ids(count: int, rng: np.random.Generator) -> list[str]:
    """`count` distinct random 32-digit hex file names ending in `.png`."""
    ids: list[str] = []
    seen: set[str] = set()
    while len(ids) < count:
        name = "".join(rng.choice(list("0123456789abcdef"), size=32)) + ".png"
        if name not in seen:
            seen.add(name)
            ids.append(name)
    return ids


def warp(digit, rng: np.random.Generator):
    """The digit image rotated, sheared and scaled about its centre (a seeded draw each), its stroke thickened
    for a share of them."""
    from PIL import Image, ImageFilter

    angle = np.radians(rng.uniform(-MAX_ROTATION, MAX_ROTATION))
    shear, scale = rng.uniform(-MAX_SHEAR, MAX_SHEAR), rng.uniform(*SCALES)
    forward = (
        scale
        * np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        @ np.array([[1.0, shear], [0.0, 1.0]])
    )
    inverse = np.linalg.inv(forward)  # PIL maps each output pixel back to the input
    centre = np.array([DIGIT / 2, DIGIT / 2])
    offset = centre - inverse @ centre
    coefficients = (inverse[0, 0], inverse[0, 1], offset[0], inverse[1, 0], inverse[1, 1], offset[1])
    warped = digit.transform(digit.size, Image.Transform.AFFINE, coefficients, Image.Resampling.BILINEAR)
    return warped.filter(ImageFilter.MaxFilter(3)) if rng.random() < THICKER else warped


def render(scan: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A 28x28 uint8 image of one 8x8 scan (values 0-16): upscaled, warped, shifted, contrast varied, noised."""
    from PIL import Image

    small = Image.fromarray((scan * (255 / 16)).astype(np.uint8), mode="L")
    digit = np.asarray(warp(small.resize((DIGIT, DIGIT), Image.Resampling.BILINEAR), rng), dtype=float)
    canvas = np.zeros((CANVAS, CANVAS))
    top, left = (CANVAS - DIGIT) // 2 + rng.integers(-MAX_SHIFT, MAX_SHIFT + 1, size=2)
    canvas[top : top + DIGIT, left : left + DIGIT] = digit * rng.uniform(0.6, 1.0)
    canvas += rng.uniform(0, 40) + rng.normal(0, NOISE, canvas.shape)
    return np.clip(np.round(canvas), 0, 255).astype(np.uint8)


def write_images(train: pd.DataFrame, test: pd.DataFrame, public: Path) -> dict[str, int]:
    """PNG files train/<id> and test/<id>, rendered in a seeded order (train rows first)."""
    from PIL import Image
    from sklearn.datasets import load_digits

    scans = load_digits().images
    rng = np.random.default_rng(SEED + 2)
    counts = {}
    for folder, part in (("train", train), ("test", test)):
        (public / folder).mkdir()
        for name, source in zip(part["id"], part[SOURCE], strict=True):
            Image.fromarray(render(scans[int(source)], rng), mode="L").save(public / folder / name)
        counts[folder] = len(part)
    return counts


SPEC = BundledSpec(
    id="digit-images",
    title="Digit Images: Read the Handwritten Digits",
    source="scikit-learn's bundled copy of the UCI Optical Recognition of Handwritten Digits data (1797 8x8 "
    "scans, Alpaydin and Kaynak, 1998; sklearn.datasets.load_digits), rendered to 28x28 PNG files with a "
    "seeded random warp (rotation, shear, scale, stroke width), shift, contrast and noise.",
    metric="accuracy",
    id_column="id",
    target="label",
    seed=SEED,
    overview="""
A postal sorting office scans handwritten digits and wants them read automatically. Each image is a 28x28
grayscale PNG of a single handwritten digit (0 to 9), not always centred, often slanted, with varying size,
stroke width and contrast and some sensor noise. Build a model that tells which digit each test image shows.
""",
    evaluation_note="""
`label` must be a whole number from 0 to 9 for every image in `test.csv`; the score is the share of images
whose digit is predicted correctly.
""",
    columns={"label": "target: the digit the image shows, 0 to 9 (train.csv only)"},
    build=build,
    sample_value=lambda target: 0,
    labels=tuple(str(d) for d in range(10)),
    make_ids=hex_ids,
    id_note="the image's file name (in `train/` for train.csv rows, in `test/` for test.csv rows)",
    hidden_columns=(SOURCE,),
    write_extra=write_images,
    data_notes=(
        "- `train/`: {n_train} PNG images (28x28, grayscale), one per row of `train.csv`, named by its `id`.",
        "- `test/`: {n_test} PNG images named by the `id`s of `test.csv`; predict their `label`.",
    ),
)
