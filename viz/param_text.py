"""A scenario parameter's value written the way a person types it for `--set` (and the sandbox)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from models.params import Param


def spell(param: Param, v: object) -> str:  # noqa: C901 (older than the complexity rule)
    """A parameter's value written the way a person would type it for --set (the sandbox too).

    Sizes, rates and times are stored as plain integers; the candidate
    spelling is kept only if the parameter's own parser reads it back to the
    same value, so `ram` shows 16GiB while `ring_size` stays 256.
    """
    if v is None:
        return ""
    if isinstance(v, bool):
        return typed(v)
    if isinstance(v, int) and v > 0:
        from models.units import fmt_size
        candidates = [fmt_size(v)] if v >= 1024 else []
        for div, unit in ((10**9, "Gbit"), (10**6, "Mbit"), (10**3, "kbit")):
            if v % div == 0:
                candidates.append(f"{v // div}{unit}")
        for div, unit in ((10**9, "s"), (10**6, "ms"), (10**3, "us")):
            if v % div == 0:
                candidates.append(f"{v // div}{unit}")
        for text in candidates:
            try:
                if param.parse(text) == v:
                    return text
            except ValueError:
                continue
    return str(v)


def typed(value: object) -> str:
    """A value as `--set` reads it back: booleans are true/false, not Python's True/False."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def written(name: str, value: object) -> str:
    """A value of the parameter called `name` as `--set` reads it back."""
    from models.params import PARAMS
    return spell(PARAMS[name], value) if name in PARAMS else str(value)
