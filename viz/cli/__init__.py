"""The `rxviz` command line: viz/cli/main.py (entry point and exit codes), parser.py (argparse,
one subparser per command), common.py (errors, messages, loading), and one module per command
(run, trace, sweep, check, play, ...), each with a `run(args)` the parser binds."""

from .main import EXIT_BROKEN_PIPE, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_TERMINATED, main
from .parser import build_parser

__all__ = ["EXIT_BROKEN_PIPE", "EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_TERMINATED", "build_parser", "main"]
