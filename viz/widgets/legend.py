"""One line that says what the colours mean, in the current theme's own colours.

Every view repeats its letters and glyphs in its own one-line legend; this
line gives the shared meaning of the colours across views, so a newcomer
reads a yellow cell in the ring and a yellow page in the pool the same way.
Colour is never the only cue: each entry names the letters the views use.
"""

from __future__ import annotations

from rich.text import Text

from viz.component_styles import KeptComponentStyles

# (component class, swatch text, meaning, longer meaning for help): the theme variables views use.
ENTRIES = (
    ("primary", "D", "device owns", "the device owns it (posted to the ring, mapped for DMA)"),
    ("warning", "F", "filled / in flight", "filled by the device, in flight, or bounced through SWIOTLB"),
    ("secondary", "C", "CPU owns", "the CPU owns it (unmapped or synced for the CPU)"),
    ("success", "R", "recycled / fine", "recycled (page_pool, NAPI cache), mapped directly, nothing wrong"),
    ("error", "!", "dropped / violation", "dropped, or a rule the DMA-API checker reports as broken"),
    ("accent", "▲", "head / tail / now", "the ring's head and tail, the current line or object"),
)


class Legend(KeptComponentStyles):
    """The colour legend, one line (it truncates rather than wraps)."""

    COMPONENT_CLASSES = {f"legend--{entry[0]}" for entry in ENTRIES} | {"legend--label"}
    DEFAULT_CSS = """
    /* Component colours are real colours ($foreground-muted, not $text-muted): an `auto`
       colour in a component style is resolved without the widget's background. */
    Legend {
        height: 1;
        padding: 0 1;
        color: $text-muted;
        & > .legend--primary { color: $text-primary; text-style: bold; }
        & > .legend--warning { color: $text-warning; text-style: bold; }
        & > .legend--secondary { color: $text-secondary; text-style: bold; }
        & > .legend--success { color: $text-success; text-style: bold; }
        & > .legend--error { color: $text-error; text-style: bold; }
        & > .legend--accent { color: $text-accent; text-style: bold; }
        & > .legend--label { color: $foreground-muted; }
    }
    """

    def entries(self) -> list[Text]:
        out = []
        for name, glyph, meaning, _ in ENTRIES:
            item = Text()
            item.append(f"■{glyph}", self.get_component_rich_style(f"legend--{name}", partial=True))
            item.append(f" {meaning}")
            out.append(item)
        return out

    def lines(self, width: int) -> Text:
        """The entries packed into lines of `width`; an entry is never split."""
        out = Text()
        out.append("colours: ", style=self.get_component_rich_style("legend--label", partial=True))
        used = len(out.plain)
        for item in self.entries():
            need = len(item.plain) + (2 if used else 0)
            if used and used + need > width:
                out.append("\n")
                used, need = 0, len(item.plain)
            elif used:
                out.append("  ")
            out.append_text(item)
            used += need
        return out

    def render(self) -> Text:
        """One line, truncated; several when the layout gives the legend an auto height."""
        width = max(1, self.content_size.width)
        if self.styles.height is not None and self.styles.height.is_auto:
            return self.lines(width)
        text = self.lines(10_000)
        text.truncate(width, overflow="ellipsis")
        return text
