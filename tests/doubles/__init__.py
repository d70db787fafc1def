"""Test doubles for the test suite and the benchmarks; not part of the installed package.

`tests.doubles.loopback_server` is a scripted loopback HTTP server speaking the OpenAI and Anthropic protocols.
Importable from the repository root (pytest's rootdir; the benchmarks run as modules from the root). It imports
nothing of the project (`tests/core/test_import_layers.py`).
"""
