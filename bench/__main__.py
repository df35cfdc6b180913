"""Run every benchmark and print its figures: ``python -m bench [--quick]``."""

import sys

from bench import catalogue

if __name__ == "__main__":
    catalogue.main(quick="--quick" in sys.argv)
