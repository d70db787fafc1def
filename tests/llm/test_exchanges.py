"""The exchange log: one JSON line per attempt in the node's file, read back as written, keys redacted."""

from __future__ import annotations

from pathlib import Path

from swarm.llm.base import CallContext, Message
from swarm.llm.exchanges import Exchange, ExchangeLog, exchanges_path, read_exchanges
from swarm.llm.provider import redact


def _exchange(node_id: str | None, reply: str) -> Exchange:
    ctx = CallContext(stage="code", kind="draft", run_id="r", epoch=1, node_id=node_id, agent_id="agent_0")
    return Exchange.for_call(
        ctx,
        [Message("user", "write code")],
        provider="openai",
        model="m",
        mode="complete",
        attempt=1,
        reply=reply,
    )


def test_exchanges_are_kept_per_node_in_order_and_run_level_calls_apart(tmp_path: Path) -> None:
    log = ExchangeLog(tmp_path)
    log.record(_exchange("n1", "first"))
    log.record(_exchange("n1", "second"))
    log.record(_exchange(None, "evolution"))
    assert [e["reply"] for e in read_exchanges(tmp_path, "n1")] == ["first", "second"]
    assert [e["reply"] for e in read_exchanges(tmp_path, None)] == ["evolution"]
    assert read_exchanges(tmp_path, "n1")[0]["messages"] == [{"role": "user", "content": "write code"}]
    assert read_exchanges(tmp_path, "other") == []


def test_a_key_in_a_reply_is_redacted_on_disk(tmp_path: Path) -> None:
    secret = "sk-live-0123456789abcdef"
    ExchangeLog(tmp_path).record(_exchange("n1", f"my key is {secret}"), lambda t: redact(t, (secret,)))
    text = exchanges_path(tmp_path, "n1").read_text()
    assert secret not in text and "[redacted]" in text


def test_a_torn_last_line_is_skipped(tmp_path: Path) -> None:
    ExchangeLog(tmp_path).record(_exchange("n1", "whole"))
    with exchanges_path(tmp_path, "n1").open("a") as handle:
        handle.write('{"stage": "co')
    assert [e["reply"] for e in read_exchanges(tmp_path, "n1")] == ["whole"]
