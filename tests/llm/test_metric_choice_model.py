"""choose_metric through the real SDKs (OpenAI and Anthropic tool calls) against the loopback server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swarm.competitions import load_competition_dir
from swarm.competitions.metrics import METRICS
from swarm.evaluation.metric_choice import SOURCE_MODEL, SOURCE_RULES, MetricChoice, resolve_metric
from swarm.llm.base import LLMError
from swarm.pipeline.metric_model import infer_metric_with_model, metric_reader
from tests.doubles.loopback_server import Reply

SPOOKY = (
    "# Spooky Author Identification\n\nWho wrote this sentence?\n\n## Evaluation\n\nSubmissions are evaluated "
    "using multi-class logarithmic loss. Each id has one true class.\n\n## Data\n\ntrain.csv, test.csv"
)


def _tool_schema(body: dict, provider: str) -> dict:
    (tool,) = body["tools"]
    return tool["input_schema"] if provider == "anthropic" else tool["function"]["parameters"]


def _user_text(body: dict) -> str:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else " ".join(part.get("text", "") for part in content)


def test_a_valid_answer(make, server, provider, ledger):
    server.enqueue(
        Reply.tool_call(
            "choose_metric",
            {
                "name": "multiclass_logloss",
                "lower_is_better": True,
                "reason": 'says "multi-class logarithmic loss"',
            },
        )
    )
    choice = infer_metric_with_model(make(provider), SPOOKY, ctx_run_id="run-7")
    assert choice == MetricChoice(
        "multiclass_logloss", True, SOURCE_MODEL, 'says "multi-class logarithmic loss"'
    )
    body = server.requests[0].body
    schema = _tool_schema(body, provider)
    assert sorted(schema["properties"]["name"]["enum"]) == sorted(METRICS)
    assert set(schema["required"]) == {"name", "lower_is_better", "reason"}
    if provider == "anthropic":
        assert body["tool_choice"] == {"type": "tool", "name": "choose_metric"}
    else:
        assert body["tool_choice"] == {"type": "function", "function": {"name": "choose_metric"}}
    assert "multi-class logarithmic loss" in _user_text(body)
    (record,) = ledger.records
    assert (record.stage, record.kind, record.run_id, record.ok) == ("code", "metric", "run-7", True)


def test_a_wrong_direction_is_corrected(make, server, provider):
    server.enqueue(
        Reply.tool_call("choose_metric", {"name": "rmsle", "lower_is_better": False, "reason": "says RMSLE"})
    )
    choice = infer_metric_with_model(make(provider), "## Evaluation\nScored on RMSLE.")
    assert (choice.name, choice.lower_is_better) == ("rmsle", True)
    assert (
        "the model said higher is better, but rmsle is lower is better in the metric library" in choice.reason
    )


def test_map_at_k_carries_k(make, server, provider):
    server.enqueue(
        Reply.tool_call(
            "choose_metric", {"name": "map_at_k", "lower_is_better": False, "reason": "MAP@5", "k": 5}
        )
    )
    choice = infer_metric_with_model(make(provider), "## Evaluation\nMean Average Precision @ 5.")
    assert (choice.name, choice.params) == ("map_at_k", {"k": 5})


def test_an_unknown_metric_is_repaired_once(make, server, provider):
    server.enqueue(
        Reply.tool_call("choose_metric", {"name": "log-loss-ish", "lower_is_better": True, "reason": "x"}),
        Reply.tool_call(
            "choose_metric", {"name": "multiclass_logloss", "lower_is_better": True, "reason": "y"}
        ),
    )
    choice = infer_metric_with_model(make(provider), SPOOKY)
    assert choice.name == "multiclass_logloss" and len(server.requests) == 2
    assert "log-loss-ish" in json.dumps(server.requests[1].body)  # the repair names the bad answer


def _unknown_twice(server) -> None:
    bad = {"name": "gini", "lower_is_better": False, "reason": "normalized Gini"}
    server.enqueue(Reply.tool_call("choose_metric", bad), Reply.tool_call("choose_metric", bad))


def test_an_unknown_metric_twice_is_an_error(make, server, provider):
    _unknown_twice(server)
    with pytest.raises(LLMError, match="gave invalid arguments for choose_metric twice"):
        infer_metric_with_model(make(provider), SPOOKY)


def test_resolve_falls_back_to_the_rules_when_the_model_names_no_library_metric(
    make, server, provider, tmp_path: Path
):
    public = tmp_path / "spooky" / "prepared" / "public"
    public.mkdir(parents=True)
    (public / "description.md").write_text(SPOOKY)
    (public / "sample_submission.csv").write_text("id,EAP,HPL,MWS\n1,0.3,0.3,0.4\n")
    _unknown_twice(server)
    choice = resolve_metric(
        load_competition_dir(tmp_path / "spooky"),
        override=None,
        model=metric_reader(make(provider)),
        bundled=False,
    )
    assert (choice.name, choice.lower_is_better, choice.source) == ("multiclass_logloss", True, SOURCE_RULES)
    assert 'says "multi-class logarithmic loss" (the model call failed: ' in choice.reason
    assert "choose_metric" in choice.reason


def test_a_runs_metric_call_is_charged_to_its_usage_file_and_spend_cap(
    tmp_path: Path, server, base_overrides: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model call that names a run's metric is the run's first spend: create_run writes it to the run's
    usage file (so the report and the spend cap count it), not to a ledger kept in memory only."""
    from swarm.config import load_config
    from swarm.llm.usage import UsageLedger
    from swarm.pipeline.context import create_run
    from tests.layouts.tables.miniatures import binary_competition

    root = binary_competition(tmp_path / "c")
    (root / "competition.json").write_text("{}")  # no metric: the model names it from the description
    (root / "prepared" / "public" / "description.md").write_text(
        "# Coins\n\nSubmissions are scored by accuracy.\n"
    )
    monkeypatch.setenv("LOOPBACK_TEST_KEY", "sk-loopback")
    llm = {
        "provider": "openai",
        "model": "gpt-4o-mini",
        "base_url": server.openai_base_url,
        "api_key_env": "LOOPBACK_TEST_KEY",
        "max_retries": 0,
    }
    overrides = [o for o in base_overrides if not o.startswith(("data.competition=", "llm.code."))]
    overrides += [
        f"data.data_dir={root}",
        "llm.spend_cap_usd=0.10",
        *(f"llm.code.{k}={v}" for k, v in llm.items()),
    ]
    reply = {"name": "accuracy", "lower_is_better": False, "reason": 'says "scored by accuracy"'}
    server.enqueue(Reply.tool_call("choose_metric", reply, prompt_tokens=1_000_000, completion_tokens=10))
    cfg = load_config(None, overrides)
    paths = create_run(cfg, tmp_path / "run")

    (record,) = [json.loads(line) for line in paths.usage.read_text().splitlines()]
    assert (record["stage"], record["kind"], record["ok"]) == ("code", "metric", True)
    ledger = UsageLedger(paths.usage, spend_cap_usd=cfg.llm.spend_cap_usd)  # as the run's steps open it
    assert ledger.total_cost_usd == pytest.approx(0.15 + 10 * 0.6 / 1e6) and ledger.cap_reached
