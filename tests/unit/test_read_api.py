"""The views' read API (models.read) hands out records, never a part of the model a view could reach into."""

from __future__ import annotations

import dataclasses
import inspect

from shipped import shipped_lesson

import models.read as read
from models.replay import LessonRun


def _is_record(cls: type) -> bool:
    """A frozen dataclass or a NamedTuple: plain data, fixed once built."""
    if dataclasses.is_dataclass(cls):
        return bool(cls.__dataclass_params__.frozen)      # type: ignore[attr-defined]
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


def test_every_class_it_exports_is_a_record_or_the_read_object():
    classes = {name: obj for name in read.__all__ if inspect.isclass(obj := getattr(read, name))}
    assert "Sim" not in read.__all__
    assert {name for name, cls in classes.items() if not _is_record(cls)} == {"Reading"}


def _fields(value: object) -> list[object]:
    if dataclasses.is_dataclass(value):
        return [getattr(value, f.name) for f in dataclasses.fields(value)]
    if isinstance(value, dict):
        return [*value.keys(), *value.values()]
    if isinstance(value, (tuple, list, frozenset)):
        return list(value)
    return []


def _plain(value: object, depth: int = 0) -> bool:
    """Numbers, strings, None and records or containers of them, all the way down."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if not (dataclasses.is_dataclass(value) or isinstance(value, (tuple, list, frozenset, dict))):
        return False
    return depth < 8 and all(_plain(v, depth + 1) for v in _fields(value))


def test_the_records_of_every_view_hold_plain_data_only():
    for lesson, variant in (("atlantic-page-pool", "before"), ("atlantic-page-pool", "after"),
                            ("ath10k-sdio-napi", "after"), ("bgmac-napi-skb-cache", "after")):
        run = LessonRun(shipped_lesson(lesson))
        run.goto(2)
        sim = run.sims.get(variant) or next(iter(run.sims.values()))
        r = read.reading_of(sim)
        got = [r.memory(), r.pool(), r.skb_cache(), r.napi(), r.bus(), r.queues() if r.bus_name != "pcie" else None,
               r.rx(), r.path(), r.strategy(), tuple(r.recent(5)), r.cursor()]
        if r.bus_name == "pcie":
            ring = r.ring()
            assert ring is not None
            got += [ring, r.descriptor(ring.tail), r.descriptor(ring.head)]
        for record in got:
            assert _plain(record), (lesson, variant, record)


def test_the_ring_record_tells_a_full_ring_from_one_with_nothing_to_clean():
    """head == tail both when the device has written every descriptor and when it has written none:
    the record counts what waits for the driver, as the DD bit at next_to_clean tells a driver."""
    from models.sim import Sim
    sim = Sim(shipped_lesson("rx-basics").params_for("gro"))
    ring = sim.ring
    first = read.reading_of(sim).ring()
    assert first is not None and first.head == first.tail and first.to_clean == 0
    assert first.empty and not first.full
    written = 0
    while ring.device_fill(1514, 1 << 50):          # the device writes until it has no descriptor left
        written += 1
    r = read.Reading(sim).ring()        # a fresh reading: the device's writes record no call
    assert r is not None and written == ring.size
    assert r.head == r.tail == first.head
    assert r.to_clean == ring.size and r.full and not r.empty
    assert r.to_clean == sum(s == "filled" for s in r.states)
