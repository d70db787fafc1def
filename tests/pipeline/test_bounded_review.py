"""A review's reading of a submission runs in a child process: a hang ends at the review's limit as a problem,
the result of a normal submission is the same as in process, and a SIGTERM ends a run whose review hangs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from swarm.competitions import load_competition_dir
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import build_holdout
from swarm.pipeline.bounded_review import CheckRequest, check_bounded, check_files
from swarm.pipeline.stopping import stop_on_signals
from tests.layouts.tables.miniatures import binary_competition, read

REPO = Path(__file__).resolve().parents[2]
GENEROUS_S = 60  # bounds on ending, far above what it takes; never a speed assertion


class HangingHarness:
    """A harness whose scoring never ends (as pandas on a pathological file): it says its pid, then sleeps."""

    def __init__(self, pid_file: Path) -> None:
        self.pid_file = pid_file

    def evaluate(self, submission: Path, test_out: Path, heldout_out: Path | None = None) -> None:
        self.pid_file.write_text(str(os.getpid()))
        time.sleep(3600)


class RaisingHarness:
    def evaluate(self, submission: Path, test_out: Path, heldout_out: Path | None = None) -> None:
        raise KeyError("a bug of the harness")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture
def request_for(tmp_path: Path):
    competition = load_competition_dir(binary_competition(tmp_path / "c"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=0)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    view = read(holdout.public_dir / "sample_submission.csv")
    labels = read(holdout.labels_path).set_index("id")["y"].to_dict()
    view["y"] = [labels.get(i, str(n % 2)) for n, i in enumerate(view["id"])]
    submission = tmp_path / "submission.csv"
    view.to_csv(submission, index=False)

    def build(name: str, scorer=harness) -> CheckRequest:
        return CheckRequest(
            submission=submission,
            kept=tmp_path / name / "kept.csv",
            heldout=tmp_path / name / "heldout.csv",
            sample=competition.sample_submission,
            spec=competition.metric,
            harness=scorer,
        )

    return build


def test_a_normal_submission_gives_what_the_review_gave_in_process(request_for) -> None:
    inside = check_files(request_for("inside"))
    child = check_bounded(request_for("child"), timeout_s=GENEROUS_S * 5, memory_mb=8192)
    assert inside.score == 1.0 and inside.problem is None
    assert (child.score, child.problem, child.note) == (inside.score, inside.problem, inside.note)
    assert child.test_submission.read_bytes() == inside.test_submission.read_bytes()
    heldout = request_for("child").heldout
    assert heldout.read_bytes() == request_for("inside").heldout.read_bytes()


def test_a_hanging_review_ends_at_its_limit_as_a_problem(request_for, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    checks = check_bounded(request_for("hang", HangingHarness(pid_file)), timeout_s=3, memory_mb=0)
    assert checks.problem == (
        "reading and checking it ran past the review's limit of 3 s (evaluation.review_timeout_s) and was stopped"
    )
    assert checks.score is None and checks.test_submission is None
    assert not alive(int(pid_file.read_text()))


def test_an_error_of_the_checks_is_raised_as_in_process(request_for) -> None:
    with pytest.raises(KeyError, match="a bug of the harness"):
        check_bounded(request_for("raise", RaisingHarness()), timeout_s=GENEROUS_S * 5, memory_mb=0)


HANGING_RUN = """
import concurrent.futures as cf, signal, sys
from pathlib import Path
from swarm.pipeline.bounded_review import CheckRequest, check_bounded
from swarm.pipeline.stopping import stop_on_signals
from tests.pipeline.test_bounded_review import HangingHarness

signal.signal(signal.SIGINT, signal.default_int_handler)  # as at a terminal, even if we run in the background
tmp = Path(sys.argv[1])
request = CheckRequest(tmp / "s.csv", tmp / "k.csv", None, tmp / "s.csv", None, HangingHarness(tmp / "pid"))
with stop_on_signals(grace_s=10), cf.ThreadPoolExecutor(1) as pool:  # a step's review in a thread, as a run's
    pool.submit(check_bounded, request, 3600, 0).result()
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_ends_a_process_whose_review_hangs(tmp_path: Path, sig: signal.Signals) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", HANGING_RUN, str(tmp_path)], cwd=REPO, env=env)
    try:
        deadline = time.monotonic() + GENEROUS_S * 3
        while not (tmp_path / "pid").exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (tmp_path / "pid").exists(), "the review never started"
        proc.send_signal(sig)
        assert proc.wait(timeout=GENEROUS_S) != 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not alive(int((tmp_path / "pid").read_text()))


UNGUARDED_SCRIPT = """
import sys
from pathlib import Path
from swarm.pipeline.bounded_review import CheckRequest, check_bounded

tmp = Path(sys.argv[1])
(tmp / "sample.csv").write_text("id,y\\n1,0\\n2,0\\n")
(tmp / "sub.csv").write_text("id,y\\n1,0\\n2,1\\n")
request = CheckRequest(tmp / "sub.csv", tmp / "kept.csv", None, tmp / "sample.csv", None, None)
print("checked:", check_bounded(request, 120, 0).problem)
"""


def test_a_script_without_a_main_guard_is_not_run_again_by_its_reviews(tmp_path: Path) -> None:
    script = tmp_path / "unguarded.py"  # a user's script: its top level runs once, not in each review child
    script.write_text(UNGUARDED_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=GENEROUS_S * 3,
    )
    assert done.returncode == 0 and done.stdout.count("checked:") == 1, done.stderr[-2000:]
    assert done.stdout.strip() == "checked: None" and (tmp_path / "kept.csv").read_text().startswith("id,y")


def test_a_signal_the_process_ignores_stays_ignored() -> None:
    """A run started in the background ignores SIGINT: the stop does not take it over (it would kill the reviews'
    children on a Ctrl-C meant for the foreground); SIGTERM is still the stop's."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with stop_on_signals(grace_s=10):
            assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_IGN, signal.SIG_DFL)
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
