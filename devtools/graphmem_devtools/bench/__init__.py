"""Benchmarks that print figures and write results files (never timed assertions in tests)."""

from .common import BenchResult, machine_info, percentiles, write_results
from .store import run_store_bench

__all__ = ["BenchResult", "machine_info", "percentiles", "run_store_bench", "write_results"]
