"""`rxviz serve` in a real browser: the page loads, → steps the lesson, a screenshot shows it.

Runs `rxviz serve` and headless Chromium (Debian's `chromium`; .ci/run
installs it) and drives the page over the DevTools protocol (cdp.py). The
player draws on a canvas, so what it shows is read from the websocket
stream the page receives (a recorder is put in the page before its own
scripts run) and seen in screenshots, kept in RXVIZ_SHOTS if that is set.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from . import cdp

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow
needs_chromium = pytest.mark.skipif(cdp.chromium() is None,
                                    reason="needs Debian's chromium package (apt-get install chromium); "
                                           ".ci/run installs it")

# Everything the page receives on its websockets, as text, in window.__rx.
RECORD = """(() => {
  const Real = window.WebSocket;
  window.__rx = "";
  const add = d => { window.__rx += d; };
  function Recorded(...args) {
    const ws = new Real(...args);
    ws.addEventListener("message", e => {
      const d = e.data;
      if (typeof d === "string") add(d);
      else if (d instanceof ArrayBuffer) add(new TextDecoder().decode(d));
      else if (d && d.text) d.text().then(add);
    });
    return ws;
  }
  Recorded.prototype = Real.prototype;
  for (const k of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) Recorded[k] = Real[k];
  window.WebSocket = Recorded;
})();"""


@pytest.fixture
def server():
    """`rxviz serve rx-basics` on a free port of 127.0.0.1; its process group ended after."""
    port = cdp.free_port()
    proc = subprocess.Popen([sys.executable, "-m", "viz", "serve", "rx-basics", "--port", str(port)],
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    yield port, proc
    cdp.end_group(proc)


@pytest.mark.browser
@needs_chromium
async def test_the_page_loads_and_a_key_steps_the_lesson(server, tmp_path):
    port, proc = server
    await cdp.wait_for_port(port, 30)
    shots = Path(os.environ.get("RXVIZ_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    async with cdp.browser(1280, 800) as page:
        await page.send("Page.addScriptToEvaluateOnNewDocument", source=RECORD)
        await page.send("Page.navigate", url=f"http://127.0.0.1:{port}/")
        # textual-serve marks the body once the app's first bytes arrived.
        await page.wait_until("document.body && document.body.classList.contains('-first-byte')", 60)
        await page.wait_until("window.__rx.includes('step 0/14')", 60)
        before = await page.screenshot(str(shots / "serve-step0.png"))
        await page.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
        await page.press("right")
        await page.wait_until("window.__rx.includes('step 1/14 · A ring of 256 descriptors')", 60)
        # Two animation frames: the canvas has drawn what arrived.
        await page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))")
        after = await page.screenshot(str(shots / "serve-step1.png"))
    assert before != after
    assert proc.poll() is None, proc.stderr.read().decode()          # the server is still up


def test_serve_refuses_a_port_in_use(server):
    import asyncio
    port, _ = server
    asyncio.run(cdp.wait_for_port(port, 30))
    p = subprocess.run([sys.executable, "-m", "viz", "serve", "--port", str(port)], cwd=ROOT, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    # Refused before textual-serve's banner says "Serving ... on" the port it cannot have.
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == f"rxviz: serve: cannot listen on 127.0.0.1:{port}: Address already in use\n"
