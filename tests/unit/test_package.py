"""The built wheel: what it holds, and that it installs and runs away from the checkout.

Builds the wheel with pip (hatchling, as `pip install .` would), checks the
licence and the lessons are inside, installs it into a fresh venv and runs
`rxviz list` and `rxviz --version` from another directory, so nothing can
come from the repository by accident.
"""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    (found,) = out.glob("rxviz-*.whl")
    return found


def test_the_wheel_ships_the_licence_and_the_lessons(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    licence = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert licence, names
    text = zipfile.ZipFile(wheel).read(licence[0]).decode()
    assert "GNU GENERAL PUBLIC LICENSE" in text and "Version 2, June 1991" in text
    assert (ROOT / "LICENSE").read_text() == text
    shipped = {Path(n).name for n in names if n.startswith("models/lessons/")}
    assert {p.name for p in (ROOT / "lessons").glob("*.yaml")} <= shipped
    assert not [n for n in names if n.startswith("tests/")]
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("/METADATA"))).decode()
    assert "License-Expression: GPL-2.0-only" in meta


def test_the_wheel_installs_in_a_fresh_venv_and_runs_elsewhere(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    subprocess.run([bin_dir / "python", "-m", "pip", "install", "-q", str(wheel)], check=True,
                   capture_output=True, timeout=600)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    listed = subprocess.run([bin_dir / "rxviz", "list"], cwd=elsewhere, capture_output=True, text=True,
                            timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert "rx-basics" in listed.stdout and "atlantic-page-pool" in listed.stdout
    version = subprocess.run([bin_dir / "rxviz", "--version"], cwd=elsewhere, capture_output=True, text=True,
                             timeout=60)
    assert version.stdout.strip() == "rxviz 0.1.0"
    where = subprocess.run([bin_dir / "python", "-c", "import models, viz; print(models.__file__, viz.__file__)"],
                           cwd=elsewhere, capture_output=True, text=True, timeout=60)
    assert str(ROOT) not in where.stdout and "site-packages" in where.stdout
