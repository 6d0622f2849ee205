"""`rxviz serve`: the player in a browser page, for a class.
"""

from __future__ import annotations

import argparse
import os

from ..messages import CliError, err
from .common import playable


def run(args: argparse.Namespace) -> int:
    """The player in a browser page; the lesson, if any, is checked before anything listens."""
    if args.lesson:
        playable(args.lesson, 0)
    from viz import serve
    if not serve.is_local(args.host):
        err(f"rxviz: warning: serving on {args.host}:{args.port}: anyone who can reach this address "
             f"can open the page and run lessons on this machine")
    try:
        serve.serve(args.lesson, args.host, args.port, args.public_url,
                    max_sessions=args.max_sessions or serve.MAX_SESSIONS, resume=args.resume)
    except OSError as e:
        why = e.strerror or (os.strerror(e.errno) if e.errno else str(e))
        raise CliError(f"serve: cannot listen on {args.host}:{args.port}: {why}", 2) from None
    return 0
