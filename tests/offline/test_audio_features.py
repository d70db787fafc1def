"""Sound clips read as numbers (swarm/formats/audio.py): real AIFF and WAV bytes written here read back to their
samples, their spectral features say where a clip's energy is, a broken clip names itself and leaves its row
missing, and the offline coder's solution on the whale miniature (2 kHz AIFF clips, the up-call in class 1)
learns from the clips instead of from their sizes, which are all the same."""

from __future__ import annotations

import struct
import sys
import wave
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from swarm.competitions.archive_view import public_view
from swarm.formats import audio
from swarm.formats.columns import column_kinds
from swarm.offline_coder.genome import safe_genome
from swarm.offline_coder.render import render_solution
from swarm.offline_coder.task import infer_task_from_dir
from tests.layouts.file_labels.miniatures import right_whale, right_whale_wav, write_clip

from .conftest import run_solution

RATE = 2000


def tone(freq: float, seconds: float = 1.0, level: float = 0.5, rate: int = RATE) -> np.ndarray:
    return level * np.sin(2 * np.pi * freq * np.arange(int(seconds * rate)) / rate)


def write_wav(path: Path, frames: bytes, width: int, channels: int = 1, rate: int = RATE) -> Path:
    with wave.open(str(path), "wb") as clip:
        clip.setnchannels(channels)
        clip.setsampwidth(width)
        clip.setframerate(rate)
        clip.writeframes(frames)
    return path


def float_aifc(path: Path, samples: np.ndarray, rate: int = RATE) -> Path:
    """An AIFF-C file of 32-bit float samples (`fl32`), which the standard library's aifc does not read."""
    rate_bytes = struct.pack(">HQ", 16383 + 10, rate << (63 - 10))  # rate = mantissa * 2^(exp - 16383 - 63)
    comm = struct.pack(">hIh", 1, len(samples), 32) + rate_bytes + b"fl32" + b"\x0cIEEE float\x00"
    ssnd = b"\x00" * 8 + samples.astype(">f4").tobytes()
    chunks = b"FVER" + struct.pack(">I", 4) + b"\xa2\x80\x51\x40"
    chunks += b"COMM" + struct.pack(">I", len(comm)) + comm + b"SSND" + struct.pack(">I", len(ssnd)) + ssnd
    path.write_bytes(b"FORM" + struct.pack(">I", 4 + len(chunks)) + b"AIFC" + chunks)
    return path


def test_aiff_and_wav_clips_read_back_to_their_samples_and_rate(tmp_path: Path) -> None:
    signal = tone(100.0)
    write_clip(tmp_path / "a.aif", signal, RATE)
    write_clip(tmp_path / "a.wav", signal, RATE)
    assert (tmp_path / "a.aif").stat().st_size == 54 + 2 * len(signal)  # plain AIFF, as the whale clips
    for name in ("a.aif", "a.wav"):
        samples, rate = audio.read_audio(str(tmp_path / name))
        assert rate == RATE and samples.shape == signal.shape
        assert np.abs(samples - signal).max() < 1.0 / 32767 + 1e-9
    stereo = np.stack([signal, -signal / 2], axis=1)  # 24-bit stereo: the channels' mean
    pcm24 = (np.round(stereo * (2**23 - 1)).astype("<i4").view(np.uint8).reshape(-1, 4)[:, :3]).tobytes()
    samples, _ = audio.read_audio(str(write_wav(tmp_path / "s.wav", pcm24, 3, channels=2)))
    assert np.abs(samples - signal / 4).max() < 1e-6
    unsigned = np.round(signal * 127 + 128).astype(np.uint8).tobytes()  # 8-bit WAV is unsigned
    samples, _ = audio.read_audio(str(write_wav(tmp_path / "u.wav", unsigned, 1)))
    assert np.abs(samples - signal).max() < 1.0 / 127


def test_aiff_is_read_from_its_chunks_without_aifc_and_float_aiff_c_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    signal = tone(300.0, seconds=0.5)
    write_clip(tmp_path / "a.aif", signal, RATE)
    expected, _ = audio.read_audio(str(tmp_path / "a.aif"))
    monkeypatch.setitem(sys.modules, "aifc", None)  # as in Python 3.13: `import aifc` fails
    samples, rate = audio.read_audio(str(tmp_path / "a.aif"))
    assert rate == RATE and np.array_equal(samples, expected)
    samples, rate = audio.read_audio(str(float_aifc(tmp_path / "f.aifc", signal)))
    assert rate == RATE and np.abs(samples - signal).max() < 1e-6


def test_a_float_wav_is_read_by_scipy_where_wave_refuses_it(tmp_path: Path) -> None:
    wavfile = pytest.importorskip("scipy.io.wavfile")
    signal = tone(250.0)
    wavfile.write(tmp_path / "f.wav", RATE, signal.astype(np.float32))
    samples, rate = audio.read_audio(str(tmp_path / "f.wav"))
    assert rate == RATE and np.abs(samples - signal).max() < 1e-6


def test_spectral_features_say_where_the_energy_is(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    write_clip(tmp_path / "low.aif", tone(100.0, 2.0), RATE)
    write_clip(tmp_path / "high.aif", tone(700.0, 2.0), RATE)
    write_clip(tmp_path / "noise.wav", rng.normal(0, 0.1, 2 * RATE), RATE)
    paths = [str(tmp_path / n) for n in ("low.aif", "high.aif", "noise.wav")]
    features = audio.audio_features(paths, bands=16)
    names = audio.audio_feature_names(16)
    assert features.shape == (3, len(names)) == (3, 3 * 16 + 7) and not np.isnan(features).any()
    column = {name: features[:, j] for j, name in enumerate(names)}
    means = features[:, :16]
    assert means[0].argmax() < means[1].argmax()  # the 100 Hz tone's loudest band lies below the 700 Hz one's
    assert column["centroid"][0] < column["centroid"][2] < column["centroid"][1] + 0.2
    assert column["flatness"][2] > 100 * max(column["flatness"][:2])  # noise is flat, a tone is not
    assert list(column["seconds"]) == [2.0, 2.0, 2.0] and list(column["rate"]) == [RATE] * 3


def test_a_clip_that_cannot_be_read_names_itself_and_leaves_its_row_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_clip(tmp_path / "good.aif", tone(100.0), RATE)
    (tmp_path / "broken.aif").write_bytes(b"FORM\x00\x00\x00\x04AIFF")  # a header and nothing else
    (tmp_path / "song.flac").write_bytes(b"fLaC not really")
    with pytest.raises(audio.AudioError, match="broken.aif: not readable as audio"):
        audio.read_audio(str(tmp_path / "broken.aif"))
    paths = [str(tmp_path / "good.aif"), str(tmp_path / "broken.aif"), None, str(tmp_path / "song.flac")]
    features = audio.audio_features(paths, bands=8)
    assert not np.isnan(features[0]).any() and np.isnan(features[1:]).all()
    out = capsys.readouterr().out
    assert "2 of 4 audio clips could not be read" in out and "broken.aif" in out


def test_columns_of_sound_files_are_marked_audio(tmp_path: Path) -> None:
    write_clip(tmp_path / "clips" / "a.aif", tone(100.0), RATE)
    write_clip(tmp_path / "clips" / "b.aif", tone(200.0), RATE)
    (tmp_path / "clips" / "c.png").write_bytes(b"png")
    (tmp_path / "clips" / "d.png").write_bytes(b"png")
    train = pd.DataFrame({"clip": ["clips/a.aif", "clips/b.aif"], "image": ["clips/c.png", "clips/d.png"]})
    kinds = column_kinds(train, data_dir=str(tmp_path))
    assert kinds["clip"]["kind"] == "file" and kinds["clip"]["audio"] is True
    assert "audio" not in kinds["image"]


def whale_solution_auc(
    tmp_path: Path, build, genome_of, broken: int = 0, at_run_time: bool = False
) -> tuple[float, str]:
    """The held-out ROC AUC of the offline coder's solution on the whale miniature `build` writes (120 training
    clips, 40 test clips), `broken` of its training clips overwritten with junk first, the solution written with
    the task the coder infers (or, `at_run_time`, inferring it itself); and the run's output."""
    root = build(tmp_path / "whale", n_train=120, n_test=40)
    view = public_view(root / "prepared" / "public", tmp_path / "cache")
    for path in sorted((view / "train2").iterdir())[:broken]:
        path.unlink()  # a link into the miniature's files: replaced, not written through
        path.write_bytes(b"junk")
    task = infer_task_from_dir(str(view))
    code = render_solution(None if at_run_time else task, genome_of(task))
    result = run_solution(code, view, tmp_path / "run")
    assert result.returncode == 0 and result.submission is not None, result.output[-3000:]
    answers = pd.read_csv(root / "prepared" / "private" / "test.csv")
    merged = answers.merge(result.submission, on="clip", suffixes=("", "_pred"))
    assert len(merged) == len(answers)
    return float(roc_auc_score(merged["probability"], merged["probability_pred"])), result.output


@pytest.mark.slow
@pytest.mark.parametrize("build", [right_whale, right_whale_wav], ids=["aiff", "wav"])
def test_the_offline_solution_learns_the_whale_calls_from_the_clips(tmp_path: Path, build) -> None:
    auc, output = whale_solution_auc(tmp_path, build, safe_genome)
    assert auc > 0.8, output[-3000:]


@pytest.mark.slow
def test_broken_whale_clips_leave_their_features_missing_and_the_solution_runs(tmp_path: Path) -> None:
    def rich(task: dict) -> dict:  # the richest features: 32 bands
        return {**safe_genome(task), "DATA": {"features": "rich"}}

    auc, output = whale_solution_auc(tmp_path, right_whale, rich, broken=2)
    assert "2 of 160 audio clips could not be read" in output and "not readable as audio" in output
    assert auc > 0.8, output[-3000:]


@pytest.mark.slow
def test_a_solution_inferring_its_task_at_run_time_reads_the_clips_too(tmp_path: Path) -> None:
    auc, output = whale_solution_auc(tmp_path, right_whale, safe_genome, at_run_time=True)
    assert auc > 0.8, output[-3000:]


@pytest.mark.slow
def test_clips_none_of_which_can_be_read_leave_no_empty_feature_to_fit_on(tmp_path: Path) -> None:
    """Every training clip unreadable: their audio features have no value in any training row, which a
    histogram gradient-boosting model cannot bin; they are set to 0, said so, and the solution still runs."""
    _, output = whale_solution_auc(tmp_path, right_whale, safe_genome, broken=120)
    assert "120 of 160 audio clips could not be read" in output
    assert "without a value in any training row set to 0" in output
