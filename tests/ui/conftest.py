"""Shared set-up for the UI tests: no animations, and the `slow` marker.

Textual reads TEXTUAL_ANIMATIONS when it is first imported, so it is set
here, before any test module imports it; the tests also set
`app.animation_level` on each app they build.
"""

from __future__ import annotations

import os

import pytest

os.environ["TEXTUAL_ANIMATIONS"] = "none"


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "slow: plays whole lessons or many keys (seconds each)")


@pytest.fixture(autouse=True)
def _fresh_page_pool_ids():
    """models.page_pool numbers pools with a process-wide counter, so "page_pool#N" on screen
    depends on how many Sims the process built before. Reset it so a snapshot does not depend
    on test order (remove once the model numbers pools per Sim)."""
    from models.page_pool import PagePool

    PagePool._next_id = 0
    yield
