"""Ask MLE-bench's grading server whether a submission is valid (it never gives a score).

The container's server takes `POST /validate` with the CSV as multipart field `file` (what
/home/validate_submission.sh sends with curl) and answers `{"result": "Submission is valid."}` or
`{"result": "Submission invalid! ..."}`, or HTTP 500 with `{"error": ..., "details": ...}`.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Status = Literal["valid", "invalid", "unreachable", "error"]


@dataclass(frozen=True)
class Verdict:
    """The server's answer about one submission: `valid`, `invalid` (with its reason), or no answer."""

    status: Status
    message: str

    @property
    def answered(self) -> bool:
        """True when the server judged the file (valid or invalid)."""
        return self.status in ("valid", "invalid")


def _multipart(path: Path) -> tuple[bytes, str]:
    boundary = f"swarm-ev2-{uuid.uuid4().hex}"
    head = (
        f"--{boundary}\r\n"
        f'Content-Disposition: form-data; name="file"; filename="{path.name}"\r\n'
        "Content-Type: text/csv\r\n\r\n"
    ).encode()
    body = head + path.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def parse_reply(status_code: int, body: bytes) -> Verdict:
    """Turn the server's HTTP status and JSON body into a verdict."""
    try:
        data = json.loads(body.decode("utf-8", "replace") or "{}")
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        return Verdict("error", f"HTTP {status_code} with a reply that is not a JSON object")
    if status_code >= 400 or "error" in data:
        detail = data.get("details") or data.get("error") or "no details"
        return Verdict("error", f"HTTP {status_code}: {data.get('error', 'server error')} ({detail})")
    result = str(data.get("result", "")).strip()
    lowered = result.lower()
    if lowered.startswith("submission is valid"):
        return Verdict("valid", result)
    if "invalid" in lowered:
        return Verdict("invalid", result)
    return Verdict("error", f"unrecognised reply: {result or data!r}")


def validate_submission(url: str, path: Path, timeout_s: float = 10.0) -> Verdict:
    """POST `path` to the `/validate` endpoint at `url`; never raises for network trouble."""
    body, content_type = _multipart(Path(path))
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=max(timeout_s, 0.1)) as reply:
            return parse_reply(reply.status, reply.read())
    except urllib.error.HTTPError as exc:
        if exc.code in (404, 405):
            return Verdict("unreachable", f"{url} has no /validate endpoint (HTTP {exc.code})")
        return parse_reply(exc.code, exc.read())
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        reason = getattr(exc, "reason", exc)
        return Verdict("unreachable", f"{url} did not answer ({reason})")
