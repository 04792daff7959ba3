"""polymask's pytest-benchmark suite, a package so its modules share benchmarks._support."""
