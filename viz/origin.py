"""Are `models` and `viz` rxviz's own? The start-up check for a clash of names.

rxviz installs two top-level import packages with common names, `models` and
`viz` (pyproject.toml says why they keep those names). Another `models` found
first on sys.path would make rxviz fail deep inside with an ImportError, or
run someone else's code as the model. It happens three ways:

- `python -m viz` puts the current directory first on sys.path, so a
  `models/` folder or a `models.py` there wins (the `rxviz` command does not
  search the current directory, and `rxviz serve` starts its pages with
  `python -P`, which does not either);
- a directory on PYTHONPATH holds one;
- another distribution installed a `models` or `viz` package into the same
  site-packages, over rxviz's files.

`clash()` tells them apart by looking, not importing: `models` must be the
sibling of the `viz` that is running, and when rxviz was installed from a
wheel, the two `__init__.py` files must be the ones its RECORD lists. The
entry point (viz/cli/main.py) calls it before anything imports `models`, and stops
with a short message and exit 2.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import os
import sys
from pathlib import Path

# The directory holding this `viz`, and so rxviz's `models`: site-packages, or the checkout.
HOME = Path(__file__).resolve().parent.parent
OURS = ("models/__init__.py", "viz/__init__.py")


def clash() -> str | None:
    """None when `models` and `viz` are rxviz's own; else what is wrong and what to do, as a CliError text."""
    expected = HOME / "models" / "__init__.py"
    try:
        spec = importlib.util.find_spec("models")
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return f"rxviz's package 'models' is missing; expected: {expected}; reinstall rxviz"
    # A folder without __init__.py is a namespace package: its origin is None, its path the folder.
    where = spec.origin or next(iter(spec.submodule_search_locations or []), "?")
    origin = Path(where).resolve()
    if origin != expected:
        return (f"another package named 'models' hides rxviz's own (a clash of names); "
                f"found: {origin}; expected: {expected}; {_remedy(origin)}")
    changed = _overwritten()
    if changed:
        verb = "differs" if len(changed) == 1 else "differ"
        return (f"rxviz's {' and '.join(changed)} {verb} from the one rxviz installed; another distribution "
                f"with a package of that name was installed over it; install rxviz in a venv of its own "
                f"(e.g. `pipx install rxviz`)")
    return None


def _remedy(origin: Path) -> str:
    top = origin.parent.parent if origin.name == "__init__.py" else origin.parent
    if top == Path.cwd().resolve():
        return "run the `rxviz` command instead of `python -m viz`, or run from another directory"
    paths = [Path(p).resolve() for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if top in paths:
        return f"take {top} off PYTHONPATH"
    return "install rxviz in a venv of its own (e.g. `pipx install rxviz`)"


def _overwritten() -> list[str]:
    """The `__init__.py` files of an installed wheel that no longer hash as its RECORD says.

    The RECORD is read directly (importlib.metadata would cost every start
    some 30 ms); an editable install or a checkout has none next to it, and passes.
    """
    out = []
    for name, (algo, want) in _recorded().items():
        try:
            data = (HOME / name).read_bytes()
        except OSError:
            out.append(name)
            continue
        try:
            got = base64.urlsafe_b64encode(hashlib.new(algo, data).digest()).rstrip(b"=").decode()
        except ValueError:          # an algorithm this Python lacks: nothing to compare with
            continue
        if got != want:
            out.append(name)
    return out


def _recorded() -> dict[str, tuple[str, str]]:
    """{path: (hash algorithm, digest)} of OURS in the RECORD of the rxviz wheel installed beside them."""
    import csv
    for info in sorted(HOME.glob("rxviz-*.dist-info")):
        try:
            with open(info / "RECORD", newline="", encoding="utf-8") as f:
                rows = {row[0]: row[1] for row in csv.reader(f) if len(row) >= 2 and row[0] in OURS}
        except OSError:
            continue
        found = {name: tuple(h.split("=", 1)) for name, h in rows.items() if "=" in h}
        if found:
            return found         # type: ignore[return-value]
    return {}


def app_argv(*args: str) -> list[str]:
    """This interpreter running this rxviz, whatever the current directory holds.

    `-P` (Python 3.11) leaves the current directory off sys.path, where a
    `models/` or `viz/` of the user's would otherwise come first.
    """
    return [sys.executable, "-P", "-m", "viz", *args]


def needs_pythonpath() -> bool:
    """True when this rxviz is found only through the current directory (a checkout, not installed)."""
    search = sys.path if sys.flags.safe_path else sys.path[1:]
    return HOME not in {Path(p or ".").resolve() for p in search}
