"""`rxviz notes`: speaker notes following a presenter (viz/notes.py does the work).
"""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from ..notes import cmd_notes
    return cmd_notes(args)
