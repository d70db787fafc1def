"""What a run's clients learned about their endpoints, kept in the run dir so a resumed run does not probe again.

`llm_endpoints.json` holds, per stage, the endpoint's identity (provider, model, base_url with any credentials
redacted) and its facts (`structured.EndpointFacts`: forced tool calls honoured, JSON-schema output honoured;
true, false or null when not known):

    {"version": 1, "stages": {"feedback": {"provider": "openai", "model": "qwen", "base_url":
     "http://host:8080/v1", "tools": false, "schema": true}}}

A client restores a stage's entry only when the identity matches its own, so a changed endpoint or model is
probed afresh. No API key is ever written: the file holds only the fields above.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from swarm.atomic import write_json_atomic

ENDPOINTS_FILE = "llm_endpoints.json"
VERSION = 1

log = logging.getLogger(__name__)
_lock = threading.Lock()


def load_endpoint_facts(path: Path) -> dict[str, dict[str, Any]]:
    """The saved entries by stage ({} when there is no file, or it cannot be read)."""
    try:
        saved = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    stages = saved.get("stages") if isinstance(saved, dict) else None
    if not isinstance(stages, dict):
        return {}
    return {str(stage): dict(entry) for stage, entry in stages.items() if isinstance(entry, dict)}


def save_endpoint_facts(path: Path, clients: Mapping[str, Any]) -> bool:
    """Write what each stage's client learned (clients without `endpoint_facts`, such as the offline coder's,
    are skipped). A stage whose client learned nothing keeps its saved entry, which another process of the
    same run may have written. True when the file changed."""
    with _lock:
        saved = load_endpoint_facts(path)
        stages = dict(saved)
        for stage, client in clients.items():
            facts = getattr(client, "endpoint_facts", None)
            if facts is None:
                continue
            entry = facts()
            if any(entry.get(name) is not None for name in ("tools", "schema")):
                stages[stage] = entry
        if stages == saved:
            return False
        try:
            write_json_atomic(Path(path), {"version": VERSION, "stages": stages})
        except OSError as exc:  # the facts only save requests: a run goes on without them
            log.warning("could not save %s: %s", path, exc)
            return False
        return True


def restore_endpoint_facts(path: Path, clients: Mapping[str, Any]) -> list[str]:
    """Give each stage's client its saved facts; the stages whose facts were taken (identity matched)."""
    saved = load_endpoint_facts(path)
    restored = []
    for stage, client in clients.items():
        restore = getattr(client, "restore_endpoint_facts", None)
        if restore is not None and stage in saved and restore(saved[stage]):
            restored.append(stage)
    return restored
