"""Parsing values as a person writes them: sizes, rates, times, booleans.

`8GiB`, `64MiB`, `2048`; `10Gbit`, `90Mbit/s`, `390Mbps`; `200us`, `40ms`, `1.5s`;
`true`, `off`, `yes`. Every parser raises ValueError with a sentence that says
what was expected, because these messages reach the user verbatim (the CLI's
`--set` and the lesson validator both print them).
"""

from __future__ import annotations

import re
from typing import SupportsFloat, SupportsIndex

_SIZE = {
    "": 1, "b": 1,
    "k": 1000, "kb": 1000, "m": 1000**2, "mb": 1000**2, "g": 1000**3, "gb": 1000**3,
    "t": 1000**4, "tb": 1000**4,
    "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}
_RATE = {
    "": 1, "bit": 1, "bps": 1, "bit/s": 1, "b/s": 1,
    "k": 10**3, "kbit": 10**3, "kbps": 10**3, "kbit/s": 10**3,
    "m": 10**6, "mbit": 10**6, "mbps": 10**6, "mbit/s": 10**6,
    "g": 10**9, "gbit": 10**9, "gbps": 10**9, "gbit/s": 10**9,
}
_TIME = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
_NUM = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-zµ/]*)\s*$")

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def _split(value: object, what: str) -> tuple[float, str]:
    if isinstance(value, bool):
        raise ValueError(f"expected {what}, got a boolean")
    if isinstance(value, (int, float)):
        return float(value), ""
    if not isinstance(value, str):
        raise ValueError(f"expected {what}, got {type(value).__name__}")
    m = _NUM.match(value)
    if not m:
        raise ValueError(f"expected {what}, got {value!r}")
    return float(m.group(1)), m.group(2).lower()


def parse_size(value: object) -> int:
    """Bytes from `8GiB`, `64MiB`, `4KiB`, `1500` (a bare number is bytes)."""
    what = "a size such as 8GiB, 64MiB or 2048"
    num, unit = _split(value, what)
    if unit not in _SIZE:
        raise ValueError(f"expected {what}, got unit {unit!r}")
    return int(num * _SIZE[unit])


def parse_rate(value: object) -> int:
    """Bits per second from `10Gbit`, `90Mbit/s`, `390Mbps`."""
    what = "a rate such as 10Gbit, 90Mbit/s or 390Mbps"
    num, unit = _split(value, what)
    if unit not in _RATE:
        raise ValueError(f"expected {what}, got unit {unit!r}")
    return int(num * _RATE[unit])


def parse_time(value: object) -> int:
    """Nanoseconds from `200us`, `40ms`, `1.5s`, `750ns` (a bare number is ns)."""
    what = "a time such as 200us, 40ms or 1.5s"
    num, unit = _split(value, what)
    if unit == "":
        return int(num)
    if unit not in _TIME:
        raise ValueError(f"expected {what}, got unit {unit!r}")
    return int(round(num * _TIME[unit]))


def parse_bool(value: object) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"expected true or false, got {value!r}")


def parse_int(value: object) -> int:
    if isinstance(value, bool):
        raise ValueError("expected a whole number, got a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"\s*-?[0-9]+\s*", value):
        return int(value)
    raise ValueError(f"expected a whole number, got {value!r}")


def parse_float(value: object) -> float:
    if isinstance(value, bool):
        raise ValueError("expected a number, got a boolean")
    if not isinstance(value, (str, bytes, SupportsFloat, SupportsIndex)):
        raise ValueError(f"expected a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"expected a number, got {value!r}") from None


def fmt_size(n: int) -> str:
    for unit, mult in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= mult and n % mult == 0:
            return f"{n // mult}{unit}"
    return f"{n}B"


def fmt_addr(addr: int) -> str:
    """A physical or bus address the way the kernel prints %pa (16 hex digits)."""
    return f"0x{addr:016x}"
