"""Benchmark scripts (see README.md); a package so that `benchmarks.common` imports from any working dir."""
