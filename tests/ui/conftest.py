"""Shared set-up for the UI tests: no animations.

Textual reads TEXTUAL_ANIMATIONS when it is first imported, so it is set
here, before any test module imports it; the tests also set
`app.animation_level` on each app they build.
"""

from __future__ import annotations

import os

os.environ["TEXTUAL_ANIMATIONS"] = "none"
