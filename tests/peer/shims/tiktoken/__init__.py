"""tokenforge under tiktoken's import name: put this folder first on PYTHONPATH to run code (here
tiktoken's own test suite, tests/peer/test_tiktoken_suite.py) written for tiktoken."""
from tokenforge import Encoding, encoding_for_model, encoding_name_for_model, get_encoding, list_encoding_names  # noqa: F401
