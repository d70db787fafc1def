"""Fixtures for the MLE-bench adapter: a /home laid out like MLE-bench's container, and
a loopback stand-in for the grading server's /validate."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import Competition, load_competition
from swarm.mlebench import AgentSettings

INSTRUCTIONS = "You are participating in *MLE-bench*. Write /home/submission/submission.csv.\n"


@pytest.fixture(scope="session")
def titanic(competition_cache: Path) -> Competition:
    """The bundled titanic, prepared into the session's cache (its hidden answers stay there)."""
    return load_competition("titanic", competition_cache)


def lay_out_home(home: Path, competition: Competition) -> Path:
    """A /home like MLE-bench's: data/ holds the public files only, instructions.txt beside it."""
    shutil.copytree(competition.public_dir, home / "data")
    (home / "instructions.txt").write_text(INSTRUCTIONS, encoding="utf-8")
    return home


@pytest.fixture
def home(tmp_path: Path, titanic: Competition) -> Path:
    return lay_out_home(tmp_path / "home", titanic)


def agent_settings(home: Path, validate_url: str | None, **changes: object) -> AgentSettings:
    """Settings pointing at `home` (never at the real /home), offline coder, local sandbox."""
    values: dict = {
        "data_dir": home / "data",
        "instructions": home / "instructions.txt",
        "submission_dir": home / "submission",
        "logs_dir": home / "logs",
        "code_dir": home / "code",
        "work_dir": home / "agent" / "work",
        "validate_url": validate_url,
        "validate_timeout_s": 5.0,
        "competition_id": "titanic",
        "poll_s": 0.5,
        "overrides": (
            "execution.sandbox=local",
            "execution.timeout_s=180",
            "llm.code.provider=offline",
            "llm.feedback.provider=offline",
            "llm.evolution.provider=offline",
            "search.parallel=2",
            "search.num_drafts=2",
            "evolution.steps_per_epoch=2",
        ),
    }
    values.update(changes)
    return AgentSettings(**values)


def check_against_sample(submission: bytes, sample: Path) -> str | None:
    """Why a submission does not match the sample's columns and ids (None when it does)."""
    try:
        frame = pd.read_csv(io.BytesIO(submission))
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        return f"not a readable CSV: {exc}"
    expected = pd.read_csv(sample)
    if list(frame.columns) != list(expected.columns):
        return f"columns {list(frame.columns)} != {list(expected.columns)}"
    if len(frame) != len(expected):
        return f"{len(frame)} rows, expected {len(expected)}"
    id_col = expected.columns[0]
    if sorted(frame[id_col].astype(str)) != sorted(expected[id_col].astype(str)):
        return "the ids differ from the sample submission's"
    if frame.isna().any().any():
        return "missing values"
    return None


@dataclass
class ValidateStandIn:
    """What the stand-in saw and how it should answer: `reject_first` calls are refused, `fail` gives 500."""

    sample: Path
    reject_first: int = 0
    reject_all: bool = False
    fail: bool = False
    calls: list[dict] = field(default_factory=list)
    url: str = ""

    def judge(self, content: bytes) -> tuple[int, dict]:
        digest = hashlib.sha256(content).hexdigest()
        if self.fail:
            self.calls.append({"sha256": digest, "status": 500})
            return 500, {"error": "An unexpected error occurred.", "details": "stand-in told to fail"}
        problem = check_against_sample(content, self.sample)
        if problem is None and (self.reject_all or len(self.calls) < self.reject_first):
            problem = "stand-in told to reject it"
        self.calls.append({"sha256": digest, "status": 200, "valid": problem is None})
        if problem is None:
            return 200, {"result": "Submission is valid."}
        return 200, {"result": f"Submission invalid! The attempt to grade the submission failed:\n{problem}"}


def _handler(stand_in: ValidateStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep the test output clean
            return

        def _reply(self, code: int, data: dict) -> None:
            body = json.dumps(data).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path == "/health":
                self._reply(200, {"status": "running"})
            else:
                self._reply(404, {"error": "not found"})

        def do_POST(self) -> None:
            if self.path != "/validate":
                self._reply(404, {"error": "not found"})
                return
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            head = f"Content-Type: {self.headers.get('Content-Type', '')}\r\n\r\n".encode()
            message = BytesParser(policy=HTTP).parsebytes(head + raw)
            parts = [
                p for p in message.iter_parts() if p.get_param("name", header="content-disposition") == "file"
            ]
            if not parts:
                self._reply(400, {"error": "no file field"})
                return
            self._reply(*stand_in.judge(parts[0].get_payload(decode=True)))

    return Handler


@contextmanager
def serve_stand_in(sample: Path) -> Iterator[ValidateStandIn]:
    """Run a stand-in grading server on a free loopback port while the block runs."""
    stand_in = ValidateStandIn(sample=sample)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(stand_in))
    stand_in.url = f"http://127.0.0.1:{server.server_address[1]}/validate"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield stand_in
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def grading_server(titanic: Competition) -> Iterator[ValidateStandIn]:
    """A loopback stand-in for MLE-bench's grading server, answering /validate like the real one."""
    with serve_stand_in(titanic.sample_submission) as stand_in:
        yield stand_in


@pytest.fixture
def closed_url() -> str:
    """A loopback /validate URL on a port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/validate"


# Helpers handed to tests as fixtures (test modules cannot import conftest under --import-mode=importlib).
@pytest.fixture(scope="session")
def make_settings() -> Callable[..., AgentSettings]:
    """agent_settings(home, validate_url, **changes) -> AgentSettings."""
    return agent_settings


@pytest.fixture(scope="session")
def make_home() -> Callable[[Path, Competition], Path]:
    """lay_out_home(home, competition) -> home."""
    return lay_out_home


@pytest.fixture(scope="session")
def sample_check() -> Callable[[bytes, Path], str | None]:
    """check_against_sample(submission bytes, sample path) -> reason or None."""
    return check_against_sample


@pytest.fixture(scope="session")
def stand_in_server() -> Callable[[Path], AbstractContextManager[ValidateStandIn]]:
    """serve_stand_in(sample) -> a context manager yielding a running ValidateStandIn."""
    return serve_stand_in
