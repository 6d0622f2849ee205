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


class SVGText(SingleFileSnapshotExtension):
    """One .svg per snapshot, stored as text so a failing comparison shows a readable diff."""

    file_extension = "svg"
    _write_mode = WriteMode.TEXT


@pytest.fixture
def svg_snapshot(snapshot):
    return snapshot.use_extension(SVGText)
