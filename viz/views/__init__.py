"""The views of a lesson's model state, one module each, all drawn from the records of the read API (models/read.py).

`VIEW_CLASSES` maps the view names lessons use (models.calls.VIEWS) to widgets.
"""

from __future__ import annotations

from .base import ModelView

VIEW_CLASSES: dict[str, type[ModelView]] = {}


def register(cls: type[ModelView]) -> type[ModelView]:
    VIEW_CLASSES[cls.KEY] = cls
    return cls
