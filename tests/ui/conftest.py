"""Shared set-up for the UI tests: no animations, and the `slow` marker.

Textual reads TEXTUAL_ANIMATIONS when it is first imported, so it is set
here, before any test module imports it; the tests also set
`app.animation_level` on each app they build.
"""

from __future__ import annotations

import os

os.environ["TEXTUAL_ANIMATIONS"] = "none"


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "slow: plays whole lessons or many keys (seconds each)")

