"""Every test runs with rxviz's state and runtime directories in a temporary directory.

The app saves progress (viz.progress) and a presenter publishes its notes
(viz.notes); no test may read or write the real home or runtime directory.
The CLI tests' subprocesses inherit the environment, so they are covered too.

It also sorts the suites: `make test` runs what is not `slow`, `property` or
`snapshot` (a working day's loop, under 90 s on two cores); `make test-all`
(CI) runs everything. Property tests (hypothesis) and SVG snapshots (syrupy)
are marked here, from what they are, so a new one cannot slip into the fast
set by forgetting a decorator; `slow` is marked by hand where a test is.
"""

from __future__ import annotations

import itertools

import pytest

_TEST_NO = itertools.count()


def pytest_configure(config):
    # RXVIZ_MODEL=compiled (CI's compiled leg) must run the compiled model, never pure Python by accident.
    from models import native
    if native.PROBLEM:
        pytest.exit(f"rxviz: {native.PROBLEM}", returncode=2)


@pytest.fixture(scope="session")
def _dirs_base(tmp_path_factory):
    return tmp_path_factory.mktemp("rxviz-dirs")


@pytest.fixture(autouse=True)
def _private_dirs(_dirs_base, monkeypatch):
    # Each test gets its own paths, created only when rxviz writes there (as on a fresh machine):
    # making two empty directories for each of a thousand tests, and pytest deleting them again
    # a few runs later, cost seconds of every run.
    base = _dirs_base / str(next(_TEST_NO))
    for name in ("STATE", "RUNTIME"):
        monkeypatch.setenv(f"RXVIZ_{name}_DIR", str(base / name.lower()))
    yield


@pytest.hookimpl(tryfirst=True)       # before -m deselects by these marks
def pytest_collection_modifyitems(config, items):
    for item in items:
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.property)
        if "snapshot" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.snapshot)
