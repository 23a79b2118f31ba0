"""Benchmarks: the search (`make bench`) and the web tier (`make bench-http`); results in bench/results/."""
