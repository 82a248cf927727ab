"""The DeepSeek chat-completions adapter (PROMPT-DEEPSEEK-WIRE, PROMPT-CACHE-E2E).

A sans-IO core — `wire` (request body, headers, message serialization), `sse` (bytes to
payloads), `translate` (payloads to stream chunks), `failures` (HTTP errors) — and `client`, the
async httpx adapter that moves the bytes, a `dsh_reference.model_adapter.ModelAdapter` that the
reference loop drives.
"""

from .client import DeepSeekAdapter
from .failures import error_code, http_failure, retry_after_ms
from .sse import SSEDecoder
from .translate import StreamReader, StreamTranslator, map_finish, map_usage, translate_stream
from .wire import (
    API_KEY_ENV,
    BASE_URL_ENV,
    DEFAULT_BASE_URL,
    chat_url,
    check_api_key,
    checked_key,
    encode_body,
    request_body,
    request_headers,
    wire_messages,
)

__all__ = [
    "API_KEY_ENV",
    "BASE_URL_ENV",
    "DEFAULT_BASE_URL",
    "DeepSeekAdapter",
    "SSEDecoder",
    "StreamReader",
    "StreamTranslator",
    "chat_url",
    "check_api_key",
    "checked_key",
    "encode_body",
    "error_code",
    "http_failure",
    "map_finish",
    "map_usage",
    "request_body",
    "request_headers",
    "retry_after_ms",
    "translate_stream",
    "wire_messages",
]
