"""Targets that are images, a submission row per pixel (denoising-dirty-documents): the sample's ids are
`<image>_<row>_<col>` (1-based) over the test images, and each training image in `train/` has its target image of
the same name in another folder (`train_cleaned/`), whose grey value / 255 is each pixel's answer.

The harness holds out whole training images: each moves to the test folder, its target image leaves the view,
the sample lists its pixels as it lists a test image's (images in the order of their names, pixels row by row),
and labels.csv holds their answers. Every test and held-out image gets a fresh name in the test names' format
(`swarm.evaluation.fresh_ids`), its file copied with a test image's mtime, so that no gap in the training images'
numbers names a held-out one; where names are kept, held-out images keep theirs (new ones where they clash).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.evaluation.fresh_files import copy_under_names
from swarm.evaluation.fresh_ids import FreshIds, draw_fresh_ids, keep_ids_reason, kept_ids
from swarm.evaluation.fresh_keys import rekeyed as with_fresh_key
from swarm.evaluation.holdout_record import SplitParts, SplitRequest, write_view_ids
from swarm.evaluation.new_ids import held_out_ids
from swarm.evaluation.split import whole_examples
from swarm.evaluation.table_io import write_public_csv
from swarm.evaluation.view_files import extracted_archives, fresh_view, link, mirror
from swarm.layouts.pixels.reader import image_names, pixel_stems


@dataclass(frozen=True)
class PixelTargets:
    """Where a pixel-target layout's images are: test, training inputs, training targets (same names)."""

    test_dir: Path
    train_dir: Path
    target_dir: Path
    test_images: tuple[str, ...]  # the test images' stems, as the sample's ids name them


def _images(folder: Path) -> dict[str, Path]:
    """stem -> image file directly in `folder`."""
    return {stem: folder / name for stem, name in image_names(str(folder)).items()}


def split_pixels(request: SplitRequest, fields: dict) -> SplitParts:
    """build_holdout for the target images the reader found (`swarm.layouts.pixels.reader.find_pixels`'s
    fields): whole images, at random."""
    public = request.competition.public_dir
    test_ids = [str(i).strip() for i in request.sample[request.spec.id_column]]
    stems = tuple(sorted(set(pixel_stems(test_ids) or [])))
    layout = PixelTargets(
        public / fields["test_dir"], public / fields["train_dir"], public / fields["target_dir"], stems
    )
    return build_pixel_holdout(request, layout)


def pixel_answers(image: Path, stem: str) -> pd.DataFrame:
    """An image's pixels as rows `<stem>_<row>_<col>` (1-based) with its grey value / 255, row by row."""
    from PIL import Image

    with Image.open(image) as opened:
        grey = np.asarray(opened.convert("L"), dtype=float) / 255.0
    rows, cols = np.indices(grey.shape)
    ids = [f"{stem}_{r + 1}_{c + 1}" for r, c in zip(rows.ravel(), cols.ravel(), strict=True)]
    return pd.DataFrame({"id": ids, "value": [repr(float(v)) for v in grey.ravel()]})


def build_pixel_holdout(request: SplitRequest, layout: PixelTargets) -> SplitParts:
    """build_holdout for a pixel-target layout (see the module docstring): whole images, at random."""
    competition, spec, seed = request.competition, request.spec, request.seed
    inputs, answers = _images(layout.train_dir), _images(layout.target_dir)
    labelled = sorted(set(inputs) & set(answers))
    what = f"{layout.train_dir.name}/'s images whose pixels are the rows"
    positions = whole_examples(request.split, len(labelled), request.fraction, seed, what, "images")
    stems = pd.DataFrame({"image": labelled})
    original, names, rekeyed = held_out_ids(
        stems,
        stems.iloc[positions],
        "image",
        list(layout.test_images),
        np.random.default_rng(seed + 1),
        always_new=False,
    )
    public, dest = competition.public_dir, fresh_view(request.root)
    test_rel = layout.test_dir.relative_to(public)
    skip = {competition.sample_submission, *extracted_archives(public)}
    for old in original:
        skip |= {inputs[old], answers[old]}  # the input moves to the test side; its target leaves the view
    fresh = _fresh_images(request, layout, stems, len(original))
    if fresh.fresh:  # every test and held-out image copied under a fresh name, with a test image's mtime
        fresh = _copy_under_fresh_names(layout, inputs, original, fresh, dest / test_rel, skip, seed)
        names = fresh.held
    else:
        for old, new in zip(original, names, strict=True):
            link(inputs[old], dest / test_rel / (new + inputs[old].suffix))
    mirror(public, dest, skip)
    labels = pd.concat([pixel_answers(answers[old], new) for old, new in zip(original, names, strict=True)])
    labels = labels.rename(columns={"id": spec.id_column, "value": spec.target_columns[0]}).reset_index(
        drop=True
    )
    _write_view_sample(request, layout, fresh, labels, (original, names), dest)
    return SplitParts(
        labels.drop(columns=[spec.id_column]),
        pd.DataFrame(index=range(len(labels))),
        labels[spec.id_column].tolist(),
        ("random", "whole images, their pixels the rows"),
        n_train=len(labelled) - len(original),
        classes={},
        table=(
            f"{layout.train_dir.relative_to(public)}/ with {layout.target_dir.relative_to(public)}/ "
            f"({len(original)} images, a row per pixel <image>_<row>_<col>)"
        ),
        hidden=[str(answers[old].relative_to(public)) for old in original],
        file_dirs=sorted({str(test_rel), str(layout.train_dir.relative_to(public))}),
        rekeyed=rekeyed,
        fresh=fresh,
    )


def _copy_under_fresh_names(
    layout: PixelTargets,
    inputs: dict[str, Path],
    original: list[str],
    fresh: FreshIds,
    test_folder: Path,
    skip: set[Path],
    seed: int,
) -> FreshIds:
    """Every test image and held-out one (`original`: their stems among the training `inputs`) copied to the
    view's test folder under its fresh name, with a test image's mtime (the public test images added to `skip`);
    the view's ids with a note on the copies."""
    tests = _images(layout.test_dir)
    pairs = [
        (tests[stem], test_folder / (new + tests[stem].suffix))
        for stem, new in zip(layout.test_images, fresh.test, strict=True)
    ]
    pairs += [
        (inputs[old], test_folder / (new + inputs[old].suffix))
        for old, new in zip(original, fresh.held, strict=True)
    ]
    skip |= set(tests.values())
    return replace(fresh, note=copy_under_names(pairs, list(tests.values()), np.random.default_rng(seed + 3)))


def _write_view_sample(
    request: SplitRequest,
    layout: PixelTargets,
    fresh: FreshIds,
    labels: pd.DataFrame,
    held: tuple[list[str], list[str]],
    dest: Path,
) -> None:
    """The view's sample: the test images' pixels (under their fresh names where names are fresh) and the
    held-out images' (`labels`' ids) with the sample's filler; where names are fresh, view_ids.csv saved
    (`held`: the held-out images' own stems and their names in the view)."""
    spec, sample = request.spec, request.sample
    id_col, target = spec.id_column, spec.target_columns[0]
    own_sample = sample[id_col].astype(str).str.strip().tolist()
    if fresh.fresh:
        renamed = dict(zip(layout.test_images, fresh.test, strict=True))
        sample = sample.assign(**{id_col: [with_fresh_key(i, renamed) for i in own_sample]})
    filler = sample[target].iloc[0] if len(sample) else "0"
    held_rows = labels[[id_col]].assign(**{target: filler})
    _write_sample(sample, held_rows, id_col, dest / request.competition.sample_submission.name)
    if fresh.fresh:
        back = dict(zip(held[1], held[0], strict=True))
        write_view_ids(
            request.root,
            {"test": sample[id_col].tolist(), "held": labels[id_col].tolist()},
            {"test": own_sample, "held": [with_fresh_key(i, back) for i in labels[id_col]]},
        )


def _fresh_images(
    request: SplitRequest, layout: PixelTargets, labelled: pd.DataFrame, n_held: int
) -> FreshIds:
    """Fresh names for the test images and the held-out ones in the test names' format (none a training image's),
    or why they are kept (`swarm.evaluation.fresh_ids`)."""
    reason = keep_ids_reason(request.competition, labelled, None, "image")
    if reason is not None:
        return kept_ids(reason)
    rng = np.random.default_rng(request.seed + 2)
    order = rng.permutation(len(layout.test_images) + n_held)
    return draw_fresh_ids(order, list(layout.test_images), set(labelled["image"]), n_held, rng)


def _write_sample(sample: pd.DataFrame, held_rows: pd.DataFrame, id_col: str, path: Path) -> None:
    """The sample with the held-out images' pixels, images in the order of their names as MLE-bench's sample
    lists them (`sorted(glob)`), each image's pixels in their own order."""
    rows = pd.concat([sample, held_rows], ignore_index=True)
    image = rows[id_col].str.rsplit("_", n=2).str[0]
    order = pd.Series(range(len(rows)))
    rows = rows.assign(_image=image.to_numpy(), _order=order.to_numpy())
    rows = rows.sort_values(["_image", "_order"], kind="stable").drop(columns=["_image", "_order"])
    write_public_csv(rows, path)
