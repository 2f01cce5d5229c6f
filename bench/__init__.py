"""Benchmarks that print tables: `python -m bench.quick` (speed), more to come."""
