"""Where the tests' files are: the checkout, its tests and their recorded data."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
ROOT = TESTS.parent
