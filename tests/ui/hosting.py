"""A one-view app for the view tests: the view fills the screen, nothing else is mounted."""

from __future__ import annotations

from textual.app import App, ComposeResult


class Host(App):
    """One view filling the screen."""

    def __init__(self, view_cls) -> None:
        super().__init__()
        self.view_cls = view_cls

    def compose(self) -> ComposeResult:
        yield self.view_cls()
