"""The built wheel: what it holds, and that it installs and runs away from the checkout.

Builds the wheel with pip (hatchling, as `pip install .` would), checks the
licence and the lessons are inside, installs it into a fresh venv and runs
`rxviz list` and `rxviz --version` from another directory, so nothing can
come from the repository by accident.

The wheel installs the import packages `models` and `viz` at the top of
site-packages (pyproject.toml says why), so it is tried where another
`models` is about: in the current directory (a Django project's), on
PYTHONPATH, and installed over rxviz's by another distribution. rxviz
either runs as its own or says which `models` is in the way, exit 2.
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from cli_message import message

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)],
                   check=True, capture_output=True, timeout=900)     # the compiled model's build: minutes
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


@pytest.fixture(scope="module")
def bin_dir(wheel, tmp_path_factory) -> Path:
    """A fresh venv with the wheel installed: its bin directory."""
    env_dir = tmp_path_factory.mktemp("venv")
    venv.create(env_dir, with_pip=True)
    subprocess.run([env_dir / "bin" / "python", "-m", "pip", "install", "-q", str(wheel)], check=True,
                   capture_output=True, timeout=600)
    return env_dir / "bin"


def test_the_wheel_installs_in_a_fresh_venv_and_runs_elsewhere(bin_dir, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    listed = subprocess.run([bin_dir / "rxviz", "list"], cwd=elsewhere, capture_output=True, text=True,
                            timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert "rx-basics" in listed.stdout and "atlantic-page-pool" in listed.stdout
    version = subprocess.run([bin_dir / "rxviz", "--version"], cwd=elsewhere, capture_output=True, text=True,
                             timeout=60)
    assert version.stdout.startswith("rxviz 0.1.0 (model: ")
    # With a C compiler (CI has one) the wheel carries the compiled model, and it runs.
    from models import native
    if native.MODE == "compiled":
        assert "model: compiled with mypyc" in version.stdout, version.stdout
    where = subprocess.run([bin_dir / "python", "-c", "import models, viz; print(models.__file__, viz.__file__)"],
                           cwd=elsewhere, capture_output=True, text=True, timeout=60)
    assert str(ROOT) not in where.stdout and "site-packages" in where.stdout


def _project_with_models(root: Path) -> Path:
    """Someone else's project directory: a package named `models` in it, as Django's have."""
    (root / "models").mkdir(parents=True)
    (root / "models" / "__init__.py").write_text('raise ImportError("not rxviz\'s models")\n')
    return root


def _said(p: subprocess.CompletedProcess) -> str:
    """The one message on stderr (80 columns but a path too long for any line), exit 2."""
    assert p.returncode == 2 and p.stdout == "", p.stderr
    return message(p.stderr)


def test_a_models_package_where_rxviz_runs_is_never_imported_as_rxviz_s(bin_dir, tmp_path):
    project = _project_with_models(tmp_path / "project")
    # The installed command does not search the current directory: it runs as its own.
    listed = subprocess.run([bin_dir / "rxviz", "list"], cwd=project, capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0 and "rx-basics" in listed.stdout, listed.stderr
    # `python -m viz` does: before, the page said "internal error: ImportError"; now it says why, exit 2.
    p = subprocess.run([bin_dir / "python", "-m", "viz", "list"], cwd=project, capture_output=True, text=True,
                       timeout=60)
    said = _said(p)
    assert "another package named 'models' hides rxviz's own" in said
    assert f"found: {project / 'models' / '__init__.py'}" in said and "site-packages" in said
    # The same from PYTHONPATH, in a directory of no interest.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    p = subprocess.run([bin_dir / "rxviz", "list"], cwd=elsewhere, capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(project)})
    assert f"take {project} off PYTHONPATH" in _said(p)


def test_rxviz_serve_starts_its_pages_clear_of_the_current_directory(bin_dir, tmp_path):
    project = _project_with_models(tmp_path / "project")
    shown = subprocess.run([bin_dir / "python", "-P", "-c", "from viz.serve import app_command; "
                            "print(app_command(None))"], cwd=project, capture_output=True, text=True, timeout=60)
    command = shown.stdout.strip()
    assert shown.returncode == 0 and command.endswith("-P -m viz") and "PYTHONPATH" not in command, shown
    # What textual-serve runs for each page (a shell command), here asked for `list` instead of the
    # home screen, from the directory `rxviz serve` was started in.
    page = subprocess.run(f"{command} list", shell=True, cwd=project, capture_output=True, text=True,
                          timeout=60)
    assert page.returncode == 0 and "rx-basics" in page.stdout, page.stderr


def _other_wheel(out: Path) -> Path:
    """A distribution of someone else's that ships a top-level `models` package (built by hand)."""
    init = b'"""Someone else\'s models."""\n'
    digest = base64.urlsafe_b64encode(hashlib.sha256(init).digest()).rstrip(b"=").decode()
    info = "other_models-1.0.dist-info"
    path = out / "other_models-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("models/__init__.py", init)
        z.writestr(f"{info}/METADATA", "Metadata-Version: 2.1\nName: other-models\nVersion: 1.0\n")
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                    "Tag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", f"models/__init__.py,sha256={digest},{len(init)}\n"
                                     f"{info}/METADATA,,\n{info}/WHEEL,,\n{info}/RECORD,,\n")
    return path


def test_another_distribution_s_models_installed_over_rxviz_s_is_named(bin_dir, tmp_path):
    # Last in this module: it spoils the shared venv on purpose.
    other = _other_wheel(tmp_path)
    subprocess.run([bin_dir / "python", "-m", "pip", "install", "-q", "--no-index", str(other)], check=True,
                   capture_output=True, timeout=300)
    p = subprocess.run([bin_dir / "rxviz", "list"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    said = _said(p)
    assert "rxviz's models/__init__.py differs from the one rxviz installed" in said
    assert "install rxviz in a venv of its own" in said
