"""Shared set-up for the UI tests: no animations; SVG snapshots one file each, as text.

Textual reads TEXTUAL_ANIMATIONS when it is first imported, so it is set
here, before any test module imports it; the tests also set
`app.animation_level` on each app they build.
"""

from __future__ import annotations

import os

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

os.environ["TEXTUAL_ANIMATIONS"] = "none"


def _parse_css_once_per_process() -> None:
    """Every app the tests build parses the same CSS (app.tcss, every widget's DEFAULT_CSS) with the
    same theme variables into the same rules: about 50 ms of CPU an app, 5% of the UI tests. Textual
    keeps parsed rules per Stylesheet, and each app has its own; here one process keeps them for all
    its apps, keyed by everything the parse reads (the text, where it came from, default or user CSS,
    tie-breaker, scope and the variables' values). The rules are read-only once parsed (apply reads
    their selectors and styles), so a shared copy styles every app exactly as its own would."""
    from textual.css.stylesheet import Stylesheet

    parse = Stylesheet._parse_rules
    parsed: dict[tuple[object, ...], object] = {}

    def parse_rules(self, css, read_from, is_default_rules=False, tie_breaker=0, scope=""):
        key = (css, read_from, is_default_rules, tie_breaker, scope, tuple(self._variables.items()))
        got = parsed.get(key)
        if got is None:
            got = parsed[key] = parse(self, css, read_from, is_default_rules, tie_breaker, scope)
        return got

    Stylesheet._parse_rules = parse_rules


_parse_css_once_per_process()


def pytest_configure(config):
    config.addinivalue_line("markers", "ahead: the player computes ahead when idle, as it does for a reader")


@pytest.fixture(autouse=True)
def _no_computing_ahead(request, monkeypatch):
    """The player computes ahead whenever its worker is idle, and `settle` waits for an idle worker:
    every app a test opens would run its lesson's end and the variants behind each jump, which
    few tests look at (a fifth of the UI tests' CPU). Those that do are marked `ahead`."""
    if request.node.get_closest_marker("ahead") is None:
        from viz.step_queue import StepQueue
        monkeypatch.setattr(StepQueue, "ahead", False)


class SVGText(SingleFileSnapshotExtension):
    """One .svg per snapshot, stored as text so a failing comparison shows a readable diff."""

    file_extension = "svg"
    _write_mode = WriteMode.TEXT


@pytest.fixture
def svg_snapshot(snapshot):
    return snapshot.use_extension(SVGText)
