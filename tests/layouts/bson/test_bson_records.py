"""swarm/layouts/bson/reader.py against pymongo's codec (issue 29: cdiscount's `train.bson`): a file pymongo wrote
(tests/layouts/bson/data/written_by_pymongo.bson, made by make_bson_fixture.py beside it) is read document by
document, its scalars as pymongo encoded them, a document without `category_id` is byte for byte pymongo's
encoding of it without that field, and `encode` writes what pymongo writes for the same fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swarm.layouts.bson.reader import documents, encode, scalars, without_fields

DATA = Path(__file__).parent / "data"
FIXTURE = DATA / "written_by_pymongo.bson"
SIDECAR = json.loads((DATA / "written_by_pymongo.json").read_text(encoding="utf-8"))


def _expected_scalars(fields: dict) -> dict:
    expected = {}
    for name, value in fields.items():
        if isinstance(value, dict) and "datetime_ms" in value:
            expected[name] = value["datetime_ms"]
        elif isinstance(value, dict) and "objectid" in value:
            expected[name] = value["objectid"]
        elif not isinstance(value, (dict, list)):
            expected[name] = value
    return expected


def test_a_file_pymongo_wrote_reads_document_by_document_with_its_scalars() -> None:
    docs = list(documents(FIXTURE))
    assert len(docs) == len(SIDECAR) == 12
    assert b"".join(docs) == FIXTURE.read_bytes()
    for doc, expected in zip(docs, SIDECAR, strict=True):
        assert scalars(doc) == _expected_scalars(expected["fields"])


def test_dropping_a_field_gives_pymongos_encoding_of_the_document_without_it() -> None:
    for doc, expected in zip(documents(FIXTURE), SIDECAR, strict=True):
        assert without_fields(doc, {"category_id"}).hex() == expected["without_category_id"]
        assert without_fields(doc, set()) == doc


def test_encode_writes_what_pymongo_writes_for_cdiscounts_fields() -> None:
    for doc, expected in zip(documents(FIXTURE), SIDECAR, strict=True):
        fields = expected["fields"]
        if set(fields) != {"_id", "category_id", "imgs"}:
            continue  # datetimes and ObjectIds are read, not written
        images = [{"picture": bytes.fromhex(img["picture"])} for img in fields["imgs"]]
        assert encode({**fields, "imgs": images}) == doc


def test_a_cut_file_names_where(tmp_path: Path) -> None:
    cut = tmp_path / "train.bson"
    whole = FIXTURE.read_bytes()
    first = len(next(documents(FIXTURE)))
    cut.write_bytes(whole[: first + 10])
    with pytest.raises(ValueError, match=f"train.bson: a document cut short or unterminated at byte {first}"):
        list(documents(cut))
