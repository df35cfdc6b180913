"""Benchmarks that print figures: ``make bench`` (``python -m bench``). Never part of the tests."""
