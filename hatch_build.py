"""Compile the model's hot modules with mypyc, when a C compiler is present: the optional fast build.

Two ways in, one function:
- hatchling runs `CompiledModel` at every `pip install` (wheel or editable), so an
  installed rxviz is compiled wherever it can be and pure Python elsewhere;
- `python hatch_build.py` (`make compile`) rebuilds it in the checkout after an edit.

The modules are compiled from a copy of `models/` in a temporary folder (so that
setuptools, which mypyc drives, never reads this project's pyproject.toml) and the
results land in `models/_compiled/` with a manifest of the sources' digests;
`models/native.py` uses them only while that manifest matches. Any failure
(no compiler, a mypyc error) leaves the pure-Python model in place and says so in
one line: the compiled build is a speed-up, never a requirement.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
MODELS = ROOT / "models"

# The modules a frame runs through (the per-poll hot path and what it calls). The rest of
# `models` (lesson loading, replay, sweeps, the read API, scenario building) runs once per
# command or per step and stays interpreted: compiling it would cost build time for nothing.
HOT = (
    "calls", "dma", "engine", "gro", "host_signals", "int_arrays", "iommu", "lifecycle", "link", "memory", "metrics",
    "netif_receive", "page_flip", "page_pool", "page_pool_frag", "pcie", "per_frame", "reader", "ring", "rx_buffer",
    "rx_strategy", "sdio", "sim", "skb", "skb_build", "skb_free", "skb_head", "sock", "stack", "swiotlb", "teardown",
    "trace", "tx", "wire",
    # the driver API's functions (a driver of the API calls about fifteen a frame); its classes are
    # ordinary Python classes (mypyc_attr(native_class=False)): the runtime and the learner's code make them
    "driver/dma_mapping", "driver/host", "driver/napi", "driver/page_pool", "driver/skbuff",
    # NetDriver is native and the model's own drivers subclass it: their hooks call the API natively
    # (a learner's driver subclasses it from interpreted code: allow_interpreted_subclasses)
    "driver/netdev", "drivers/ath11k", "drivers/atlantic", "drivers/bgmac", "drivers/dma_bugs", "drivers/rx_basics",
)

BUILD = """
import sys
from setuptools import setup
from mypyc.build import mypycify
setup(name="rxviz-model", script_args=["build_ext", "--inplace"],
      ext_modules=mypycify(sys.argv[1:], opt_level="3", group_name="models._native"))
"""


def _native() -> Any:
    """models/native.py loaded by path: the digests must be computed as the import-time check computes them."""
    spec = importlib.util.spec_from_file_location("_rxviz_native", MODELS / "native.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def have_compiler() -> str:
    """The C compiler setuptools would use, or "" when there is none."""
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) or ""


def compile_model(out: Path = MODELS / "_compiled", verbose: bool = False) -> tuple[bool, str]:
    """Build `out` (models/_compiled/) from the sources as they are; (compiled?, the one line to show).

    On failure `out` is left as it was: models/native.py runs it only while it matches the sources.
    """
    native = _native()
    if not have_compiler():
        return False, "rxviz: no C compiler found: the model runs as pure Python"
    try:
        import mypyc  # noqa: F401
    except ImportError:
        return False, "rxviz: mypyc (from mypy) is not installed: the model runs as pure Python"
    with tempfile.TemporaryDirectory(prefix="rxviz-mypyc-") as tmp:
        src = Path(tmp) / "models"
        shutil.copytree(MODELS, src, ignore=shutil.ignore_patterns("_compiled*", "__pycache__", "*.so", "lessons"))
        p = subprocess.run([sys.executable, "-c", BUILD, *(f"models/{m}.py" for m in HOT)], cwd=tmp,
                           capture_output=not verbose, text=True)
        if p.returncode != 0:
            if not verbose:
                (MODELS / "_compiled.log").write_text(f"{p.stdout}\n{p.stderr}")
            return False, "rxviz: compiling the model failed (models/_compiled.log says why): it runs as pure Python"
        new = Path(tmp) / "_compiled"
        new.mkdir()
        for so in src.rglob(f"*{native.abi()}"):      # models.driver's land in _compiled/driver/
            dest = new / so.relative_to(src)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(so, dest)
        # The digests of the copy that was compiled, not of the checkout (which may have moved on since).
        manifest = {"abi": native.abi(), "modules": list(HOT), "sources": native.sources(src)}
        (new / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
        # Swapped in whole: a process starting meanwhile finds the old build or the new one, never half.
        old = out.with_name(out.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if out.exists():
            out.rename(old)
        shutil.move(str(new), out)
        shutil.rmtree(old, ignore_errors=True)
        (MODELS / "_compiled.log").unlink(missing_ok=True)
    return True, f"rxviz: the model is compiled with mypyc ({len(HOT)} modules)"


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:          # `python hatch_build.py` in a venv without hatchling
    BuildHookInterface = object  # type: ignore[assignment,misc]


class CompiledModel(BuildHookInterface):  # type: ignore[misc,valid-type]
    """hatchling's build hook: compile when possible; a compiled wheel is tagged for this platform.

    An editable install compiles into the checkout's models/_compiled/ (where the import-time
    check looks); a wheel compiles into a folder of its own that the wheel takes as
    models/_compiled/, so building a wheel never touches the checkout a test run is using.
    """
    PLUGIN_NAME = "custom"
    _tmp = ""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        editable = version == "editable"
        if os.environ.get("RXVIZ_MODEL") == "pure":
            print("rxviz: RXVIZ_MODEL=pure: the model is not compiled", file=sys.stderr)
            return
        if editable:
            ok, line = compile_model()
        else:
            self._tmp = tempfile.mkdtemp(prefix="rxviz-wheel-")
            ok, line = compile_model(Path(self._tmp) / "_compiled")
        print(line, file=sys.stderr)
        if ok and not editable:
            build_data["pure_python"] = False
            build_data["infer_tag"] = True
            build_data["force_include"][str(Path(self._tmp) / "_compiled")] = "models/_compiled"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)


if __name__ == "__main__":
    _, message = compile_model(verbose="-v" in sys.argv)
    print(message)
    sys.exit(0)
