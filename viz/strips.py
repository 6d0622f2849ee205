"""One line of rich Text as a Textual Strip, the way every Line-API widget here draws it."""

from __future__ import annotations

from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual.strip import Strip


def text_strip(text: Text, width: int, base: Style, console: Console) -> Strip:
    """`text` padded to `width` (or cut with "…") over the widget's `base` style. Modifies `text`.

    The base goes under the text's own styles as a span: Text.render ignores
    Text.style on a line without spans, which left such lines in the
    terminal's default colours.
    """
    text.truncate(width, overflow="ellipsis", pad=True)
    text.stylize_before(base + console.get_style(text.style) if text.style else base)
    text.style = ""
    return Strip(text.render(console, end=""), width)
