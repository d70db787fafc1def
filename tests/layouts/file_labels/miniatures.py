"""Miniatures of labels in file or folder names: the census's right-whale (`..._Train<i>_<label>.aif` in an
archive, real clips that audio features can learn from; also with `.wav` clips) and speech commands
(`train/audio/<label>/`), and, with real images for the no-key runs, dogs-vs-cats-redux's `train/<label>.<n>.png`
(also zipped, as MLE-bench ships it) and plant-seedlings' class folders."""

from __future__ import annotations

import json
import shutil
import warnings
import wave
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.images import bright_or_dark_image
from tests.layouts.kit import dirs, hexes, write_files

WHALE_RATE = 2000  # the whale challenge's clips: 2 kHz, 2 seconds, 16-bit mono


def _make_archive(public: Path, folder: str) -> None:
    """`shutil.make_archive(public / folder, "zip", public, folder)`, as MLE-bench does: the members sit under
    `<folder>/`; the folder itself removed."""
    shutil.make_archive(str(public / folder), "zip", public, folder)
    shutil.rmtree(public / folder)


def write_clip(path: Path, samples: np.ndarray, rate: int) -> None:
    """`samples` (floats in -1..1) as a 16-bit mono clip: AIFF by `aifc` for `.aif`/`.aiff` (plain AIFF, as the
    whale challenge's 8,054-byte clips are), else WAV by `wave`."""
    frames = np.round(np.clip(samples, -1.0, 1.0) * 32767).astype(np.int16)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() in (".aif", ".aiff"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            import aifc

            with aifc.open(str(path), "wb") as clip:
                clip.aiff()
                clip.setnchannels(1)
                clip.setsampwidth(2)
                clip.setframerate(rate)
                clip.writeframes(frames.astype(">i2").tobytes())
        return
    with wave.open(str(path), "wb") as clip:
        clip.setnchannels(1)
        clip.setsampwidth(2)
        clip.setframerate(rate)
        clip.writeframes(frames.astype("<i2").tobytes())


def whale_clip(rng: np.random.Generator, call: bool, rate: int = WHALE_RATE) -> np.ndarray:
    """Two seconds of sea: white noise of a random level, and for a call (class 1) an up-call, a tone sweeping up
    from about 70 Hz to about 200 Hz in under a second at a random moment, as right whales call."""
    t = np.arange(2 * rate) / rate
    sea = rng.normal(0.0, rng.uniform(0.05, 0.15), t.size)
    if not call:
        return sea
    start, length = rng.uniform(0.1, 0.9), rng.uniform(0.6, 1.0)
    low, high = rng.uniform(50, 90), rng.uniform(150, 250)
    inside = (t >= start) & (t < start + length)
    local = t[inside] - start
    phase = 2 * np.pi * (low * local + (high - low) * local**2 / (2 * length))
    sea[inside] += rng.uniform(0.05, 0.15) * np.hanning(inside.sum()) * np.sin(phase)
    return sea


def right_whale(root: Path, n_train: int = 40, n_test: int = 10, suffix: str = ".aif") -> Path:
    """the-icml-2013-whale-challenge-right-whale-redux: `train2.zip` of `train2/<YYYYMMDD>_<HHMMSS>_<sec>_
    TRAIN<i>_<0|1>.aif` (two recording days), `test2.zip` of `test2/<date>_<time>_<sec>_Test<i>.aif` (two later
    days), `sampleSubmission.csv` `clip` (a test file name), `probability` = 0, the answers in
    `private/test.csv`. The clips are real 2 kHz, 2-second AIFF clips (`whale_clip`: class 1 holds an up-call),
    or WAV clips of the same sound where `suffix` is `.wav`."""
    public, private = dirs(root, "auc", "# Right whale redux\n\nScored by ROC AUC.\n")
    rng = np.random.default_rng(111)

    def stamp(day: str, k: int) -> str:
        seconds = int(rng.integers(0, 86_400))
        return (
            f"{day}_{seconds // 3600:02d}{seconds % 3600 // 60:02d}{seconds % 60:02d}_{k % 60:03d}s{k % 10}ms"
        )

    train = [f"{stamp(('20090328', '20090329')[k % 2], k)}_TRAIN{k}_{int(rng.integers(0, 2))}{suffix}"
             for k in range(n_train)]  # fmt: skip
    test = [f"{stamp(('20090330', '20090331')[k % 2], k)}_Test{k}{suffix}" for k in range(n_test)]
    sound = np.random.default_rng(211)
    for name in train:
        write_clip(public / "train2" / name, whale_clip(sound, name.endswith(f"_1{suffix}")), WHALE_RATE)
    answers = sound.integers(0, 2, size=n_test)
    for name, call in zip(test, answers, strict=True):
        write_clip(public / "test2" / name, whale_clip(sound, bool(call)), WHALE_RATE)
    _make_archive(public, "train2")
    _make_archive(public, "test2")
    pd.DataFrame({"clip": test, "probability": 0}).to_csv(public / "sampleSubmission.csv", index=False)
    pd.DataFrame({"clip": test, "probability": answers}).to_csv(private / "test.csv", index=False)
    return root


def right_whale_wav(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """The whale miniature with WAV clips (`..._TRAIN<i>_<0|1>.wav`), the same sound."""
    return right_whale(root, n_train, n_test, suffix=".wav")


def speech_commands(root: Path, per_label: int = 8, n_test: int = 12) -> Path:
    """tensorflow-speech-recognition-challenge: `train/audio/<label>/<8 hex>_nohash_<n>.wav` (a folder per label,
    `_background_noise_` among them), `test/audio/clip_<8 digits>.wav`, no table, `sample_submission.csv`
    `fname`, `label` = `silence`."""
    public, _ = dirs(root, "accuracy", "# Speech commands\n\nScored by accuracy.\n")
    rng = np.random.default_rng(112)
    for label in ("yes", "no", "up", "bed", "_background_noise_"):
        speakers = hexes(rng, per_label, 8)
        write_files(
            public / "train" / "audio" / label, [f"{s}_nohash_{k % 3}.wav" for k, s in enumerate(speakers)]
        )
    clips = [f"clip_{k:08d}.wav" for k in range(n_test)]
    write_files(public / "test" / "audio", clips)
    pd.DataFrame({"fname": clips, "label": "silence"}).to_csv(public / "sample_submission.csv", index=False)
    return root


def file_names_competition(root: Path, n_train: int = 80, n_test: int = 24) -> Path:
    """dogs-vs-cats-redux's layout: `train/<dark|bright>.<n>.png`, `test/<n>.png`, a probability of `bright`
    per id (1 = bright), scored by log loss."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    private.mkdir(parents=True)
    rng = np.random.default_rng(12)
    for n in range(n_train):
        bright = bool(rng.integers(0, 2))
        bright_or_dark_image(public / "train" / f"{'bright' if bright else 'dark'}.{n}.png", bright, rng)
    answers = rng.integers(0, 2, size=n_test)
    for n, bright in enumerate(answers, start=1):
        bright_or_dark_image(public / "test" / f"{n}.png", bool(bright), rng)
    ids = list(range(1, n_test + 1))
    pd.DataFrame({"id": ids, "label": 0.5}).to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame({"id": ids, "label": answers}).to_csv(private / "answers.csv", index=False)
    (public / "description.md").write_text(
        "# Bright or dark\n\n## Evaluation\n\nPredict the probability that each test image is bright "
        "(1 = bright, 0 = dark); scored by log loss.\n"
    )
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "logloss"}}))
    return root


def class_folders_competition(root: Path, n_train: int = 81, n_test: int = 24) -> Path:
    """plant-seedlings' layout: `train/<class>/<hash>.png`, `test/<hash>.png`, a class name per file."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    private.mkdir(parents=True)
    rng = np.random.default_rng(13)
    classes = ["Dark Leaf", "Bright Leaf"]
    for n in range(n_train):
        bright = n % 2
        bright_or_dark_image(public / "train" / classes[bright] / f"{n:08x}.png", bool(bright), rng)
    files = [f"{n + 4096:08x}.png" for n in range(n_test)]
    answers = rng.integers(0, 2, size=n_test)
    for name, bright in zip(files, answers, strict=True):
        bright_or_dark_image(public / "test" / name, bool(bright), rng)
    pd.DataFrame({"file": files, "species": classes[0]}).to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame({"file": files, "species": [classes[a] for a in answers]}).to_csv(
        private / "answers.csv", index=False
    )
    (public / "description.md").write_text(
        "# Leaves\n\nName the class of each test image; scored by accuracy.\n"
    )
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "accuracy"}}))
    return root


def archived_competition(root: Path) -> Path:
    """dogs-vs-cats-redux as MLE-bench ships it: the file-names layout with train/ and test/ only in train.zip
    and test.zip."""
    file_names_competition(root)
    public = root / "prepared" / "public"
    for folder in ("train", "test"):
        with zipfile.ZipFile(public / f"{folder}.zip", "w") as archive:
            for path in sorted((public / folder).iterdir()):
                archive.write(path, f"{folder}/{path.name}")
        shutil.rmtree(public / folder)
    return root
