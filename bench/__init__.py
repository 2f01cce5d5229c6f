"""Benchmarks that print tables: `python -m bench.speed` (speed), `python -m bench.locomo` (recall quality)."""
