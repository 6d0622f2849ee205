"""Arrays of integers the hot path indexes: native int64 arrays compiled, plain lists interpreted.

Compiled by mypyc, a `vec[i64]` is a flat C array: reading or bumping an element
is a load and a store, with no boxed int and no generic item access. The
pure-Python model gets lists, which behave the same and cost nothing to build.
A vec does not pickle: whatever holds one carries it as a list in its state.
Its own module so that the lowest layers (the lifecycle tables, the recorder's
counters, the ring's descriptors) can all use it without importing each other.
"""

from __future__ import annotations

from typing import Final, cast

from librt.vecs import vec
from mypy_extensions import i64

COMPILED: Final = __file__.endswith(".so")


def counters(n: int) -> vec[i64]:
    """n zeroed counters."""
    return counters_from([0] * n)


def counters_from(values: list[int]) -> vec[i64]:
    if COMPILED:
        return vec[i64](values)
    return cast(vec[i64], list(values))
