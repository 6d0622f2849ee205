"""The glossary (w): the terms the lessons use, in our own words, with where the kernel has each one.

Opened from a lesson, it lists first the terms the current step's text uses
(its title, what it says, its question and what it reveals once answered),
then every other term; the highlighted term's meaning and its kernel files
and functions are shown under the list. Opened with nothing on screen that
uses a term, it simply lists them all.

Terms come from `models.lesson.glossary` (a YAML file read as untrusted as
a lesson): every line here is built as Content from plain strings.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from models.lesson.glossary import Term, glossary, terms_in


def definition(term: Term) -> Content:
    """A term's entry: its names, what it means, where the kernel has it."""
    names = term.term + (f"  (also {', '.join(term.also)})" if term.also else "")
    return Content("\n").join([Content.styled(names, "bold $text-accent"), Content(term.means),
                               Content.assemble(("kernel: ", "bold"), (term.kernel, "$text-muted"))])


class GlossaryScreen(ModalScreen[None]):
    """The glossary; `text` is what is on screen now (its terms come first)."""

    BINDINGS = [Binding("escape,w,q", "close", "close", key_display="Esc")]
    DEFAULT_CSS = """
    GlossaryScreen {
        align: center middle;
        & > Vertical {
            width: 100;
            max-width: 100%;
            height: 90%;
            border: round $accent;
            border-title-color: $text-accent;
            background: $surface;
            padding: 0 1;
        }
        & #gl-terms { height: 1fr; min-height: 4; border: none; padding: 0; }
        & #gl-def { height: auto; max-height: 65%; padding: 0; border-top: solid $panel-lighten-1; }
        & #gl-head { color: $text-muted; }
    }
    """

    def __init__(self, text: str = "", where: str = "") -> None:
        super().__init__()
        self.terms = glossary()
        self.here = terms_in(text, self.terms) if text else []
        self.where = where

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = Content("glossary")
            head = (f"{len(self.here)} of the {len(self.terms)} terms are used {self.where}, listed first"
                    if self.here else f"{len(self.terms)} terms") + " · ↑↓ · Esc closes"
            yield Static(Content(head), id="gl-head")
            options: list[Option | None] = []
            if self.here:
                options += [Option(Content.styled(f"{t.term}", "bold"), id=f"h{i}") for i, t in enumerate(self.here)]
                options.append(None)
            rest = [t for t in self.terms if t not in self.here]
            options += [Option(Content(t.term), id=f"a{i}") for i, t in enumerate(rest)]
            self._order = self.here + rest
            yield OptionList(*options, id="gl-terms")
            yield Static(id="gl-def")

    def on_mount(self) -> None:
        terms = self.query_one(OptionList)
        terms.focus()
        if self._order:
            terms.highlighted = 0
            self._show(0)

    def _show(self, index: int) -> None:
        if 0 <= index < len(self._order):
            self.query_one("#gl-def", Static).update(definition(self._order[index]))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        oid = event.option.id or ""
        k = int(oid[1:]) + (0 if oid.startswith("h") else len(self.here))
        self._show(k)

    def action_close(self) -> None:
        self.dismiss(None)
