"""The real-server check's figures, from a run dir's usage records (the check itself needs a built llama-server)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.real_server_check import server_rates, stage_settings, usage_figures


def _record(
    stage: str, node: str, ok: bool, completion: int, latency: float, provider: str = "openai"
) -> dict:
    return {
        "stage": stage,
        "node_id": node,
        "ok": ok,
        "provider": provider,
        "prompt_tokens": 100,
        "completion_tokens": completion,
        "latency_s": latency,
    }


def test_figures_count_requests_per_node_and_tokens_per_second_of_the_answered_requests(
    tmp_path: Path,
) -> None:
    records = [
        _record("feedback", "a", False, 0, 5.0),  # the forced tool call answered without a call
        _record("feedback", "a", True, 40, 4.0),
        _record("feedback", "b", True, 20, 1.0),
        _record("code", "a", True, 0, 0.1, provider="offline"),  # the offline coder is not the server
    ]
    (tmp_path / "llm_usage.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n{torn")
    figures = usage_figures(tmp_path)
    assert set(figures) == {"feedback"}
    review = figures["feedback"]
    assert review["requests"] == 3 and review["failed_or_unusable"] == 1
    assert review["requests_per_node"] == {"a": 2, "b": 1}
    assert review["seconds_per_answered_request"] == 2.5  # the failed request's 5 s are not counted


def test_only_the_named_stages_are_pointed_at_the_server() -> None:
    sets = stage_settings(("feedback",), 8080, code_tokens=512)
    assert "llm.feedback.base_url=http://127.0.0.1:8080/v1" in sets
    assert not any(s.startswith(("llm.code.", "llm.evolution.")) for s in sets)
    assert "llm.code.max_tokens=512" in stage_settings(("code", "feedback"), 8080, code_tokens=512)


def test_the_servers_rates_sum_its_timings_of_prompts_and_replies() -> None:
    log = "\n".join(
        [
            "slot print_timing: id  0 | task 0 | prompt eval time =  2000.00 ms /  100 tokens (20 ms per token)",
            "slot print_timing: id  0 | task 0 |        eval time =  1000.00 ms /    5 tokens (200 ms per token)",
            "slot print_timing: id  0 | task 1 | prompt eval time =  2000.00 ms /  300 tokens (7 ms per token)",
            "slot print_timing: id  0 | task 1 |        eval time =  1000.00 ms /   15 tokens (67 ms per token)",
        ]
    )
    assert server_rates(log) == {"prompt_tokens_per_s": 100.0, "generated_tokens_per_s": 10.0}
    assert server_rates("") == {"prompt_tokens_per_s": None, "generated_tokens_per_s": None}
