"""Audio clips read as numbers, and the spectral features a model learns from them.

Competitions ship sound as files (the right-whale challenge's 2 kHz AIFF clips, speech commands' and freesound's
WAV files); a clip's size says nothing of what it holds, so the offline coder's solutions read each clip and
describe its short-time spectrum. `read_audio(path)` returns a clip's samples (mono, floats in -1..1) and its
sample rate: WAV by the standard library's `wave` (else `scipy.io.wavfile`, which also reads float and extensible
WAV), AIFF and AIFF-C by `aifc` (deprecated, gone in Python 3.13: then by this module's own reader of their
chunks), FLAC and anything else by `soundfile` where it is installed. The format is told by the file's first
bytes, its suffix only where those say nothing. A clip no reader can read raises `AudioError` naming the file.

`audio_features(paths, bands)` gives a row of numbers per clip (`audio_feature_names(bands)` names them): per band
of `bands` mel-spaced frequency bands of a Hann-windowed short-time spectrum (frames of about 50 ms), the mean, the
spread and the peak (above the median) over time of its log energy, then the clip's duration, sample rate, loudness,
zero-crossing rate, spectral centroid (mean and spread) and spectral flatness (tone against noise). A clip that
cannot be read gets a row of NaN and the count and the first reason are printed, so one broken file never stops a
solution.

The offline coder's solutions embed this module's source, so it imports only the standard library and numpy at
import time; `aifc`, `scipy` and `soundfile` are imported inside the functions that need them.
"""

import os
import struct
import warnings

import numpy as np

AUDIO_SUFFIXES = (".wav", ".aif", ".aiff", ".aifc", ".flac")
AUDIO_MAX_SECONDS = 60.0  # a longer clip is read up to here: its opening minute describes it
AUDIO_FRAME_SECONDS = 0.05  # short-time frames of about this length (a power of two of samples)
AUDIO_GLOBALS = ("seconds", "rate", "log_rms", "zero_crossings", "centroid", "centroid_std", "flatness")


class AudioError(ValueError):
    """A clip no reader could read; the message names the file and each reader's reason."""


def is_audio_name(name: str) -> bool:
    """Whether a file's name ends with a suffix this module reads."""
    return os.path.splitext(str(name))[1].lower() in AUDIO_SUFFIXES


def _pcm(data: bytes, width: int, channels: int, big_endian: bool, unsigned: bool = False) -> np.ndarray:
    """Interleaved integer PCM frames as mono floats in -1..1 (8, 16, 24 or 32 bits)."""
    raw = np.frombuffer(data, dtype=np.uint8)
    raw = raw[: len(raw) - len(raw) % (width * channels)]
    if width == 3:
        triples = raw.reshape(-1, 3)[:, ::-1] if big_endian else raw.reshape(-1, 3)
        values = triples[:, 0].astype(np.int32) | triples[:, 1].astype(np.int32) << 8
        values = values | triples[:, 2].astype(np.int32) << 16
        values = np.where(values >= 1 << 23, values - (1 << 24), values).astype(np.float64)
    elif width in (1, 2, 4):
        kind = "u1" if width == 1 and unsigned else f"i{width}"
        values = raw.view(np.dtype(kind).newbyteorder(">" if big_endian else "<")).astype(np.float64)
        values = values - 128.0 if width == 1 and unsigned else values
    else:
        raise ValueError(f"{8 * width}-bit samples are not read")
    return (values / float(1 << (8 * width - 1))).reshape(-1, channels).mean(axis=1)


def _wave_samples(path: str, max_seconds: float) -> tuple[np.ndarray, int]:
    """Integer PCM WAV by the standard library (8-bit WAV is unsigned)."""
    import wave

    with wave.open(path, "rb") as clip:
        rate, width, channels = clip.getframerate(), clip.getsampwidth(), clip.getnchannels()
        data = clip.readframes(min(clip.getnframes(), int(max_seconds * rate)))
    return _pcm(data, width, channels, big_endian=False, unsigned=width == 1), rate


def _scipy_wav_samples(path: str, max_seconds: float) -> tuple[np.ndarray, int]:
    """Any WAV scipy reads (float samples, WAVE_FORMAT_EXTENSIBLE)."""
    from scipy.io import wavfile

    rate, data = wavfile.read(path, mmap=True)
    data = np.array(data[: int(max_seconds * rate)])  # a copy: the mapped file may close
    if data.dtype == np.uint8:
        values = (data.astype(np.float64) - 128.0) / 128.0
    elif np.issubdtype(data.dtype, np.integer):
        values = data.astype(np.float64) / float(np.iinfo(data.dtype).max + 1)
    else:
        values = data.astype(np.float64)
    return (values.mean(axis=1) if values.ndim == 2 else values), int(rate)


def _aifc_samples(path: str, max_seconds: float) -> tuple[np.ndarray, int]:
    """AIFF or AIFF-C by the standard library's `aifc` (which gives big-endian PCM); ImportError without it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import aifc

        with aifc.open(path, "rb") as clip:
            rate, width, channels = clip.getframerate(), clip.getsampwidth(), clip.getnchannels()
            data = clip.readframes(min(clip.getnframes(), int(max_seconds * rate)))
    return _pcm(data, width, channels, big_endian=True), int(rate)


def _extended(raw: bytes) -> float:
    """An 80-bit IEEE extended float (an AIFF sample rate)."""
    exponent, mantissa = int.from_bytes(raw[:2], "big"), int.from_bytes(raw[2:10], "big")
    sign = -1.0 if exponent & 0x8000 else 1.0
    exponent &= 0x7FFF
    return 0.0 if exponent == 0 and mantissa == 0 else sign * mantissa * 2.0 ** (exponent - 16383 - 63)


def _aiff_chunks(data: bytes) -> dict[bytes, bytes]:
    """The chunks of an AIFF or AIFF-C file by their ids (the first of each)."""
    if data[:4] != b"FORM" or data[8:12] not in (b"AIFF", b"AIFC"):
        raise ValueError("no FORM/AIFF header")
    chunks, position = {}, 12
    while position + 8 <= len(data):
        kind, size = data[position : position + 4], int.from_bytes(data[position + 4 : position + 8], "big")
        chunks.setdefault(kind, data[position + 8 : position + 8 + size])
        position += 8 + size + size % 2
    if b"COMM" not in chunks or b"SSND" not in chunks:
        raise ValueError("no COMM or no SSND chunk")
    return chunks


def _aiff_chunk_samples(path: str, max_seconds: float) -> tuple[np.ndarray, int]:
    """AIFF or AIFF-C (uncompressed: big- or little-endian integers, 32- or 64-bit floats) read from its chunks,
    where `aifc` is missing or refuses the file."""
    with open(path, "rb") as handle:
        data = handle.read()
    chunks = _aiff_chunks(data)
    comm, sound = chunks[b"COMM"], chunks[b"SSND"]
    channels, frames, bits = struct.unpack(">hIh", comm[:8])
    rate = _extended(comm[8:18])
    if channels < 1 or rate <= 0:
        raise ValueError(f"{channels} channels at {rate} Hz")
    compression = comm[18:22] if data[8:12] == b"AIFC" else b"NONE"
    sound = sound[8 + int.from_bytes(sound[:4], "big") :]  # after the offset and block size
    width = (bits + 7) // 8
    floats = {b"fl32": ">f4", b"FL32": ">f4", b"fl64": ">f8", b"FL64": ">f8"}.get(compression)
    width = int(floats[-1]) if floats else width
    sound = sound[: min(frames, int(max_seconds * rate)) * channels * width]
    if floats:
        values = np.frombuffer(sound[: len(sound) - len(sound) % (width * channels)], dtype=floats)
        return values.astype(np.float64).reshape(-1, channels).mean(axis=1), int(round(rate))
    if compression not in (b"NONE", b"twos", b"sowt"):
        raise ValueError(f"AIFF-C compression {compression.decode('latin-1')!r} is not read")
    return _pcm(sound, width, channels, big_endian=compression != b"sowt"), int(round(rate))


def _soundfile_samples(path: str, max_seconds: float) -> tuple[np.ndarray, int]:
    """Whatever libsndfile reads (FLAC, OGG, ...), where the `soundfile` package is installed."""
    import soundfile

    rate = soundfile.info(path).samplerate
    data, rate = soundfile.read(path, frames=int(max_seconds * rate), dtype="float64", always_2d=True)
    return data.mean(axis=1), int(rate)


def _audio_readers(path: str) -> tuple:
    """The readers to try for a file, in order, by its first bytes (else its suffix)."""
    with open(path, "rb") as handle:
        head = handle.read(12)
    wav, aiff = head[:4] == b"RIFF" and head[8:12] == b"WAVE", head[:4] == b"FORM"
    if not wav and not aiff:
        suffix = os.path.splitext(path)[1].lower()
        wav, aiff = suffix == ".wav", suffix in (".aif", ".aiff", ".aifc")
    if wav:
        return (_wave_samples, _scipy_wav_samples, _soundfile_samples)
    if aiff:
        return (_aifc_samples, _aiff_chunk_samples, _soundfile_samples)
    return (_soundfile_samples,)


def read_audio(path: str, max_seconds: float = AUDIO_MAX_SECONDS) -> tuple[np.ndarray, int]:
    """A clip's samples (mono floats in -1..1, at most `max_seconds` of them) and its sample rate; AudioError
    naming the file and each reader's reason where none reads it (see the module doc)."""
    try:
        readers = _audio_readers(path)
    except OSError as exc:
        raise AudioError(f"{path}: {exc.strerror or exc}") from exc
    reasons = []
    for reader in readers:
        name = reader.__name__.strip("_").removesuffix("_samples")
        try:
            samples, rate = reader(path, max_seconds)
        except ImportError:
            reasons.append(f"{name}: not installed")
            continue
        except Exception as exc:  # any reader's failure is a reason, and the next reader tries
            reasons.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        if rate <= 0 or not len(samples):
            reasons.append(f"{name}: no samples")
            continue
        return np.nan_to_num(np.asarray(samples, dtype=np.float64)), int(rate)
    raise AudioError(f"{path}: not readable as audio ({'; '.join(reasons)})")


def audio_feature_names(bands: int) -> list[str]:
    """The names of `audio_features`' columns, in order."""
    per_band = [f"band{b}_{stat}" for stat in ("mean", "std", "peak") for b in range(bands)]
    return per_band + list(AUDIO_GLOBALS)


def audio_spectrogram(samples: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray]:
    """(power: frames x frequency bins, the bins' frequencies in Hz) of Hann-windowed frames of about
    AUDIO_FRAME_SECONDS, half overlapping; a clip shorter than a frame is padded with silence."""
    n_fft = 1 << int(np.clip(round(np.log2(max(rate * AUDIO_FRAME_SECONDS, 1.0))), 5, 13))
    hop = n_fft // 2
    if len(samples) < n_fft:
        samples = np.pad(samples, (0, n_fft - len(samples)))
    starts = hop * np.arange(1 + (len(samples) - n_fft) // hop)
    frames = samples[starts[:, None] + np.arange(n_fft)[None, :]] * np.hanning(n_fft)
    return np.abs(np.fft.rfft(frames, axis=1)) ** 2, np.fft.rfftfreq(n_fft, 1.0 / rate)


def audio_band_matrix(freqs: np.ndarray, rate: int, bands: int) -> np.ndarray:
    """bins x bands, 1 where a bin falls in a band: `bands` bands equally wide on the mel scale from 0 Hz to
    half the rate; a band narrower than a bin takes the bin nearest its centre."""
    top = 2595.0 * np.log10(1.0 + rate / 2.0 / 700.0)
    edges = 700.0 * (10.0 ** (np.linspace(0.0, top, bands + 1) / 2595.0) - 1.0)
    matrix = np.zeros((len(freqs), bands))
    for b in range(bands):
        inside = (freqs >= edges[b]) & ((freqs < edges[b + 1]) | (b == bands - 1))
        if inside.any():
            matrix[inside, b] = 1.0
        else:
            matrix[np.argmin(np.abs(freqs - (edges[b] + edges[b + 1]) / 2.0)), b] = 1.0
    return matrix


def clip_features(samples: np.ndarray, rate: int, bands: int) -> np.ndarray:
    """One clip's row of `audio_features` (see the module doc and `audio_feature_names`)."""
    power, freqs = audio_spectrogram(samples, rate)
    log_bands = np.log10(power @ audio_band_matrix(freqs, rate, bands) + 1e-10)
    peak = log_bands.max(axis=0) - np.median(log_bands, axis=0)
    frame_power = power.sum(axis=1) + 1e-20
    centroids = (power @ freqs) / frame_power / (rate / 2.0)
    flatness = np.exp(np.mean(np.log(power + 1e-20), axis=1)) / (power.mean(axis=1) + 1e-20)
    crossings = np.mean(np.abs(np.diff(np.signbit(samples).astype(np.int8)))) if len(samples) > 1 else 0.0
    globals_ = [len(samples) / rate, float(rate), 0.5 * np.log10(np.mean(samples**2) + 1e-20), crossings,
                float(centroids.mean()), float(centroids.std()), float(flatness.mean())]  # fmt: skip
    return np.concatenate([log_bands.mean(axis=0), log_bands.std(axis=0), peak, globals_])


def audio_features(paths: list, bands: int = 16) -> np.ndarray:
    """A row of `audio_feature_names(bands)` per clip path; a missing path (None) or a clip that cannot be read
    gets NaN, and how many could not be read, with the first reason, is printed."""
    out = np.full((len(paths), 3 * bands + len(AUDIO_GLOBALS)), np.nan)
    failures = []
    for i, path in enumerate(paths):
        if path is None:
            continue
        try:
            samples, rate = read_audio(path)
            out[i] = clip_features(samples, rate, bands)
        except (AudioError, ValueError, MemoryError) as exc:
            failures.append(str(exc))
    if failures:
        print(
            f"{len(failures)} of {len(paths)} audio clips could not be read: their audio features are missing "
            f"(the first: {failures[0]})"
        )
    return out
