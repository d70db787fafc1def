"""Test doubles for the test suite and the benchmarks; not part of the installed package.

`testing.loopback_server` is a scripted loopback HTTP server speaking the OpenAI and Anthropic protocols.
Importable from the repository root (pytest's `pythonpath`; the benchmarks run as modules from the root).
"""
