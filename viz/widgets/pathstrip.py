"""The RX path strip: where a frame is on its way up, the stage of the current kernel call lit.

    RX path  NIC → ring → DMA → no IOMMU → no SWIOTLB → IRQ → [NAPI poll] → skb → GRO → stack → socket → free

What the path is, which stage each kernel call belongs to and which stages a
variant skips or replaces is the model's knowledge (models/records/path.py:
`STAGES`, `STAGE_OF`, `stages(facts)`); the facts come from the variant's
read API (`ViewState.read.path()`), never the model itself. This widget only
draws them.

One line at 80 columns (short names); at 160 the long ones. In compare
mode, one line per variant when the screen has the rows.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.reactive import reactive

from models.read import STAGE_OF, PathFacts, stages
from viz.component_styles import KeptComponentStyles
from viz.views.base import ViewState

Look = tuple[str, str | None, PathFacts]     # a variant, the stage lit, its path


def _look(st: ViewState) -> Look:
    """All a variant's line depends on: its name, the stage lit (the current call's) and its path."""
    call, facts = st.read.path()
    return st.variant, STAGE_OF.get(call.call) if call is not None else None, facts


def _looks(states: tuple[ViewState, ...]) -> tuple[Look, ...]:
    return tuple(_look(st) for st in states)


class PathStrip(KeptComponentStyles):
    """One line per variant shown: the RX path with the current call's stage lit."""

    COMPONENT_CLASSES = {"pathstrip--label", "pathstrip--on", "pathstrip--lit", "pathstrip--skipped",
                         "pathstrip--struck", "pathstrip--instead", "pathstrip--sep", "pathstrip--variant"}
    DEFAULT_CSS = """
    PathStrip {
        height: auto;
        padding: 0 1;
        background: $boost;
        & > .pathstrip--label { color: $foreground-muted; }
        & > .pathstrip--on { color: $foreground; }
        & > .pathstrip--lit { color: $accent; text-style: bold reverse; }
        & > .pathstrip--skipped { color: $foreground-muted; text-style: italic; }
        & > .pathstrip--struck { color: $foreground-muted; text-style: strike; }
        & > .pathstrip--instead { color: $text-secondary; text-style: italic; }
        & > .pathstrip--sep { color: $foreground-muted; }
        & > .pathstrip--variant { color: $text-primary; text-style: bold; }
    }
    """

    states: reactive[tuple[ViewState, ...]] = reactive((), always_update=True, repaint=False)
    _drawn: tuple[Look, ...] = ()          # what the strip shows now: `_looks` of the states it drew

    def watch_states(self, old: tuple[ViewState, ...], new: tuple[ViewState, ...]) -> None:
        # Most steps light the same stage of the same path: then there is nothing to repaint. The
        # strip's height (one line per variant) is all a layout pass could change.
        if len(old) != len(new):
            self.refresh(layout=True)
        elif _looks(new) != self._drawn:
            self.refresh()

    def _s(self, name: str) -> Style:
        return self.get_component_rich_style(f"pathstrip--{name}", partial=True)

    def line(self, look: tuple[str, str | None, PathFacts], width: int, prefix: str = "") -> Text:
        _, lit, facts = look
        path = stages(facts)
        # Long names ("no IOMMU", skipped ones in italics), else the short ones (skipped ones struck
        # through: "no" does not fit), with ever tighter separators; the DMA stages may be one group.
        forms = ((True, " → ", "RX path  ", " → "), (True, " → ", "", " → "), (True, " › ", "", " › "),
                 (False, " › ", "", " › "), (False, " › ", "", "/"), (False, "›", "", "›"))
        for long, sep, head, dma_sep in forms:
            text = Text(no_wrap=True, end="")
            if prefix:
                text.append(f"{prefix}  ", self._s("variant"))
            text.append(head, self._s("label"))
            for i, stage in enumerate(path):
                if i:
                    text.append(dma_sep if stage.key in ("iommu", "swiotlb") else sep, self._s("sep"))
                name = stage.label if long else stage.short
                style = "lit" if stage.key == lit else stage.status if stage.status != "on" else "on"
                if style == "skipped" and not long:
                    style = "struck"
                drawn = self._s(style)
                if style == "lit" and stage.status == "skipped" and not long:
                    drawn += Style(strike=True)      # a call of a stage the variant skips (GRO off): still "no"
                text.append(name, drawn)
            if cell_len(text.plain) <= width:
                return text
        text.truncate(width, overflow="ellipsis")
        return text

    def render(self) -> Text:
        width = max(1, self.content_size.width)
        states = self.states
        self._drawn = looks = _looks(states)
        if not states:
            return Text("")
        out = Text(no_wrap=True, end="")
        pad = max(len(st.variant) for st in states)
        for i, (st, look) in enumerate(zip(states, looks, strict=True)):
            if i:
                out.append("\n")
            out.append_text(self.line(look, width, st.variant.ljust(pad) if len(states) > 1 else ""))
        return out
