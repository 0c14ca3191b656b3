"""Benchmarks of planning methods on episode files: running, scoring and failure analysis."""
