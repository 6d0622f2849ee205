"""The `rxviz` command line: viz/cli/main.py (entry point and exit codes), parser.py (argparse,
one subparser per command), common.py (argument types, loading a lesson), and one module per command
(run, trace, sweep, check, play, ...), each with a `run(args)` the parser binds. Its messages and
error type live below it, in viz/messages.py: nothing outside this package imports it."""

from .main import EXIT_BROKEN_PIPE, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_TERMINATED, main
from .parser import build_parser

__all__ = ["EXIT_BROKEN_PIPE", "EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_TERMINATED", "build_parser", "main"]
