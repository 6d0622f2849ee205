"""`rxviz graph`: a buffer lifecycle state machine as text, dot, Mermaid or JSON.
"""

from __future__ import annotations

import argparse

from ..messages import CliError


def run(args: argparse.Namespace) -> int:
    from models import lifecycle
    from models.lesson.schema import did_you_mean
    machines = lifecycle.MACHINES
    if not args.machine:
        width = max(map(len, machines))
        for name, (title, _, edges) in machines.items():
            print(f"{name:<{width}}  {title} ({len(edges)} transitions)")
        print("\nShow one with `rxviz graph MACHINE [--format text|dot|mermaid|json]`.")
        return 0
    if args.machine not in machines:
        raise CliError(f"unknown machine {args.machine!r}{did_you_mean(args.machine, machines)}; "
                       f"known machines are {', '.join(machines)}", 2)
    render = {"text": lifecycle.to_text, "dot": lifecycle.to_dot, "mermaid": lifecycle.to_mermaid,
              "json": lifecycle.to_json}[args.format]
    print(render(args.machine))
    return 0
