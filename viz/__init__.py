"""rxviz's front ends: the Textual app (`viz.app`) and the command line (`viz.cli`).

`viz.make_app` and `viz.run_app` are loaded on first use, so the command line
starts without importing Textual.
"""

from __future__ import annotations


def __getattr__(name: str) -> object:
    if name in ("make_app", "run_app"):
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module 'viz' has no attribute {name!r}")
