"""Shared test settings.

On CI (CI=true) hypothesis runs derandomized: the same examples every run, so
a red build always means a change broke something, never that a new random
example turned up. Locally it explores freshly each run.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
