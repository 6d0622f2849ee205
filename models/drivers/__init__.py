"""The model's own drivers, written with the driver API (models/driver/): one a lesson variant.

Each is also the reference solution of an exercise (viz/exercises/catalog.py):
`rxviz exercise solution ID` prints its file as it is here. They are compiled
with the model (hatch_build.py HOT), subclasses of the native NetDriver, so
their hooks call the API's functions natively; a learner's driver is the same
code run by the interpreter.

A lesson variant runs one instead of the model's RX strategy by naming it
(`runs: atlantic`): the name is looked up in DRIVERS, the model's own list, and
only a module of this package is ever imported for it; a lesson file supplies
a name, never code.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import import_module
from typing import TYPE_CHECKING, Any

from .. import native as _native
from ..driver.runtime import DriverSim
from ..driver_names import DRIVERS
from ..sim import Sim

if TYPE_CHECKING:  # pragma: no cover
    from ..driver.netdev import NetDriver

if _native.MODE == "compiled" and (_native.COMPILED / "drivers").is_dir():
    # the compiled build of the drivers (hatch_build.py HOT), as models/__init__.py does for models
    __path__ = [str(_native.COMPILED / "drivers"), *__path__]


def driver_class(name: str) -> type[NetDriver]:
    """The class `Driver` of the model's driver `name` (one of DRIVERS)."""
    if name not in DRIVERS:
        raise KeyError(f"no model driver {name!r}: {', '.join(DRIVERS)}")
    cls: type[NetDriver] = import_module(f"{__name__}.{name}").Driver
    return cls


def variant_sim(values: dict[str, Any], *, runs: str = "", seed: int = 0, trace: int = 0,
                faults: Iterable[str] = ()) -> Sim:
    """The Sim of a lesson variant: the model's RX strategy its parameters name, or the model's driver
    it `runs` (models/driver/runtime.py). The drivers have no fault switches: a run with faults
    injected (`--inject`) runs the strategy."""
    faults = tuple(faults)
    if runs and not faults:
        return DriverSim(driver_class(runs)(), values, seed=seed, trace=trace)
    return Sim(values, seed=seed, trace=trace, faults=faults)
