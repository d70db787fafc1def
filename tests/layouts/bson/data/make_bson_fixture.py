"""Writes written_by_pymongo.bson and its sidecar, the fixture tests/layouts/bson/test_bson_records.py reads:
cdiscount-like documents ({_id, category_id, imgs: [{picture: bytes}]}) and a few of every scalar type, encoded by
pymongo's `bson` (PyPI pymongo 4.x; run in a scratch venv: `pip install pymongo`), so swarm/layouts/bson/reader.py is
checked against the reference codec without the test needing it. The sidecar holds, per document, the fields as
JSON (bytes as hex) and the hex of pymongo's encoding of the document without `category_id`."""

import datetime
import json
import random
from pathlib import Path

import bson

HERE = Path(__file__).parent


def main() -> None:
    rng = random.Random(29)
    docs = []
    for k in range(12):
        doc = {"_id": rng.randrange(10**6), "category_id": 1000000000 + rng.randrange(10**4)}
        doc["imgs"] = [{"picture": bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))}
                       for _ in range(rng.randrange(1, 4))]  # fmt: skip
        if k % 3 == 0:
            doc.update(price=rng.random() * 100, title=f"produit é {k}", sold=k % 2 == 0, note=None)
        if k % 4 == 1:
            doc.update(big=2**40 + k, when=datetime.datetime(2017, 9, 1 + k, tzinfo=datetime.UTC),
                       oid=bson.ObjectId(bytes(range(k, k + 12))), meta={"a": 1, "b": [1, 2]})  # fmt: skip
        docs.append(doc)
    (HERE / "written_by_pymongo.bson").write_bytes(b"".join(bson.encode(d) for d in docs))
    sidecar = []
    for doc in docs:
        plain = {k: v for k, v in doc.items() if k != "category_id"}
        fields = {}
        for name, value in doc.items():
            if isinstance(value, datetime.datetime):
                fields[name] = {"datetime_ms": int(value.timestamp() * 1000)}
            elif isinstance(value, bson.ObjectId):
                fields[name] = {"objectid": str(value)}
            elif name == "imgs":
                fields[name] = [{"picture": img["picture"].hex()} for img in value]
            else:
                fields[name] = value
        sidecar.append({"fields": fields, "without_category_id": bson.encode(plain).hex()})
    (HERE / "written_by_pymongo.json").write_text(json.dumps(sidecar, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
