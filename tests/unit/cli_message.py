"""The shape of an rxviz message on stderr, shared by the CLI tests (not a test module itself).

A message is a first line that starts with "rxviz: " and says what was wrong,
then, when the rest does not fit in 80 columns, lines indented by two spaces
(viz/messages.py). No line is wider than 80 columns unless it is a single
word too long for any line (a path), and nothing is a traceback.
"""

from __future__ import annotations

WIDTH = 80


def too_wide(line: str) -> bool:
    words = line.strip().removeprefix("rxviz: ").split(" ")
    return len(line) > WIDTH and len(words) > 1


def messages(err: str) -> list[str]:
    """Every message on stderr, each joined back into one line; fails on a bad shape."""
    assert err.endswith("\n") and "Traceback" not in err, err
    out: list[str] = []
    for line in err[:-1].split("\n"):
        assert not too_wide(line) and line == line.rstrip(), f"{len(line)} columns: {line!r}"
        if line.startswith("rxviz: ") or line and not line[0].isspace():
            out.append(line)
        else:
            assert out and line.startswith("  ") and not line.startswith("   "), err
            out[-1] += " " + line.strip()
    return out


def message(err: str) -> str:
    """stderr holds exactly one rxviz message: returns it joined into one line."""
    (one,) = messages(err)
    assert one.startswith("rxviz: "), err
    return one
