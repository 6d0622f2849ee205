"""The simulation: pure Python, optionally compiled by mypyc (models/native.py decides which runs)."""

from .native import select as _select

__path__ = _select(list(__path__))
