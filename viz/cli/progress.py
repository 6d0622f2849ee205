"""Progress while the model runs, for the commands that can take seconds.

rich's progress bar goes to stderr, and only when stderr is a terminal: a
pipe, a log file or a test gets nothing, so output stays byte for byte the
same. The model reports between chunks of frames or lesson steps (never
from inside a poll), and rich redraws on its own ten times a second, so a
report costs an assignment.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

Report = Callable[[int, int], None]      # (done, total), in frames or steps


@contextlib.contextmanager
def progress(label: str, console: Console | None = None, counted: bool = False) -> Iterator[Report | None]:
    """A report function while a bar is shown, or None when stderr is not a terminal.

    `counted` adds "done/total" beside the share, for work counted in whole runs.
    """
    from rich.console import Console  # noqa: F811  (at run time: rich only when a bar may be shown)

    err = console or Console(stderr=True)
    if not err.is_terminal:
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeRemainingColumn,
    )

    columns = [TextColumn("{task.description}"), BarColumn(bar_width=30), TaskProgressColumn(),
               *([MofNCompleteColumn()] if counted else []), TimeRemainingColumn()]
    bar = Progress(*columns, console=err, transient=True)
    with bar:
        task = bar.add_task(label, total=None)

        def report(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield report
