"""`rxviz export`: a handout page with an SVG of the player at every step.

The handout must hold the patch, every step's text and screen, the questions
where the player asks them with the answers only at the end, and the
paper-vs-model table; an HTML handout must carry no markup from the lesson.
The SVGs must keep their spacing in librsvg, not only in browsers.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from models.lesson import load_lesson
from viz import cli
from viz.screenshot import portable

DEMO = Path(__file__).resolve().parents[1] / "data" / "lessons" / "handout-demo.yaml"


@pytest.fixture(scope="module")
def handouts(tmp_path_factory):
    """Both formats of the demo lesson, exported once for every test here."""
    out = {}
    for fmt in ("md", "html"):
        d = tmp_path_factory.mktemp(fmt)
        assert cli.main(["export", str(DEMO), "--format", fmt, "-o", str(d)]) == 0
        out[fmt] = d
    return out


@pytest.mark.slow
def test_the_page_has_every_step_its_screen_and_the_answers_last(handouts):
    lesson = load_lesson(DEMO)
    d = handouts["md"]
    md = (d / "index.md").read_text()
    assert sorted(p.name for p in d.glob("*.svg")) == [f"step-{k:02d}.svg" for k in range(len(lesson.steps) + 1)]
    for k, step in enumerate(lesson.steps, 1):
        assert f"## Step {k}: {step.title}" in md and f"(step-{k:02d}.svg)" in md
    asked, answers = md.index("How many times is a buffer mapped"), md.index("## Questions and answers")
    assert asked < answers and "Answer: 1. once per frame" in md[answers:]
    assert "Answer:" not in md[:answers]                            # never before the end
    assert "Message-ID `<20240501.1@example.org>`" in md and "RX\\_buffers" in md
    assert "A second line of the same paragraph." in md and "8 GiB, no IOMMU.  \n" in md
    table = md[md.index("## Paper vs model"):]
    assert re.search(r"^\| paper \| 17\.5 \| 17\.0 \|$", table, re.M)
    assert re.search(r"^\| model \| [0-9.,]+ \| [0-9.,]+ \|$", table, re.M)
    assert "within tolerance:" in table and "fitted: stack\\_skb\\_ns" in table


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


@pytest.mark.slow
def test_html_carries_no_markup_from_the_lesson(handouts):
    page = (handouts["html"] / "index.html").read_text()
    parser = _Tags()
    parser.feed(page)
    tags = {t for t, _ in parser.tags}
    assert "script" not in tags and "b" not in tags
    assert not any(a.get("href", "").startswith("javascript") for _, a in parser.tags)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;b&gt;instead&lt;/b&gt;" in page
    imgs = [a["src"] for t, a in parser.tags if t == "img"]
    assert imgs == [f"step-{k:02d}.svg" for k in range(3)]
    assert '<a href="https://example.org/patch">' in page


@pytest.mark.slow
def test_each_svg_keeps_its_spaces(handouts):
    for svg in handouts["md"].glob("*.svg"):
        head = svg.read_text().split(">", 1)[0]
        assert head.startswith("<svg ") and 'xml:space="preserve"' in head
    assert portable(portable("<svg a>")) == '<svg xml:space="preserve" a>'


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="rsvg-convert (Debian librsvg2-bin) is not installed")
async def test_rsvg_draws_the_space_after_a_styled_word(tmp_path):
    """'X' bold then ' Y': Textual writes the second run as '&#160;Y', which librsvg used to strip."""
    from PIL import Image
    from rich.text import Text
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class One(App):
        CSS = "Screen { background: black; } Static { color: white; }"

        def compose(self) -> ComposeResult:
            yield Static(Text.assemble(("X", "bold"), " Y"))

    app = One()
    async with app.run_test(size=(10, 2)):
        svg = portable(app.export_screenshot())
    (tmp_path / "s.svg").write_text(svg)
    subprocess.run(["rsvg-convert", str(tmp_path / "s.svg"), "-o", str(tmp_path / "s.png")], check=True)
    img = Image.open(tmp_path / "s.png").convert("L")
    cell = float(re.search(r'textLength="([0-9.]+)"', svg).group(1))       # the one-cell run "X"
    # The last translate is the terminal's origin (the first places the window's buttons).
    left, top = map(float, re.findall(r'<g transform="translate\(([0-9.]+), ?([0-9.]+)\)"', svg)[-1])
    right_of_x = range(int(left + cell), int(left + 5 * cell))
    ink = [x for x in right_of_x if any(img.getpixel((x, y)) > 128 for y in range(int(top), int(top + cell * 2)))]
    # Y belongs in the third cell; with the space stripped it was drawn in the second.
    assert ink and (min(ink) - left) / cell > 1.5, (min(ink), left, cell)
