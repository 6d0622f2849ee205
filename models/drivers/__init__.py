"""The model's own drivers, written with the driver API (models/driver/): one a lesson variant.

Each is also the reference solution of an exercise (viz/exercises/catalog.py):
`rxviz exercise solution ID` prints its file as it is here. They are compiled
with the model (hatch_build.py HOT), subclasses of the native NetDriver, so
their hooks call the API's functions natively; a learner's driver is the same
code run by the interpreter.
"""

from .. import native as _native

if _native.MODE == "compiled" and (_native.COMPILED / "drivers").is_dir():
    # the compiled build of the drivers (hatch_build.py HOT), as models/__init__.py does for models
    __path__ = [str(_native.COMPILED / "drivers"), *__path__]
