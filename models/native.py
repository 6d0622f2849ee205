"""Which build of the model runs: the pure-Python reference, or the same modules compiled by mypyc.

The compiled build is optional and only ever a faster copy of the same source:
`hatch_build.py` compiles the hot modules with mypyc (at `pip install` and
`make compile`, when a C compiler is present) into `models/_compiled/`, with a
manifest of the digest of every model source it was compiled from. At import,
`models/__init__.py` puts that folder first on the package's search path only
if the manifest matches the sources as they are now and this interpreter's
ABI; otherwise the pure-Python modules run. So a compiled module can never run
in place of a source file edited since (a stale `.so` shadowing a `.py` is the
classic mypyc trap), and deleting `models/_compiled/` is always safe.

`RXVIZ_MODEL=pure` forces the reference build (CI runs the tests in both);
`RXVIZ_MODEL=compiled` asks for the compiled one and records a problem when it
cannot run, which the command line reports (exit 2) and the tests refuse.
"""

from __future__ import annotations

import hashlib
import json
import os
import sysconfig
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMPILED = HERE / "_compiled"
MANIFEST = COMPILED / "manifest.json"
ENV = "RXVIZ_MODEL"

MODE = "pure"           # what runs: "pure" or "compiled"
REASON = ""             # why pure runs when a compiled build exists or was asked for ("" when nothing to say)
PROBLEM = ""            # RXVIZ_MODEL=compiled could not be honoured: what the CLI prints before exit 2
STALE = False           # a compiled build is there but does not match the sources (an edit since `make compile`)


def sources(root: Path = HERE) -> dict[str, str]:
    """The sha256 of every model source file, by path relative to `root` (the package folder)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0].startswith("_compiled") or "__pycache__" in rel.parts:
            continue
        out[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def abi() -> str:
    """The interpreter ABI a compiled module is built for (its extension suffix)."""
    return str(sysconfig.get_config_var("EXT_SUFFIX"))


def stale(manifest: dict[str, object], now: dict[str, str]) -> str:
    """Why a compiled build does not match the sources as they are now ("" when it does)."""
    if manifest.get("abi") != abi():
        return f"it was built for {manifest.get('abi')}, this Python needs {abi()}"
    built = manifest.get("sources")
    if not isinstance(built, dict):
        return "its manifest is unreadable"
    changed = sorted(set(built) ^ set(now) | {k for k in now if built.get(k) != now[k]})
    if changed:
        more = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
        return f"models/{changed[0]}{more} changed since it was compiled"
    modules = manifest.get("modules")
    if not isinstance(modules, list) or not all((COMPILED / f"{m}{abi()}").is_file() for m in modules):
        return "some of its compiled modules are missing"
    return ""


def select(path: list[str]) -> list[str]:
    """The package search path: the compiled folder first when it may run, else the sources alone."""
    global MODE, REASON, PROBLEM, STALE
    want = os.environ.get(ENV, "")
    if want == "pure":
        REASON = f"{ENV}=pure"
        return path
    if not MANIFEST.is_file():
        failed = (HERE / "_compiled.log").is_file()
        REASON = ("the last compile failed: models/_compiled.log says why" if failed else
                  "no compiled build (none at install, or not yet: `make compile`)")
    else:
        try:
            manifest = json.loads(MANIFEST.read_text())
        except (OSError, ValueError):
            manifest = None
        REASON = stale(manifest, sources()) if isinstance(manifest, dict) else "its manifest is unreadable"
        if REASON:
            STALE = True
            REASON = f"the compiled build is not used: {REASON} (`make compile` rebuilds it)"
        else:
            MODE = "compiled"
            return [str(COMPILED), *path]
    if want == "compiled":
        PROBLEM = f"{ENV}=compiled, but {REASON}"
    return path


def describe() -> str:
    """One line for `rxviz --version`: which build runs, and why not the other."""
    if MODE == "compiled":
        return "model: compiled with mypyc"
    return f"model: pure Python; {REASON}" if REASON else "model: pure Python"
