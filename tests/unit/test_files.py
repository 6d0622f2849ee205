"""Files rxviz writes (screenshots, handouts) and the Markdown it writes lesson text into.

Writes are whole or not at all and never through a symlink or into a directory others can
write to (viz/files.py); lesson text reaches a Markdown handout only re-written from its
tokens (viz/safe_md.py): no raw HTML, no remote image, no entity, no breaking out of a code span.
"""

from __future__ import annotations

import errno
import os
import stat

import pytest
from cli_message import message
from markdown_it import MarkdownIt

from viz import cli, files, safe_md


def test_a_write_replaces_the_file_whole(tmp_path):
    target = tmp_path / "a.svg"
    target.write_text("old")
    files.write(target, "new")
    assert target.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["a.svg"]
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask      # a handout is to be shared


def test_a_full_disk_leaves_the_old_file_and_no_part(tmp_path, monkeypatch):
    target = tmp_path / "a.svg"
    target.write_text("old")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError):
        files.write(target, "x" * 100_000)
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["a.svg"]


def test_never_through_a_symlink(tmp_path):
    precious = tmp_path / "precious"
    precious.write_text("keep")
    (tmp_path / "shot.svg").symlink_to(precious)
    with pytest.raises(files.Unsafe, match="is a symlink"):
        files.write(tmp_path / "shot.svg", "<svg/>")
    assert precious.read_text() == "keep"


def test_never_into_a_directory_others_can_write(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    with pytest.raises(files.Unsafe, match="can be written by other users and is not sticky"):
        files.write(shared / "x.svg", "<svg/>")
    with pytest.raises(files.Unsafe, match="can be written by every user"):
        files.own_dir(shared)
    os.chmod(shared, 0o1777)                       # sticky, as /tmp: nobody else can replace our file
    files.write(shared / "x.svg", "<svg/>")
    (tmp_path / "link").symlink_to(shared)
    with pytest.raises(files.Unsafe, match="is a symlink"):
        files.own_dir(tmp_path / "link")


@pytest.mark.skipif(os.getuid() != 0, reason="making a directory another user's needs root")
def test_never_into_a_directory_someone_else_prepared(tmp_path):
    d = tmp_path / "handout"
    d.mkdir()
    os.chown(d, 65534, 65534)
    with pytest.raises(files.Unsafe, match="belongs to another user"):
        files.own_dir(d)


def test_the_cli_refuses_before_computing(capsys, tmp_path):
    (tmp_path / "shot.svg").symlink_to(tmp_path / "elsewhere.svg")
    assert cli.main(["screenshot", "rx-basics", "-o", str(tmp_path / "shot.svg")]) == 2
    assert message(capsys.readouterr().err) == \
        f"rxviz: -o: {tmp_path / 'shot.svg'} is a symlink; rxviz does not write through one"
    assert not (tmp_path / "elsewhere.svg").exists()
    (tmp_path / "dir").symlink_to(tmp_path)
    assert cli.main(["export", "rx-basics", "-o", str(tmp_path / "dir")]) == 2
    assert message(capsys.readouterr().err).endswith("dir is a symlink; give the directory itself")


# -- lesson text in Markdown ----------------------------------------------------------------
def render(md: str) -> str:
    """As a renderer that lets raw HTML through would show it."""
    return MarkdownIt("commonmark").render(md)


@pytest.mark.parametrize("nasty", ["a`b", "``", "` x `", "</code><script>alert(1)</script>", "`" * 7 + "y",
                                   "<id@example.org>", " lead and trail ", "&#x202e;"])
def test_a_code_span_holds_anything(nasty):
    html = render(f"see {safe_md.code(nasty)} here")
    import html as h
    inner = h.unescape(html.split("<code>", 1)[1].split("</code>", 1)[0])
    assert html.count("<code>") == 1 and "<script" not in html
    assert inner.strip() == " ".join(nasty.split("\n")).strip()


def test_lesson_markdown_keeps_its_form_and_loses_its_html():
    src = ("Hello **bold** *em* `dma_map_single()` [kernel](https://kernel.org) [js](javascript:alert(1))\n"
           "![pixel](https://example.com/p.png) <img src=x onerror=alert(1)> &#x202e;rev &amp; &off\n\n"
           "- one\n- two\n\n```\ncode <b>x</b>\n```\n")
    md = safe_md.markdown(src)
    html = render(md)
    assert "<strong>bold</strong>" in html and "<em>em</em>" in html and "<code>dma_map_single()</code>" in html
    assert '<a href="https://kernel.org">kernel</a>' in html and "javascript" not in html.replace(
        "[js](javascript:alert(1))", "")
    assert "<img" not in html and "pixel" in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "\u202e" not in html and "\\u202erev" in html and "&amp; &amp;off" in html
    assert "<li>one</li>" in html and "<pre><code>code &lt;b&gt;x&lt;/b&gt;\n</code></pre>" in html


def test_a_line_of_lesson_text_never_starts_a_block():
    for text in ("# heading", "- item", "1. one", "> quote", "+ plus", "=== rule", "    indented"):
        html = render(safe_md.line(safe_md.text(text)))
        assert html.startswith("<p>") and html.count("<p>") == 1, (text, html)
