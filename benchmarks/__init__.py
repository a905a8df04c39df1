"""Benchmarks: each compares the toolkit against a baseline measured in the same run (a ratio),
because the machines they run on are shared and noisy."""
