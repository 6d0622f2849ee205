"""Textual's command palette, safe to remove while it is still searching.

A terminal delivers a typed word at once: ctrl+p, a letter, then a key the screen under the
palette binds (escape: back to the lessons) can take the palette off the screen stack while
its search worker is still gathering hits. Textual's palette then looks up its option list,
which is gone, and the worker's NoMatches ends the app with a traceback (found by the random
key test, tests/ui/test_keys_property.py). Here the search is cancelled when the palette is
taken down, and what the worker touches afterwards is skipped once its parts are gone.
"""

from __future__ import annotations

from textual import work
from textual.command import CommandList, CommandPalette


class SafePalette(CommandPalette):
    def _parts_gone(self) -> bool:
        return not self.is_attached or not self.query(CommandList)

    # The search worker itself may start after the palette's parts are gone (ctrl+p then escape in
    # one burst): its first act is to look up the option list. The worker Textual declares is kept
    # (same group, exclusive); its body runs only while the parts are there.
    @work(exclusive=True, group=CommandPalette._GATHER_COMMANDS_GROUP)
    async def _gather_commands(self, search_value: str) -> None:
        if not self._parts_gone():
            await CommandPalette._gather_commands.__wrapped__(self, search_value)  # type: ignore[attr-defined]

    def _watch__list_visible(self) -> None:
        if not self._parts_gone():
            super()._watch__list_visible()

    async def _watch__show_busy(self) -> None:
        if not self._parts_gone():
            await super()._watch__show_busy()

    def _refresh_command_list(self, command_list, commands, clear_current) -> None:  # type: ignore[no-untyped-def]
        if not self._parts_gone():
            super()._refresh_command_list(command_list, commands, clear_current)

    async def _on_unmount(self) -> None:  # type: ignore[override]
        self._cancel_gather_commands()
        await super()._on_unmount()
