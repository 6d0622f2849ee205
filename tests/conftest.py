"""Every test runs with rxviz's state, cache and runtime directories in a temporary directory.

The app saves progress (viz.progress) and a presenter publishes its notes
(viz.notes); no test may read or write the real home or runtime directory.
The CLI tests' subprocesses inherit the environment, so they are covered too.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path_factory, monkeypatch):
    base = tmp_path_factory.mktemp("rxviz-dirs")
    for name in ("STATE", "CACHE", "RUNTIME"):
        path = base / name.lower()
        path.mkdir()
        monkeypatch.setenv(f"RXVIZ_{name}_DIR", str(path))
    yield
