"""Benchmark fixtures.  Run with:  pytest benchmarks --benchmark-only
(tests/ and benchmarks/ both run in CI, benchmarks with --benchmark-disable
so they execute once each and cannot rot)."""
