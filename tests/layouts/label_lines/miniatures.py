"""Miniatures of mlsp-2013-birds' label sets in text lines, the test recordings marked `?`: the census's
(`mlsp_birds`) and one with learnable segment histograms for the no-key run (`birds_competition`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.kit import dirs, write_files


def mlsp_birds(root: Path, n_recordings: int = 30) -> Path:
    """mlsp-2013-birds: `essential_data/` (`CVfolds_2.txt` `rec_id,fold`, `rec_id2filename.txt`,
    `rec_labels_test_hidden.txt` with `?` for test recordings, `species_list.txt`, `src_wavs/<file>.wav`),
    `supplemental_data/` (`histogram_of_segments.txt`, `spectrograms/<file>.bmp`), `sample_submission.csv`
    long: `Id` = rec_id * 100 + species (19 rows a test recording), `Probability` = 0."""
    public, _ = dirs(root, "auc", "# MLSP 2013 birds\n\nScored by ROC AUC over all rows.\n")
    rng = np.random.default_rng(124)
    essential, supplemental = public / "essential_data", public / "supplemental_data"
    essential.mkdir()
    supplemental.mkdir()
    folds = np.where(np.arange(n_recordings) % 5 == 0, 1, 0)
    pd.DataFrame({"rec_id": range(n_recordings), "fold": folds}).to_csv(
        essential / "CVfolds_2.txt", index=False
    )
    files = [f"PC{1 + k % 4}_2009{6 + k % 2:02d}{1 + k:02d}_0500{k:02d}_0010" for k in range(n_recordings)]
    pd.DataFrame({"rec_id": range(n_recordings), "filename": files}).to_csv(
        essential / "rec_id2filename.txt", index=False
    )
    lines = ["rec_id,[labels]"]
    for rec_id in range(n_recordings):
        species = sorted(int(s) for s in rng.choice(19, int(rng.integers(0, 3)), replace=False))
        labels = "?" if folds[rec_id] else ",".join(map(str, species))
        lines.append(f"{rec_id},{labels}" if labels else str(rec_id))
    (essential / "rec_labels_test_hidden.txt").write_text("\n".join(lines) + "\n")
    species_lines = ["class_id,code,species"] + [f"{k},SP{k:02d},Species {k}" for k in range(19)]
    (essential / "species_list.txt").write_text("\n".join(species_lines) + "\n")
    write_files(essential / "src_wavs", [f"{f}.wav" for f in files])
    write_files(supplemental / "spectrograms", [f"{f}.bmp" for f in files])
    histogram = ["rec_id,[histogram of segment features]"] + [f"{k},0.1,0.0,0.3" for k in range(n_recordings)]
    (supplemental / "histogram_of_segments.txt").write_text("\n".join(histogram) + "\n")
    test_ids = [r for r in range(n_recordings) if folds[r]]
    sample = {"Id": [r * 100 + s for r in test_ids for s in range(19)], "Probability": 0}
    pd.DataFrame(sample).to_csv(public / "sample_submission.csv", index=False)
    return root


def birds_competition(root: Path, n_recordings: int = 80) -> Path:
    """mlsp-2013-birds' layout (mlsp_birds): label sets in `essential_data/rec_labels_test_hidden.txt` (`?`
    for test recordings), `CVfolds_2.txt` (fold 1 = test), a histogram of segment features per recording in
    `supplemental_data/histogram_of_segments.txt` (each species raises its own bins), and a sample row per
    (recording, species) `Id` = rec_id * 100 + species; the answers 0/1 per row, scored by ROC AUC over all
    rows."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    essential, supplemental = public / "essential_data", public / "supplemental_data"
    for folder in (essential, supplemental, private):
        folder.mkdir(parents=True)
    rng = np.random.default_rng(2013)
    n_species, n_bins = 6, 12
    signature = rng.random((n_species, n_bins)) * (rng.random((n_species, n_bins)) < 0.3)
    folds = (rng.random(n_recordings) < 0.25).astype(int)
    pd.DataFrame({"rec_id": range(n_recordings), "fold": folds}).to_csv(
        essential / "CVfolds_2.txt", index=False
    )
    lines, histogram, answers = ["rec_id,[labels]"], ["rec_id,[histogram of segment features]"], []
    for rec_id in range(n_recordings):
        species = sorted(int(s) for s in rng.choice(n_species, int(rng.integers(0, 3)), replace=False))
        bins = signature[species].sum(axis=0) + rng.random(n_bins) * 0.1
        histogram.append(f"{rec_id}," + ",".join(f"{v:.6f}" for v in bins))
        if folds[rec_id]:
            lines.append(f"{rec_id},?")
            answers += [(rec_id * 100 + s, int(s in species)) for s in range(n_species)]
        else:
            lines.append(f"{rec_id}," + ",".join(map(str, species)) if species else str(rec_id))
    (essential / "rec_labels_test_hidden.txt").write_text("\n".join(lines) + "\n")
    (supplemental / "histogram_of_segments.txt").write_text("\n".join(histogram) + "\n")
    truth = pd.DataFrame(answers, columns=["Id", "Probability"])
    truth.to_csv(private / "answers.csv", index=False)
    truth.assign(Probability=0).to_csv(public / "sample_submission.csv", index=False)
    (public / "description.md").write_text(
        "# MLSP 2013 bird classification\n\n## Evaluation\n\nSubmissions are judged on area under the ROC "
        "curve over all (recording, species) rows.\n"
    )
    return root
