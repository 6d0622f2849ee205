"""Import every view module so each registers itself in `VIEW_CLASSES`.

The player asks `view_class(key)` for the widget of a view name; a view
whose module is missing or fails to import is replaced by `Unavailable`,
which says so in its box instead of taking the whole app down. That keeps
the app usable while a view is being written, and a broken view visible
(the import error is kept in `BROKEN` and shown in the box).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from rich.text import Text

from models.read import VIEWS

from . import VIEW_CLASSES
from .base import ModelView

BROKEN: dict[str, str] = {}      # view key -> why its module could not be imported


# The module of a view whose name is not its key's (the machine's views share a package).
MODULES = {"machine": "machine.view", "passport": "machine.passport"}


def _load() -> None:
    for key in VIEWS:
        module = f"{__package__}.{MODULES.get(key, key)}"
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                BROKEN[key] = f"{type(exc).__name__}: {exc}"
        except Exception as exc:   # a bug in one view must not stop the others
            BROKEN[key] = f"{type(exc).__name__}: {exc}"


class Unavailable(ModelView):
    """Stands in for a view that is not (yet) importable."""

    KEY = ""
    TITLE = ""

    def __init__(self, key: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.key = key

    def on_mount(self) -> None:
        self.border_title = self.key

    def render(self) -> Text:
        why = BROKEN.get(self.key, "")
        text = Text(f"view not available: {self.key}", style="italic")
        if why:
            text.append(f"\n{why}", style="dim")
        return text


def view_class(key: str) -> Callable[..., ModelView]:
    """The widget class for a view key; `Unavailable` (bound to the key) when there is none."""
    cls = VIEW_CLASSES.get(key)
    if cls is not None:
        return cls
    return lambda **kw: Unavailable(key, **kw)


_load()
