"""Shared pytest setup: make `ascend_dcn` importable from a source checkout when it is not installed."""
import os
import sys

try:
    import ascend_dcn  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
