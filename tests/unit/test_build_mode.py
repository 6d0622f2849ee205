"""Which build of the model runs (models/native.py): the compiled one only while it matches its sources.

The compiled build (mypyc, hatch_build.py) is a faster copy of the same source; a
compiled module older than its .py must never run in its place. These tests copy
the package to a temporary folder with a manifest of their own making, so they
need no C compiler: what is checked is the choice, not the compiler.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from models import native

ROOT = Path(__file__).resolve().parents[2]
PROBE = "import models, models.native as n, models.sim as s; print(n.MODE); print(n.REASON); print(s.__file__)"


def _copy(tmp_path: Path, manifest: dict | None) -> Path:
    """The models package copied under tmp_path, with `manifest` as its compiled build's (no modules in it)."""
    dst = tmp_path / "models"
    shutil.copytree(ROOT / "models", dst, ignore=shutil.ignore_patterns("_compiled*", "__pycache__"))
    if manifest is not None:
        (dst / "_compiled").mkdir()
        (dst / "_compiled" / "manifest.json").write_text(json.dumps(manifest))
    return dst


def _probe(where: Path, **env: str) -> list[str]:
    clean = {k: v for k, v in os.environ.items() if k != native.ENV}
    p = subprocess.run([sys.executable, "-P", "-c", PROBE], cwd=where, env={**clean, **env, "PYTHONPATH": str(where)},
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def _manifest(models: Path) -> dict:
    return {"abi": native.abi(), "modules": [], "sources": native.sources(models)}


def test_a_build_that_matches_its_sources_runs(tmp_path):
    models = _copy(tmp_path, None)
    (models / "_compiled").mkdir()
    (models / "_compiled" / "manifest.json").write_text(json.dumps(_manifest(models)))
    mode, reason, _ = _probe(tmp_path)
    assert (mode, reason) == ("compiled", "")


def test_a_source_edited_after_the_compile_sends_it_back_to_pure_python(tmp_path):
    models = _copy(tmp_path, None)
    (models / "_compiled").mkdir()
    (models / "_compiled" / "manifest.json").write_text(json.dumps(_manifest(models)))
    with (models / "rx_strategy.py").open("a") as f:
        f.write("\n# an edit after the compile\n")
    mode, reason, sim_file = _probe(tmp_path)
    assert mode == "pure" and "models/rx_strategy.py changed since it was compiled" in reason
    assert sim_file.endswith("sim.py")


@pytest.mark.parametrize("manifest, says", [
    ({"abi": ".cpython-39-x86_64-linux-gnu.so", "modules": [], "sources": {}}, "this Python needs"),
    ({"abi": native.abi(), "modules": ["sim"], "sources": "?"}, "unreadable"),
    ("not json at all", "unreadable"),
])
def test_a_build_for_another_python_or_broken_is_refused(tmp_path, manifest, says):
    models = _copy(tmp_path, None)
    (models / "_compiled").mkdir()
    text = manifest if isinstance(manifest, str) else json.dumps(manifest)
    (models / "_compiled" / "manifest.json").write_text(text)
    mode, reason, _ = _probe(tmp_path)
    assert mode == "pure" and says in reason


def test_a_build_missing_a_module_it_lists_is_refused(tmp_path):
    models = _copy(tmp_path, None)
    (models / "_compiled").mkdir()
    (models / "_compiled" / "manifest.json").write_text(json.dumps({**_manifest(models), "modules": ["sim"]}))
    mode, reason, _ = _probe(tmp_path)
    assert mode == "pure" and "missing" in reason


def test_pure_is_forced_by_the_environment(tmp_path):
    models = _copy(tmp_path, None)
    (models / "_compiled").mkdir()
    (models / "_compiled" / "manifest.json").write_text(json.dumps(_manifest(models)))
    mode, reason, _ = _probe(tmp_path, RXVIZ_MODEL="pure")
    assert (mode, reason) == ("pure", "RXVIZ_MODEL=pure")


def test_asking_for_a_compiled_build_that_cannot_run_is_one_line_and_exit_2(tmp_path):
    models = _copy(tmp_path, None)
    shutil.copytree(ROOT / "viz", tmp_path / "viz", ignore=shutil.ignore_patterns("__pycache__"))
    clean = {k: v for k, v in os.environ.items() if k != native.ENV}
    p = subprocess.run([sys.executable, "-P", "-m", "viz", "list"], cwd=tmp_path, capture_output=True, text=True,
                       env={**clean, "RXVIZ_MODEL": "compiled", "PYTHONPATH": str(tmp_path)}, timeout=60)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("rxviz: RXVIZ_MODEL=compiled, but ") and "make compile" in p.stderr
    assert models.is_dir()


def test_the_version_says_which_build_runs(capsys):
    from viz import cli
    assert cli.main(["--version"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rxviz ") and f"model: {'compiled' if native.MODE == 'compiled' else 'pure Python'}" in out


def test_the_running_build_is_the_one_it_says():
    import models.sim
    assert models.sim.__file__.endswith(".py") == (native.MODE == "pure")
