"""The machine records of a Sim, as the views get them (models.read: `Reading.rx`), for the view tests."""

from __future__ import annotations

from models.read import Event, RxData, reading_of


def from_sim(sim: object, follow: str | None = None, machine: str | None = None,
             earlier: tuple[Event, ...] = ()) -> RxData:
    return reading_of(sim).rx(follow, machine, earlier)
