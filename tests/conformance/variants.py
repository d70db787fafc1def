"""Other forms real data takes, written into a built miniature: text cells pandas' defaults mangle, CSVs with a
BOM, Latin-1 bytes or CRLF line ends, media files with upper-case extensions or in nested folders, a one-row test
set. Each function rewrites the competition at `root` in place; `Unrepresentable` where the form cannot be
written into it (the tests skip, naming why)."""

from __future__ import annotations

import csv
from pathlib import Path

from tests.conformance.ids import OPAQUE, SUFFIX, Unrepresentable, find_ids

# Cells pandas' read_csv reads as missing by default, as real text values (text normalization's tokens).
NA_WORDS = ("NA", "N/A", "None", "null", "nan", "#N/A")
# Text that reads as numbers, quoted in the file as every cell is (pandas' defaults read "0042" as 42).
NUMBER_WORDS = ("0042", "1e5", "3.10", "-0", "007")
LONG_TEXT = ("word " * 20_000).strip()  # 100,000 characters in one cell
MULTILINE = ("first line\nsecond line", "a line\r\nand another, with a comma", 'a "quoted" word\n')
ACCENTED = ("café crème", "naïve façade", "Zürich über alles")
MEDIA = frozenset(
    (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".dcm", ".dicom", ".wav", ".aif", ".npy", ".mp4")
)


def read_rows(path: Path) -> list[list[str]]:
    """A CSV's rows as written (a cell's own CRLF kept)."""
    with path.open(encoding="utf-8", newline="") as opened:
        return list(csv.reader(opened))


def write_rows(path: Path, rows: list[list[str]], quoting: int = csv.QUOTE_MINIMAL) -> None:
    with path.open("w", encoding="utf-8", newline="") as opened:
        csv.writer(opened, lineterminator="\n", quoting=quoting).writerows(rows)


def text_column(public: Path, avoid: set[str]) -> str:
    """The column of free text in the public train and test tables: in both, the most words a cell."""
    tables = [read_rows(p) for p in sorted(public.glob("*.csv")) if p.name.startswith(("train", "test"))]
    shared = set.intersection(*(set(rows[0]) for rows in tables)) - avoid if tables else set()

    def words(column: str) -> float:
        cells = [row[rows[0].index(column)] for rows in tables for row in rows[1:]]
        return sum(cell.count(" ") for cell in cells) / max(len(cells), 1)

    best = max(sorted(shared), key=words, default=None)
    if best is None or words(best) < 1:
        raise Unrepresentable("its train and test tables share no column of free text")
    return best


def put_text_values(
    root: Path, column: str, values: tuple[str, ...], quoting: int = csv.QUOTE_MINIMAL
) -> None:
    """Each of `values` replaces a distinct text of `column` in the train table and another in the test table
    (or, with no test table, two training ones), in every CSV under prepared/ holding that text in that column:
    a text that is also an id (detecting-insults' Comment) changes in the sample and the answers alike."""
    public = root / "prepared" / "public"
    mapping: dict[str, str] = {}
    for side in ("train", "test"):
        tables = sorted(public.glob(f"{side}*.csv"))
        if not tables:
            continue
        rows = read_rows(tables[0])
        k = rows[0].index(column)
        texts = list(dict.fromkeys(row[k] for row in rows[1:] if row[k] not in mapping))
        if len(texts) < len(values):
            raise Unrepresentable(f"{tables[0].name} has fewer than {len(values)} distinct texts")
        step = max(
            len(texts) // len(values), 1
        )  # from the last row up: a file's first rows stay as they were
        mapping.update({texts[-1 - i * step]: value for i, value in enumerate(values)})
    for path in sorted((root / "prepared").rglob("*.csv")):
        rows = read_rows(path)
        if rows and column in rows[0]:
            k = rows[0].index(column)
            for row in rows[1:]:
                row[k] = mapping.get(row[k], row[k]) if k < len(row) else ""
            write_rows(path, rows, quoting)


def reencode(root: Path, encoding: str) -> list[Path]:
    """Every public CSV (not the zipped ones) written as "utf-8-sig" (a BOM), "latin-1" or "crlf" (UTF-8 with
    CRLF line ends); returns them. Latin-1 bytes of a file with a character Latin-1 lacks: Unrepresentable."""
    tables = sorted((root / "prepared" / "public").rglob("*.csv"))
    for path in tables:
        text = path.read_bytes().decode("utf-8")
        if encoding == "crlf":
            path.write_bytes(text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8"))
            continue
        try:
            path.write_bytes(text.encode(encoding))
        except UnicodeEncodeError as exc:
            raise Unrepresentable(
                f"{path.name} holds {exc.object[exc.start]!r}, which {encoding} lacks"
            ) from None
    return tables


def upper_extensions(root: Path) -> int:
    """Every media file under prepared/ with its extension upper-cased (`.png` -> `.PNG`), and every CSV cell
    naming one (ids that are file names) likewise; returns how many files."""
    prepared = root / "prepared"
    files = [p for p in sorted(prepared.rglob("*")) if p.is_file() and p.suffix.lower() in MEDIA]
    _refuse_named_inside(prepared, files)
    for path in files:
        path.rename(path.with_suffix(path.suffix.upper()))
    for path in sorted(prepared.rglob("*.csv")):
        rows = read_rows(path)
        for row in rows[1:]:
            for k, cell in enumerate(row):
                suffix = SUFFIX.search(cell)
                if suffix and suffix.group().lower() in MEDIA:
                    row[k] = cell[: suffix.start()] + suffix.group().upper()
        write_rows(path, rows)
    return len(files)


def nest_files(root: Path) -> int:
    """The media files of every public folder holding them side by side moved into two subfolders
    (`train/x.png` -> `train/part1/x.png`), as competitions batch large folders; returns how many moved."""
    public = root / "prepared" / "public"
    files = [p for p in sorted(public.rglob("*")) if p.is_file() and p.suffix.lower() in MEDIA]
    _refuse_named_inside(public, files)
    mentioned = "".join(p.read_text(encoding="utf-8") for p in public.rglob("*.csv"))
    for k, path in enumerate(files):
        if f"{path.parent.name}/{path.name}" in mentioned:
            raise Unrepresentable(f"its tables name files by their paths ({path.parent.name}/{path.name})")
        (path.parent / f"part{k % 2}").mkdir(exist_ok=True)
        path.rename(path.parent / f"part{k % 2}" / path.name)
    return len(files)


def _refuse_named_inside(prepared: Path, files: list[Path]) -> None:
    """Unrepresentable where there are no media files outside archives, or a file the rewrite does not open
    (JSON, TFRecords) names one of them."""
    if not files:
        raise Unrepresentable("it has no media files outside archives")
    names = [path.name.encode() for path in files]
    for path in sorted(prepared.rglob("*")):
        if path.is_file() and path.suffix.lower() in OPAQUE and any(n in path.read_bytes() for n in names):
            raise Unrepresentable(f"{path.name} names its files, and the rewrite does not open it")


def one_test_row(root: Path, metric: str | None = None) -> str:
    """Keep only the sample's first test id: every other test id's rows leave the CSVs under prepared/ and the
    files named by it are removed; returns the id kept."""
    _, (kept, *dropped), _, _ = find_ids(root, metric)
    gone = set(dropped)
    for path in sorted((root / "prepared").rglob("*.csv")):
        rows = read_rows(path)
        write_rows(path, rows[:1] + [row for row in rows[1:] if not gone & set(row)])
    for path in sorted((root / "prepared").rglob("*"), key=lambda p: len(p.parts), reverse=True):
        suffix = SUFFIX.search(path.name)
        if path.name in gone or (suffix and path.name[: suffix.start()] in gone):
            remove(path)
    return kept


def remove(path: Path) -> None:
    if path.is_dir():
        for child in path.iterdir():
            remove(child)
        path.rmdir()
    else:
        path.unlink()
