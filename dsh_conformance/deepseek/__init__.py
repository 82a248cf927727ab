"""The DeepSeek loopback server and what it serves (capability ``deepseek-http``, PROMPT-CACHE-E2E).

`loopback` is a small HTTP server on 127.0.0.1 that records what it receives; `deepseek_http`
holds the cases that run through it; `cache_conversation` is the multi-turn conversation of the
cache tests. Imports `cases`, `judge` and `scenarios`.
"""
