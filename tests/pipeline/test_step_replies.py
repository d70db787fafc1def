"""What a step says and keeps of the model's reply (issue 50): a reply without code is asked again once, with
why; a step's events are one line each (planned, replied, executed, reviewed, with the harness's score); the
report and the Prefect UI show the reply of a step that failed for the model's sake."""

from __future__ import annotations

from pathlib import Path

import pytest
from prefect import flow
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

from flows.epoch import storing
from flows.run_competition import main
from swarm.config import load_config
from swarm.journal import Journal, Node, NodeMeta, Review
from swarm.llm.base import CallContext, Message
from swarm.llm.exchanges import Exchange, ExchangeLog, exchanges_path, read_exchanges
from swarm.metric import with_interval
from swarm.pipeline.context import create_run, open_run
from swarm.pipeline.progress import PROGRESS
from swarm.pipeline.replies import REPLY_CHARS, reply_lines
from swarm.pipeline.schedule import plan_step
from swarm.pipeline.steps import Generation
from tasks.generate import generate
from tasks.replies import reply_key
from tasks.runs import cache_storage
from tests.doubles.loopback_server import LoopbackServer, Reply
from tests.doubles.replies import solution
from tests.pipeline.plain_runs import plain_competition_run

KEY_ENV = "SWARM_TEST_REPLIES_KEY"
PROSE = "I would fit a gradient-boosted model on the passengers' sex and class. ZEBRA-FIRST"
PROSE_AGAIN = "Sorry, once more in words only: sex and class decide it. ZEBRA-SECOND"
ONE_STEP = ["agent.max_steps=1", "search.parallel=1", "search.num_drafts=1", "evolution.steps_per_epoch=1"]
SOLUTION = solution("asked-again")


@pytest.fixture
def loopback(monkeypatch: pytest.MonkeyPatch) -> LoopbackServer:
    """A loopback model server for the code stage, with the key its stage reads."""
    monkeypatch.setenv(KEY_ENV, "sk-replies-test-0123456789")
    with LoopbackServer() as server:
        yield server


def code_stage(server: LoopbackServer) -> list[str]:
    values = {
        "provider": "openai",
        "model": "gpt-4o-mini",
        "base_url": server.openai_base_url,
        "api_key_env": KEY_ENV,
        "max_retries": 0,
    }
    return [f"llm.code.{name}={value}" for name, value in values.items()]


def one_step_run(tmp_path: Path, overrides: list[str]) -> tuple[Node, list[str], str]:
    """A one-step plain run: its node, the step lines the progress board passed on, and its report."""
    lines: list[str] = []
    stop = PROGRESS.subscribe(lines.append)
    try:
        plain_competition_run([*overrides, *ONE_STEP], tmp_path / "run")
    finally:
        stop()
    (node,) = Journal.load(tmp_path / "run" / "journal.jsonl").nodes
    return node, lines, (tmp_path / "run" / "report.md").read_text()


def test_a_reply_without_code_is_asked_again_with_why_and_its_code_is_used(
    tmp_path: Path, base_overrides: list[str], loopback: LoopbackServer
) -> None:
    loopback.enqueue(
        Reply.say(PROSE, prompt_tokens=100, completion_tokens=20),
        Reply.say(SOLUTION, prompt_tokens=150, completion_tokens=200),
    )
    node, lines, _ = one_step_run(tmp_path, [*base_overrides, *code_stage(loopback)])
    first, second = loopback.requests
    assert not node.is_buggy and "variant asked-again" in node.code
    assert node.meta.reasked is True and node.meta.parse_error is None
    asked = second.body["messages"]
    assert asked[:-2] == first.body["messages"]  # the same conversation, then the reply and why
    assert asked[-2] == {"role": "assistant", "content": PROSE}
    assert asked[-1]["role"] == "user" and "Your reply had no Python code block" in asked[-1]["content"]
    assert "no Python code in the reply" in asked[-1]["content"]  # the parser's reason
    replied = next(line for line in lines if "model replied" in line)
    assert "(250 prompt + 220 completion tokens in 2 call(s)): code after being asked again" in replied


def test_a_reply_twice_without_code_is_a_buggy_node_the_report_shows(
    tmp_path: Path, base_overrides: list[str], loopback: LoopbackServer
) -> None:
    loopback.enqueue(Reply.say(PROSE), Reply.say(PROSE_AGAIN))
    node, lines, report = one_step_run(tmp_path, [*base_overrides, *code_stage(loopback)])
    assert len(loopback.requests) == 2
    assert node.is_buggy and node.code == "" and "no runnable code" in node.bug_reason
    assert node.meta.reasked is True and node.meta.reply_head == PROSE_AGAIN
    assert "## Model replies of failed steps" in report
    section = report.split("## Model replies of failed steps")[1]
    assert PROSE_AGAIN in section and "the reply had no code (asked twice)" in section
    assert any("executed: not run (no code)" in line for line in lines)
    # both replies are on disk as the server sent them, with what was asked, and no key
    kept = read_exchanges(tmp_path / "run", node.id)
    assert [(e["stage"], e["reply"]) for e in kept] == [("code", PROSE), ("code", PROSE_AGAIN)]
    assert kept[1]["messages"][-2] == {"role": "assistant", "content": PROSE}
    assert kept[0]["settings"]["model"] == "gpt-4o-mini" and kept[0]["prompt_tokens"] == 10
    assert str(exchanges_path(tmp_path / "run", node.id)) in section
    assert "sk-replies-test" not in exchanges_path(tmp_path / "run", node.id).read_text()


def test_the_lines_of_a_step_say_each_event_with_the_harness_score(
    tmp_path: Path, base_overrides: list[str]
) -> None:
    node, lines, _ = one_step_run(tmp_path, base_overrides)  # the offline coder
    prefix = f"step 0 ({node.id[:8]})"
    assert [line.split(":")[0].removeprefix(prefix).strip().split(" ")[0] for line in lines] == [
        "planned",
        "model",
        "executed",
        "reviewed",
    ]
    assert lines[0] == f"{prefix} planned: draft by {node.agent_id}"
    assert "model replied in" in lines[1] and lines[1].endswith(": code")
    assert lines[2].startswith(f"{prefix} executed: ok in ")
    assert node.meta.validation_source == "harness" and not node.is_buggy
    assert node.meta.score_interval[0] <= node.metric.value <= node.meta.score_interval[1]
    score = with_interval(node.metric.value, node.meta.score_interval)
    assert lines[3] == f"{prefix} reviewed: good, harness score {score}"  # and its 95% interval


def failed_node(node_id: str, meta: NodeMeta, bug: str = "the facts say so") -> Node:
    review = Review(analysis="the reviewer's summary", is_buggy=True, bug_reason=bug)
    return Node(id=node_id, code="", plan="", task_type="draft", agent_id="agent_0", review=review, meta=meta)


def keep(run_root: Path, node_id: str, stage: str, **fields: object) -> None:
    kind = "draft" if stage == "code" else "review"
    ctx = CallContext(stage=stage, kind=kind, node_id=node_id)  # type: ignore[arg-type]
    exchange = Exchange.for_call(
        ctx, [Message("user", "solve it")], provider="openai", model="m", mode="complete", attempt=1, **fields
    )
    ExchangeLog(run_root).record(exchange)


def test_the_report_shows_the_kept_reply_of_each_failed_step_and_where_it_is(tmp_path: Path) -> None:
    long_reply = "HEAD of the reply\n" + "prose line\n" * 400 + "with ```` fences\nTAIL of the reply"
    keep(tmp_path, "a" * 32, "code", reply="an older reply")
    keep(tmp_path, "a" * 32, "code", reply=long_reply)
    keep(tmp_path, "b" * 32, "feedback", reply=None, tool_args={"is_bug": False, "summary": "REVIEWED FINE"})
    keep(tmp_path, "b" * 32, "feedback", reply=None, ok=False, error="timed out")
    keep(tmp_path, "c" * 32, "code", reply="never shown: its step did not fail for the model's sake")
    nodes = [
        failed_node("a" * 32, NodeMeta(parse_error="no Python code in the reply", reasked=True)),
        failed_node("b" * 32, NodeMeta(review_overruled=True), bug="no submission.csv was written"),
        failed_node("c" * 32, NodeMeta()),
        failed_node("d" * 32, NodeMeta(review_error="the call timed out")),
    ]
    lines = reply_lines(tmp_path, nodes)
    text = "\n".join(lines)
    assert "HEAD of the reply" in text and "TAIL of the reply" in text and "chars," in text  # trimmed
    assert len(text) < 3 * REPLY_CHARS + 2000 and "an older reply" not in text
    assert f"exchanges: `{exchanges_path(tmp_path, 'a' * 32)}`" in text
    assert "`````" in lines  # a fence longer than the reply's own
    assert "REVIEWED FINE" in text and "the facts: no submission.csv was written" in text
    assert "`cccccccc`" not in text and "never shown" not in text
    # no exchange kept: the node's own record stands in
    assert "the review call failed: the call timed out; no exchanges were kept for it" in text
    assert "the reviewer's summary" in text
    assert reply_lines(tmp_path, [nodes[2]]) == []


def test_no_live_prints_a_line_per_step_event_with_the_harness_score(
    tmp_path: Path, base_overrides: list[str], capsys: pytest.CaptureFixture[str], prefect_server: None
) -> None:
    sets = [arg for o in [*base_overrides, "agent.max_steps=2"] for arg in ("--set", o)]
    assert main(["--run-dir", str(tmp_path / "run"), "--no-live", *sets]) == 0
    err = capsys.readouterr().err
    nodes = Journal.load(tmp_path / "run" / "journal.jsonl").nodes
    assert len(nodes) == 2
    for node in nodes:
        mine = [line for line in err.splitlines() if f"({node.id[:8]})" in line]
        assert len(mine) == 4, mine
        assert f"planned: {node.task_type} by {node.agent_id}" in mine[0]
        assert "model replied in" in mine[1] and "executed: ok in" in mine[2]
        assert mine[3].endswith(
            f"reviewed: good, harness score {with_interval(node.metric.value, node.meta.score_interval)}"
        )


def test_the_generate_task_logs_and_keeps_a_reply_without_code(
    tmp_path: Path,
    base_overrides: list[str],
    loopback: LoopbackServer,
    caplog: pytest.LogCaptureFixture,
    prefect_server: None,
) -> None:
    loopback.enqueue(Reply.say(PROSE), Reply.say(PROSE_AGAIN))
    run_dir = create_run(load_config(None, [*base_overrides, *code_stage(loopback)]), tmp_path / "run").root
    planned = plan_step(*open_run(run_dir))

    @flow
    def generate_once() -> None:
        storing(generate, cache_storage(str(run_dir)))(str(run_dir), planned)

    generate_once()
    node_id = planned.plan.node_id
    warned = [
        r.getMessage() for r in caplog.records if r.levelname == "WARNING" and node_id in r.getMessage()
    ]
    assert warned and "the model replied: Sorry, once more" in warned[0]
    with get_client(sync_client=True) as client:
        key = reply_key("reply", node_id)
        (artifact,) = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key])))
    assert PROSE_AGAIN in artifact.data and "the reply had no code (asked twice)" in artifact.data


def test_a_generation_cached_by_an_older_version_reads_with_the_new_fields_at_their_defaults() -> None:
    state = Generation(node_id="n", raw="r", reasked=True).__getstate__()
    del state["__dict__"]["reasked"]  # as a pickle written before the field existed holds it
    old = Generation.__new__(Generation)
    old.__setstate__(state)
    assert old.reasked is False and old.raw == "r"
