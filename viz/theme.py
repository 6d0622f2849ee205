"""The presenter's theme: high contrast for a projector, every text colour at least 4.5:1.

A projector washes out dim grey on near-black and thin colours on grey panels.
This theme keeps the background black and the panels near-black, and sets every
text variable the app's styles use (`$text-*`, `$foreground-muted`, the
`-muted` backgrounds under code and warnings) to a colour whose WCAG contrast
ratio against every background it is drawn on is at least 4.5:1
(tests/ui/test_presenter.py, test_every_text_colour_of_the_presenter_theme_has_contrast,
computes it for every component style on screen).
Colours keep their meaning from the default theme: blue the device, yellow
in flight, green recycled, red dropped.
"""

from __future__ import annotations

from textual.theme import Theme

PRESENT = Theme(
    name="rxviz-present",
    primary="#5CB8FF",
    secondary="#C4A7FF",
    accent="#FFB340",
    warning="#FFD24A",
    error="#FF6B6B",
    success="#4ADE80",
    foreground="#FFFFFF",
    background="#000000",
    surface="#0A0A0A",
    panel="#141414",
    boost="#FFFFFF0A",
    dark=True,
    variables={
        "text-muted": "#C8C8C8",
        "foreground-muted": "#C8C8C8",
        "text-primary": "#7CC8FF",
        "text-secondary": "#D4BFFF",
        "text-accent": "#FFC266",
        "text-warning": "#FFE07A",
        "text-error": "#FF8A8A",
        "text-success": "#6EF09A",
        "warning-muted": "#2A2000",
        "accent-muted": "#3A2600",
        "error-muted": "#3A0A0A",
        "success-muted": "#0A2A14",
        "primary-muted": "#0A2438",
        "footer-key-foreground": "#FFC266",
        "footer-description-foreground": "#FFFFFF",
        "footer-background": "#141414",
        "block-cursor-background": "#FFB340",
        "block-cursor-foreground": "#000000",
        "block-cursor-text-style": "bold",
        "input-selection-background": "#1F4E79",
        "input-selection-foreground": "#FFFFFF",
        "screen-selection-background": "#1F4E79",
        "screen-selection-foreground": "#FFFFFF",
        "block-cursor-blurred-background": "#1F4E79",
        "block-cursor-blurred-foreground": "#FFFFFF",
    },
)


def luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg: tuple[int, int, int], bg: tuple[int, int, int]) -> float:
    """WCAG 2 contrast ratio, 1 to 21."""
    a, b = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)
