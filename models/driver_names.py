"""The model's own drivers (models/drivers/), by the name a lesson variant runs one with (`runs:`).

A leaf: the lesson validator checks a name against this list without importing
the drivers (or the model they run on).
"""

from __future__ import annotations

from typing import Final

DRIVERS: Final = ("rx_basics", "atlantic", "bgmac", "ath11k", "dma_bugs")
