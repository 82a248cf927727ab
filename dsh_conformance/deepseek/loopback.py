"""A scripted HTTP server on 127.0.0.1 for the ``deepseek-http`` capability.

Each request the implementation sends is recorded (method, path, lower-cased headers, body bytes)
and answered with the next scripted response: a status, headers, and a body written in the given
parts, each flushed on its own, after which the connection closes (the body is delimited by the
close, so a body without ``[DONE]`` ends cleanly; or by an announced ``content-length``, which a
response may leave short to close the connection mid-body). When the script is exhausted the
answer is ``500 mock script exhausted``, as the upstream's mock server does. It binds 127.0.0.1 only
and lives for one case. A header value may be a function, called when the response is written: a
`Retry-After` date measured from that moment (`day_ahead`) reaches the adapter a moment later.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Final

#: The pause after each flushed part, so that the parts tend to arrive as separate reads.
_PART_PAUSE_S: Final = 0.002


@dataclass(frozen=True)
class Scripted:
    """A response. ``content_length``, when given, is announced although the parts may hold
    fewer bytes: the connection then closes mid-body, as a dropped connection does."""

    status: int = 200
    headers: tuple[tuple[str, str | Callable[[], str]], ...] = (
        ("content-type", "text/event-stream"),
    )
    parts: tuple[bytes, ...] = ()
    content_length: int | None = None


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class _Script:
    responses: list[Scripted]
    recorded: list[Recorded] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, request: Recorded) -> Scripted:
        with self.lock:
            self.recorded.append(request)
            if self.responses:
                return self.responses.pop(0)
        return Scripted(500, (("content-type", "text/plain"),), (b"mock script exhausted",))


def day_ahead() -> str:
    """An IMF-fixdate one day after the next whole second of this machine's clock, as an HTTP
    date is written (whole seconds): measured by an adapter on the same clock a moment later,
    it lies between one day and one day and one second ahead."""
    return formatdate(math.ceil(time.time()) + 86_400, usegmt=True)


class LoopbackServer:
    """``with LoopbackServer(responses) as server:`` serves at ``server.base_url``."""

    def __init__(self, responses: list[Scripted]) -> None:
        self._script = _Script(list(responses))
        script = self._script

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                recorded = Recorded(
                    self.command,
                    self.path,
                    {name.lower(): value for name, value in self.headers.items()},
                    self._body(),
                )
                self._answer(script.take(recorded))

            def _body(self) -> bytes:
                if self.headers.get("transfer-encoding", "").lower() == "chunked":
                    body = bytearray()
                    while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                        body += self.rfile.read(size)
                        self.rfile.readline()
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(body)
                return self.rfile.read(int(self.headers.get("content-length") or 0))

            def _answer(self, scripted: Scripted) -> None:
                self.send_response(scripted.status)
                for name, value in scripted.headers:
                    self.send_header(name, value if isinstance(value, str) else value())
                if scripted.content_length is not None:
                    self.send_header("content-length", str(scripted.content_length))
                self.send_header("connection", "close")
                self.end_headers()
                for part in scripted.parts:
                    self.wfile.write(part)
                    self.wfile.flush()
                    time.sleep(_PART_PAUSE_S)
                self.close_connection = True

            def log_message(self, format: str, *args: object) -> None:
                """Quiet: the suite reports what it recorded, not an access log."""

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.002}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def recorded(self) -> list[Recorded]:
        with self._script.lock:
            return list(self._script.recorded)

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def allow_loopback_sockets() -> None:
    """The project's own test run forbids sockets (pytest-socket); a test that runs this server
    may reach 127.0.0.1, and nothing else, until it ends. Without pytest-socket
    (``dsh-conformance``) there is nothing to lift."""
    try:
        import pytest_socket
    except ImportError:
        return
    pytest_socket.enable_socket()
    pytest_socket.socket_allow_hosts(["127.0.0.1"], allow_unix_socket=True)
