"""The sandbox (s): change any scenario parameter and run the lesson again from the current step.

Every parameter `rxviz run --set` takes is listed (models.params.PARAMS), with
the value the shown variant runs with, its meaning, its unit and the kernel's
or the model's limit. The user types `name=value` as on the command line
(`ram=2GiB`); each entry is parsed by the project's own parsers
(`models.runner.parse_sets`) and the whole scenario is checked for every
variant (`models.params.check`, through `check_variants`), so a value the
kernel would refuse is refused here with the same one-line reason. Enter on
an empty line re-runs; the player then shows what moved at this step.

Dismisses with the new set of changes (an empty dict: the lesson's own run),
or None when cancelled.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from models.lesson.schema import Lesson
from viz.param_text import written


def check(lesson: Lesson, sets: dict[str, Any], entry: str) -> tuple[dict[str, Any], str]:
    """`sets` with `entry` (`name=value`) added, or the unchanged sets and one line saying why not."""
    from models.runner import BadSetting, check_variants, parse_sets
    from models.scenario_checks import ScenarioError
    try:
        new = parse_sets([entry])
    except BadSetting as exc:
        return sets, str(exc).replace("--set ", "").replace("; `rxviz run --help` lists them", "")
    out = {**sets, **new}
    try:
        check_variants(lesson, lesson.variants, out)
    except ScenarioError as exc:
        return sets, " ".join(str(exc).split())
    return out, ""


class SandboxScreen(ModalScreen[dict[str, Any] | None]):
    """Pick parameters, give values, run."""

    BINDINGS = [
        Binding("escape", "cancel", "cancel"),
        Binding("ctrl+r", "run", "run from this step", priority=True),
        Binding("ctrl+x", "clear", "the lesson's own run", priority=True),    # over Input's cut
    ]
    DEFAULT_CSS = """
    SandboxScreen {
        align: center middle;
        & > Vertical {
            width: 100;
            max-width: 100%;
            height: 100%;
            max-height: 40;
            border: round $accent;
            border-title-color: $text-accent;
            background: $surface;
            padding: 0 1;
        }
        & #sb-help { color: $text-muted; height: auto; }
        & #sb-changes { height: auto; text-style: bold; }
        & #sb-error { color: $text-error; height: auto; }
        & #sb-params { height: 1fr; border: none; padding: 0; }
        & #sb-about { height: auto; max-height: 4; color: $text-muted; }
    }
    """

    def __init__(self, lesson: Lesson, sets: dict[str, Any], variant: str) -> None:
        super().__init__()
        self.lesson = lesson
        self.sets = dict(sets)
        self.variant = variant

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = f"sandbox · {self.lesson.id} · values of {self.variant}"
            yield Static(Content("Type name=value as on the command line (ram=2GiB, iommu=strict) and press "
                                 "Enter; Enter on an empty line runs the lesson again from this step with "
                                 "the changes. Pick a parameter below to start from its value."),
                         id="sb-help", markup=False)
            yield Input(placeholder="name=value", id="sb-input", compact=True)
            yield Static(id="sb-error", markup=False)
            yield Static(id="sb-changes", markup=False)
            yield OptionList(*self._options(), id="sb-params")
            yield Static(id="sb-about", markup=False)
        yield Footer()

    def current(self, name: str) -> Any:
        from models.params import PARAMS, full
        if name in self.sets:
            return self.sets[name]
        return full(self.lesson.params_for(self.variant)).get(name, PARAMS[name].default)

    def _options(self) -> list[Option]:
        from models.params import PARAMS
        out = []
        for name, p in PARAMS.items():
            value = self.current(name)
            mark = " *" if name in self.sets else ""
            unit = f" {p.unit}" if p.unit and p.unit not in ("bytes", "bit/s", "ns") else ""
            out.append(Option(Content.assemble((f"{name:<24}", "bold"), f"{written(name, value)}{unit}{mark}"),
                              id=name))
        return out

    def on_mount(self) -> None:
        self.query_one(Input).cursor_blink = not self.app.is_headless    # snapshots: no blink phase
        self._changes()
        self.query_one(Input).focus()

    def _changes(self) -> None:
        text = ("changes: " + ", ".join(f"{k}={written(k, v)}" for k, v in self.sets.items())
                if self.sets else "no changes: the lesson's own scenario")
        self.query_one("#sb-changes", Static).update(text)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        from models.params import PARAMS
        p = PARAMS.get(event.option.id or "")
        if p is not None:
            unit = f" · unit: {p.unit}" if p.unit else ""
            self.query_one("#sb-about", Static).update(f"{p.name}: {p.describe()}{unit}")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        name = event.option.id or ""
        field = self.query_one(Input)
        field.value = f"{name}={written(name, self.current(name))}"
        field.cursor_position = len(field.value)
        field.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        entry = event.value.strip()
        error = self.query_one("#sb-error", Static)
        if not entry:
            self.action_run()
            return
        self.sets, why = check(self.lesson, self.sets, entry)
        error.update(why)
        if not why:
            event.input.value = ""
            self._changes()
            params = self.query_one(OptionList)
            keep = params.highlighted
            params.clear_options()
            params.add_options(self._options())
            params.highlighted = keep

    def action_run(self) -> None:
        self.dismiss(self.sets)

    def action_clear(self) -> None:
        self.dismiss({})

    def action_cancel(self) -> None:
        self.dismiss(None)
