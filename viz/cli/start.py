"""`rxviz` alone: the home screen in a terminal, the usage text when piped.
"""

from __future__ import annotations

import argparse

from . import common, home


def run(args: argparse.Namespace) -> int:
    """`rxviz` alone: the home screen in a terminal, the usage text when piped."""
    if common.has_display():
        from viz.app import run_app

        return run_app()
    return home.run(args)
