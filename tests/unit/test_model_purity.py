"""models/ stays pure: no TUI, no wall clock, networkx only when a graph is asked for.

Also the lifecycle state machines: the networkx graph, the enforced transition table and
the dot/mermaid/text exports all come from the same edge list.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from models import lifecycle
from models.lifecycle import DST, EDGE_ID, MACHINE, MACHINES

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("textual", "rich", "viz", "networkx")


def loaded_after(code: str) -> list[str]:
    """Top-level packages in sys.modules after running `code` in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    script = code + "\nimport sys, json\nprint(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_importing_models_pulls_in_no_tui_and_no_networkx():
    mods = loaded_after("import models, models.sim, models.runner, models.lesson, models.replay, "
                        "models.lifecycle, models.metrics, models.teardown")
    assert "models" in mods
    assert [m for m in FORBIDDEN if m in mods] == []


def test_running_and_tearing_down_a_sim_stays_pure():
    mods = loaded_after(
        "from models.sim import Sim\n"
        "s = Sim({'strategy': 'page-pool', 'rate': 10**10}, trace=100)\n"
        "s.run_frames(300); s.metrics(); s.teardown(); s.accounting()\n"
        "t = Sim({'bus': 'sdio', 'napi': True, 'bundle': 32, 'platform': 'arm-qca6174-sdio'})\n"
        "t.run_frames(100); t.snapshot()\n"
        "from models import lifecycle\n"
        "lifecycle.to_dot('pp_page'); lifecycle.to_mermaid('napi'); lifecycle.to_text('napi')\n")
    assert [m for m in FORBIDDEN if m in mods] == []


def test_networkx_is_imported_lazily_by_graph():
    mods = loaded_after("import models.lifecycle as L\nL.graph('rx_buffer')")
    assert "networkx" in mods
    assert not {"textual", "rich", "viz"} & set(mods)


def test_no_wall_clock_or_unseeded_randomness_in_models():
    """Determinism by construction: no time/datetime, and random only through a seeded Random."""
    for path in sorted((ROOT / "models").rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module.split(".")[0]]
            else:
                continue
            assert "time" not in names, f"{path.name} imports time"
            if isinstance(node, ast.ImportFrom) and node.module == "random":
                pytest.fail(f"{path.name}: `from random import ...` bypasses a seeded Random")
            if path.parts[-2] != "lesson":          # lesson validation may parse dates in YAML
                assert "datetime" not in names, f"{path.name} imports datetime"
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "random"
                    and node.func.attr != "Random"):
                pytest.fail(f"{path.name}:{node.lineno} uses the global random.{node.func.attr}")


# ---------------------------------------------------------------------------- lifecycle graphs
@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_graph_edges_are_the_machine_edges(machine):
    import networkx as nx

    title, initial, edges = MACHINES[machine]
    g = lifecycle.graph(machine)
    assert isinstance(g, nx.DiGraph)
    assert g.graph["name"] == machine and g.graph["initial"] == initial and g.graph["title"] == title
    got = sorted((u, d["call"], v) for u, v, d in g.edges(data=True))
    assert got == sorted(edges)
    assert g.number_of_edges() == len(edges)
    # every state can be reached from the initial one
    assert set(nx.descendants(g, initial)) | {initial} == set(g.nodes)


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_transition_table_is_deterministic_and_enforced(machine):
    _, initial, edges = MACHINES[machine]
    keys = [(s, c) for s, c, _ in edges]
    assert len(keys) == len(set(keys)), "one (state, call) pair leads to two states"
    m = MACHINE[machine]
    table = {(s, c): d for s, c, d in edges}
    for src, call, dst in edges:
        assert m.states[DST[m.tid[m.sid[src]][EDGE_ID[call]]]] == dst
    # every other (state, call) pair of the machine is no edge in its integer table: move() refuses it
    for s in m.states:
        for c in {c for _, c, _ in edges}:
            if (s, c) not in table:
                assert m.tid[m.sid[s]][EDGE_ID[c]] == -1


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_exports_name_every_call(machine):
    title, initial, edges = MACHINES[machine]
    dot = lifecycle.to_dot(machine)
    mermaid = lifecycle.to_mermaid(machine)
    text = lifecycle.to_text(machine)
    assert dot.startswith(f'digraph "{machine}"') and dot.rstrip().endswith("}")
    assert mermaid.startswith("stateDiagram-v2")
    assert text.splitlines()[0] == f"{machine}: {title} (starts {initial})"
    for src, call, dst in edges:
        assert f'"{src}" -> "{dst}" [label="{call}"];' in dot
        assert f": {call}" in mermaid
        assert f"--{call}--> {dst}" in text
    assert mermaid.count(" --> ") == len(edges) + 1        # every edge plus [*] --> initial
    assert len(text.splitlines()) == len(edges) + 1


@pytest.mark.parametrize("tracing", [False, True])
def test_the_model_checks_the_machines_it_draws(tracing):
    from models.lifecycle import move
    from models.rx_buffer import Buf
    from models.trace import Recorder

    rx = MACHINE["rx_buffer"]
    rec = Recorder(trace=100 if tracing else 0)
    buf = Buf(1, 0x1000, 2048, rx, rx.sid["free"], "kmalloc")
    assert move(rec, rx, buf, EDGE_ID["kmalloc"]) and move(rec, rx, buf, EDGE_ID["dma_map_single"])
    assert buf.state == "mapped" and not rec.violations
    assert sum(rec.moves) == 2                   # each move counted on its edge, traced or not
    assert not move(rec, rx, buf, EDGE_ID["build_skb"])     # an skb around a buffer the device still owns
    assert buf.state == "mapped" and sum(rec.moves) == 2
    [v] = rec.violations
    assert v.name == "illegal-transition"
    assert "rx_buffer: no edge mapped --build_skb--> for buf#1" in v.message


@pytest.mark.parametrize("lesson,variant", [
    ("rx-basics", "gro"), ("ath11k-36bit-dma-mask", "before"), ("atlantic-page-pool", "before"),
    ("atlantic-page-pool", "after"), ("atlantic-page-pool", "after-xdp"), ("ath10k-sdio-napi", "after"),
    ("bgmac-napi-skb-cache", "after"),
])
def test_a_running_model_leaves_no_reference_cycles_behind(lesson, variant):
    # Frames' skbs, buffers and mappings are freed by reference counting the moment they are let
    # go; a cycle among them would leave it to the cyclic collector, which then runs every few
    # hundred frames (an skb pointing at itself as its GRO `last` cost 10% of the model's time).
    import gc

    from shipped import shipped_lesson

    from models.sim import Sim
    found = shipped_lesson(lesson)
    sim = Sim(found.params_for(variant), faults=found.faults_for(variant))
    sim.run_frames(500)
    gc.collect()
    gc.disable()
    try:
        sim.run_frames(2000)
        assert gc.collect() == 0
    finally:
        gc.enable()
