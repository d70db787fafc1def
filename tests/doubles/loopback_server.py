"""A scripted loopback HTTP server that speaks enough of the OpenAI and Anthropic wire protocols.

Tests and benchmarks point the real SDK clients at it (`server.openai_base_url`, `server.anthropic_base_url`)
and queue replies: text (complete, or cut off at the token limit), a tool call (well-formed or with malformed
arguments), an HTTP error status, or a delay that makes the client time out. Every POST received is recorded
in `requests` with its headers, JSON body and the reply it got.

Endpoint quirks seen in the wild are reproduced too: a thinking trace (`Reply.think`: OpenAI-compatible
`reasoning_content`, Anthropic `thinking` blocks; `<think>` blocks are plain text), a reasoning model that
spends its budget thinking (`Reply.thought_until_limit`: empty content at the token limit), replies without
`usage` (`Reply.without_usage`, or `omit_usage=True` for every reply), a model that rejects the system role
(`reject_system=True`: HTTP 400 with OpenAI's message) and a server that cannot take tools
(`reject_tools=Reply.error(500, "tools param requires --jinja flag")`, as llama.cpp without `--jinja`). The
last two answer without using up the queue.

Structured output as servers really treat it (both apply to the OpenAI protocol only):

- `ignore_tool_choice_object=True`: a request whose `tool_choice` is an object (a named function, how the
  client forces a call) has it ignored, as llama.cpp's llama-server does (build 11434 logs `Wrong type
  supplied for parameter 'tool_choice'`, uses `auto` and answers HTTP 200): a scripted tool-call reply is sent
  as prose without `tool_calls` (its `text`, else `IGNORED_TOOL_PROSE`).
- `honour_json_schema=True`: a `response_format` of type `json_schema` is honoured, as a grammar-constrained
  server does: a scripted tool-call reply is sent as a plain message whose content is the JSON of its
  arguments (string arguments verbatim). Scripted text replies are sent as they are. Without this option
  `response_format` is ignored, as many servers do, and every reply is played as scripted.
- `llama_cpp=True`: both of the above, llama-server's behaviour with `--jinja`.

`GET /v1/models` and `GET /v1/models/{id}` list and look up the models passed as `models=[...]` (404 for
others), in the format of the protocol that asks (Anthropic's SDK sends `anthropic-version`); without `models`
they answer 404 like a server that lacks the endpoint. Those lookups are recorded in `model_lookups`.
A model's context length is told as servers tell it: `props={...}` answers llama.cpp's `GET /props` with that
JSON (a string: sent as it is, e.g. garbage), and `max_model_len=N` adds vLLM's field to the OpenAI model
entries; without them `/props` answers 404 and the entries have no such field.

    with LoopbackServer() as server:
        server.enqueue(Reply.error(429), Reply.say("hello", prompt_tokens=12, completion_tokens=3))
        ...  # call the SDK against server.openai_base_url
        assert len(server.requests) == 2
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import unquote

OPENAI_PATH = "/v1/chat/completions"
ANTHROPIC_PATH = "/v1/messages"
MODELS_PATH = "/v1/models"
PROPS_PATH = "/props"
Protocol = Literal["openai", "anthropic"]

_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


@dataclass(frozen=True)
class Reply:
    """One scripted reply. Build it with the class methods rather than by hand.

    `prompt_tokens` are the uncached input tokens; `cache_read_tokens` / `cache_creation_tokens` are sent the
    way each protocol reports them (Anthropic: separate usage fields; OpenAI: cache reads added to
    `prompt_tokens` and listed in `prompt_tokens_details.cached_tokens`, cache writes not reported).
    `truncated` marks a reply cut off at the token limit (OpenAI `finish_reason: "length"`, Anthropic
    `stop_reason: "max_tokens"`).
    """

    status: int = 200
    text: str | None = None
    tool_name: str | None = None
    tool_args: dict[str, Any] | str | None = None
    error_message: str | None = None
    delay_s: float = 0.0
    prompt_tokens: int = 10
    completion_tokens: int = 5
    headers: dict[str, str] = field(default_factory=dict)
    echo_auth: bool = False
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    truncated: bool = False
    reasoning: str | None = None  # a thinking trace, sent apart from the text as each protocol does
    usage: bool = True  # False: the reply carries no `usage`

    @classmethod
    def think(cls, reasoning: str, text: str, prompt_tokens: int = 10, completion_tokens: int = 5) -> Reply:
        """A reply with a thinking trace (`reasoning_content` / a `thinking` block) before its `text`."""
        return replace(cls.say(text, prompt_tokens, completion_tokens), reasoning=reasoning)

    @classmethod
    def thought_until_limit(
        cls, reasoning: str = "Let me think step by step...", tokens: int = 4096
    ) -> Reply:
        """A reasoning model that spent its whole budget thinking: empty content, stopped at the limit."""
        return cls(text="", reasoning=reasoning, completion_tokens=tokens, truncated=True)

    def without_usage(self) -> Reply:
        """This reply with no `usage` in its body, as many compatible servers send."""
        return replace(self, usage=False)

    @classmethod
    def say(
        cls,
        text: str,
        prompt_tokens: int = 10,
        completion_tokens: int = 5,
        cache_read_tokens: int = 0,
        cache_creation_tokens: int = 0,
    ) -> Reply:
        """A plain text reply."""
        return cls(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cache_read_tokens=cache_read_tokens,
            cache_creation_tokens=cache_creation_tokens,
        )

    @classmethod
    def cut_off(cls, text: str, prompt_tokens: int = 10, completion_tokens: int = 5) -> Reply:
        """A text reply that stopped at the token limit (`text` is what was written before it)."""
        return replace(
            cls.say(text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens), truncated=True
        )

    @classmethod
    def tool_call(
        cls,
        name: str,
        args: dict[str, Any] | str,
        prompt_tokens: int = 10,
        completion_tokens: int = 5,
        text: str | None = None,
    ) -> Reply:
        """A tool call; `args` as a string is sent verbatim (use it for malformed arguments)."""
        return cls(
            text=text,
            tool_name=name,
            tool_args=args,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )

    @classmethod
    def error(
        cls,
        status: int,
        message: str | None = None,
        headers: dict[str, str] | None = None,
        echo_auth: bool = False,
    ) -> Reply:
        """An HTTP error; `echo_auth` puts the received credential in the message, as careless servers do."""
        if status < 400:
            raise ValueError(f"an error reply needs a status >= 400, got {status}")
        return cls(
            status=status,
            error_message=message or f"scripted error {status}",
            headers=headers or {},
            echo_auth=echo_auth,
        )

    @classmethod
    def slow(cls, delay_s: float, then: Reply | None = None) -> Reply:
        """`then` (default: a text reply) sent only after `delay_s` seconds."""
        base = then or cls(text="late reply")
        return replace(base, delay_s=delay_s)


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received, and the scripted reply it was given (None: none was due)."""

    protocol: Protocol | None
    path: str
    headers: dict[str, str]
    body: Any
    received_at: float
    reply: Reply | None = None


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1 with a random port that plays a queue of scripted replies."""

    def __init__(
        self,
        latency_s: float = 0.0,
        default_reply: Reply | None = None,
        model_echo: bool = True,
        models: Iterable[str] | None = None,
        *,
        reject_system: bool = False,
        reject_tools: Reply | None = None,
        omit_usage: bool = False,
        props: dict[str, Any] | str | None = None,
        max_model_len: int | None = None,
        ignore_tool_choice_object: bool = False,
        honour_json_schema: bool = False,
        llama_cpp: bool = False,
    ) -> None:
        self.props = props
        self.max_model_len = max_model_len
        self.ignore_tool_choice_object = ignore_tool_choice_object or llama_cpp
        self.honour_json_schema = honour_json_schema or llama_cpp
        self.latency_s = latency_s
        self.reject_system = reject_system
        self.reject_tools = reject_tools
        self.omit_usage = omit_usage
        self.default_reply = default_reply
        self.model_echo = model_echo
        self.models = None if models is None else tuple(models)
        self._queue: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._lookups: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd = _QuietHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_base_url(self) -> str:
        return self.url + "/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def model_lookups(self) -> list[RecordedRequest]:
        """The GET requests (model lookups), which are not in `requests`."""
        with self._lock:
            return list(self._lookups)

    @property
    def pending(self) -> int:
        """Scripted replies not yet played."""
        with self._lock:
            return len(self._queue)

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def start(self) -> LoopbackServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, args=(0.02,), name="loopback-llm", daemon=True
            )
            self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- used by the handler -------------------------------------------------------------------------------

    def _reply_for(self, proto: Protocol, body: Any) -> Reply:
        """The reply a request gets: a quirk's rejection, else the next scripted one."""
        body = body if isinstance(body, dict) else {}
        if self.reject_system and _has_system(proto, body):
            return Reply.error(400, SYSTEM_REJECTED)
        if self.reject_tools is not None and body.get("tools"):
            return self.reject_tools
        reply = self._structured(proto, body, self._next_reply())
        return replace(reply, usage=False) if self.omit_usage else reply

    def _structured(self, proto: Protocol, body: dict[str, Any], reply: Reply) -> Reply:
        """A scripted tool call as a server with the structured-output options would send it."""
        if proto != "openai" or reply.tool_name is None:
            return reply
        if self.ignore_tool_choice_object and isinstance(body.get("tool_choice"), dict):
            return replace(reply, tool_name=None, tool_args=None, text=reply.text or IGNORED_TOOL_PROSE)
        if self.honour_json_schema and _asks_json_schema(body):
            args = reply.tool_args if isinstance(reply.tool_args, str) else json.dumps(reply.tool_args)
            return replace(reply, tool_name=None, tool_args=None, text=args)
        return reply

    def _next_reply(self) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.default_reply is not None:
            return self.default_reply
        return Reply.error(500, "loopback server: no scripted reply left")

    def _record(self, request: RecordedRequest, lookup: bool = False) -> None:
        with self._lock:
            (self._lookups if lookup else self._requests).append(request)

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._closing.wait(seconds)


class _QuietHTTPServer(ThreadingHTTPServer):
    """Clients that die mid-connection (killed runs, timeouts) are normal here, not errors to print."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _make_handler(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # else headers and body in two packets cost ~40 ms per reply

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence the default stderr log
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server naming
            received = time.time()
            path = self.path.split("?", 1)[0].rstrip("/")
            headers = {k.lower(): v for k, v in self.headers.items()}
            proto: Protocol = "anthropic" if "anthropic-version" in headers else "openai"
            server._record(RecordedRequest(proto, path, headers, None, received), lookup=True)
            if path == PROPS_PATH and server.props is not None:
                self._send(200, server.props, {})
                return
            if server.models is None or not (path == MODELS_PATH or path.startswith(MODELS_PATH + "/")):
                self._send(404, {"error": {"message": f"unknown path {path}", "type": "not_found"}}, {})
                return
            if path == MODELS_PATH:
                listed = _model_list(proto, server.models)
                if server.max_model_len is not None and proto == "openai":
                    for entry in listed["data"]:
                        entry["max_model_len"] = server.max_model_len  # as vLLM lists its models
                self._send(200, listed, {})
                return
            model_id = unquote(path[len(MODELS_PATH) + 1 :])
            if model_id in server.models:
                self._send(200, _model_info(proto, model_id), {})
            else:
                message = f"The model `{model_id}` does not exist or you do not have access to it."
                self._send(404, _error_payload(proto, 404, message), {})

        def do_POST(self) -> None:  # noqa: N802 - http.server naming
            received = time.time()
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except json.JSONDecodeError:
                body = raw.decode("utf-8", "replace")
            path = self.path.split("?", 1)[0]
            proto: Protocol | None = (
                "openai" if path == OPENAI_PATH else "anthropic" if path == ANTHROPIC_PATH else None
            )
            headers = {k.lower(): v for k, v in self.headers.items()}
            if proto is None:
                server._record(RecordedRequest(proto, path, headers, body, received))
                self._send(404, {"error": {"message": f"unknown path {path}", "type": "not_found"}}, {})
                return
            reply = server._reply_for(proto, body)
            server._record(RecordedRequest(proto, path, headers, body, received, reply))
            server._sleep(server.latency_s + reply.delay_s)
            if server._closing.is_set():
                return
            model = body.get("model", "loopback") if isinstance(body, dict) else "loopback"
            if reply.status >= 400:
                message = reply.error_message or "error"
                if reply.echo_auth:
                    message += f" (credential received: {_credential(headers)})"
                payload = _error_payload(proto, reply.status, message)
            else:
                payload = _openai_body(reply, model) if proto == "openai" else _anthropic_body(reply, model)
            self._send(reply.status, payload, reply.headers)

        def _send(self, status: int, payload: dict[str, Any] | str, headers: dict[str, str]) -> None:
            data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (e.g. it timed out); nothing to do

    return Handler


SYSTEM_REJECTED = "Unsupported value: 'messages[0].role' does not support 'system' with this model."
IGNORED_TOOL_PROSE = "I will review the run: it looks fine to me, and the submission was written."


def _asks_json_schema(body: dict[str, Any]) -> bool:
    response_format = body.get("response_format")
    return isinstance(response_format, dict) and response_format.get("type") == "json_schema"


def _has_system(proto: Protocol, body: dict[str, Any]) -> bool:
    if proto == "anthropic":
        return bool(body.get("system"))
    return any(isinstance(m, dict) and m.get("role") == "system" for m in body.get("messages") or [])


def _credential(headers: dict[str, str]) -> str:
    auth = headers.get("authorization", "")
    return auth.removeprefix("Bearer ").strip() or headers.get("x-api-key", "")


def _error_payload(proto: Protocol, status: int, message: str) -> dict[str, Any]:
    if proto == "anthropic":
        kind = _ANTHROPIC_ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": "loopback_error", "code": str(status)}}


def _model_list(proto: Protocol, models: tuple[str, ...]) -> dict[str, Any]:
    data = [_model_info(proto, model) for model in models]
    if proto == "anthropic":
        return {
            "data": data,
            "has_more": False,
            "first_id": models[0] if models else None,
            "last_id": models[-1] if models else None,
        }
    return {"object": "list", "data": data}


def _model_info(proto: Protocol, model: str) -> dict[str, Any]:
    if proto == "anthropic":
        return {
            "type": "model",
            "id": model,
            "display_name": model,
            "created_at": "2025-01-01T00:00:00Z",
        }
    return {"id": model, "object": "model", "created": 1735689600, "owned_by": "loopback"}


def _openai_body(reply: Reply, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.reasoning is not None:
        message["reasoning_content"] = reply.reasoning
    finish = "length" if reply.truncated else "stop"
    if reply.tool_name is not None:
        args = reply.tool_args if isinstance(reply.tool_args, str) else json.dumps(reply.tool_args)
        message["tool_calls"] = [
            {
                "id": "call_" + uuid.uuid4().hex[:12],
                "type": "function",
                "function": {"name": reply.tool_name, "arguments": args},
            }
        ]
        finish = "length" if reply.truncated else "tool_calls"
    prompt = reply.prompt_tokens + reply.cache_read_tokens
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": prompt + reply.completion_tokens,
    }
    if reply.cache_read_tokens:
        usage["prompt_tokens_details"] = {"cached_tokens": reply.cache_read_tokens}
    body = {
        "id": "chatcmpl-" + uuid.uuid4().hex[:12],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": usage,
    }
    if not reply.usage:
        del body["usage"]
    return body


def _anthropic_body(reply: Reply, model: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.reasoning is not None:
        content.append({"type": "thinking", "thinking": reply.reasoning, "signature": "loopback-signature"})
    if reply.text is not None:
        content.append({"type": "text", "text": reply.text})
    stop = "max_tokens" if reply.truncated else "end_turn"
    if reply.tool_name is not None:
        args: Any = reply.tool_args
        if isinstance(args, str):
            with contextlib.suppress(json.JSONDecodeError):  # else sent verbatim: a malformed `input`
                args = json.loads(args)
        content.append(
            {
                "type": "tool_use",
                "id": "toolu_" + uuid.uuid4().hex[:12],
                "name": reply.tool_name,
                "input": args,
            }
        )
        stop = "max_tokens" if reply.truncated else "tool_use"
    body = {
        "id": "msg_" + uuid.uuid4().hex[:12],
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": _anthropic_usage(reply),
    }
    if not reply.usage:
        del body["usage"]
    return body


def _anthropic_usage(reply: Reply) -> dict[str, int]:
    usage = {"input_tokens": reply.prompt_tokens, "output_tokens": reply.completion_tokens}
    if reply.cache_read_tokens or reply.cache_creation_tokens:
        usage["cache_read_input_tokens"] = reply.cache_read_tokens
        usage["cache_creation_input_tokens"] = reply.cache_creation_tokens
    return usage
