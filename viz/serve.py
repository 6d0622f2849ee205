"""`rxviz serve`: the player in a web page, through textual-serve, for a classroom.

textual-serve runs one `rxviz` process per browser tab, with Textual's web
driver, and relays its screen and keys over a websocket; nothing of the app
changes. The command it runs is this same interpreter with `-P -m viz`, so a
wheel, a venv or a checkout each serve their own rxviz, and a `models/` or
`viz/` in the current directory cannot take its place (viz/origin.py).

What a visitor can do: open the lessons rxviz ships (the host may open one
for them, `rxviz serve LESSON`), step, answer, use the sandbox, fast-forward,
follow a buffer, take a screenshot (delivered to their browser, never
written on the host), and quit their own page. What a visitor cannot do:
open a file of the host (no lesson path is asked anywhere in the app), see
or change the host's progress or another visitor's, follow the host's
speaker notes, or keep the host busy beyond one process of their own.
`ClassServer` adds to textual-serve what a room of students needs:

- each visitor is a fresh learner: their process gets a state directory of
  its own (viz.state), so it opens the lesson at its start and never reads
  or writes the host's progress. With `--resume`, a browser keeps its
  directory while the server runs (a cookie names it), so a reload goes on
  where that student was; without, every page starts afresh;
- a websocket whose `Origin` is not the page's own is refused with 403: a
  page on another site cannot drive a player here in a visitor's browser
  (the `Host` header is not trusted for this, so DNS rebinding cannot pass);
- at most `--max-sessions` players run at once; the next visitor gets a
  page that says the room is full (503) instead of a hung terminal;
- the page loads nothing from the internet: textual-serve's page asks
  Google for its web font, this one serves the font textual-serve ships.

By default it listens on 127.0.0.1 only. Another address is served only
when asked for, with a warning: whoever can reach the port can open the page
and so run lessons (lesson files, not commands, but a process each) on this
machine.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shlex
import shutil
import socket
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .origin import HOME, app_argv, needs_pythonpath

if TYPE_CHECKING:
    from textual_serve.server import Server

LOCAL = ("127.0.0.1", "localhost", "::1")
MAX_SESSIONS = 24           # a class: each player is one process of ~100 MB
COOKIE = "rxviz-visitor"
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
PAGE_DIR = Path(__file__).resolve().parent / "serve_page"


def is_local(host: str) -> bool:
    return host in LOCAL or host.startswith("127.")


def app_command(lesson: str | None) -> str:
    """The shell command textual-serve starts for each page.

    A checkout run without installing is found only through the current
    directory, which `-P` leaves out: then PYTHONPATH names it instead.
    """
    command = shlex.join(app_argv(*(["play", lesson] if lesson else [])))
    if needs_pythonpath():
        paths = [str(HOME)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        command = f"PYTHONPATH={shlex.quote(os.pathsep.join(paths))} {command}"
    return command


def public_url(host: str, port: int, given: str | None) -> str:
    """Where browsers reach the server; a wildcard address names this machine instead."""
    if given:
        return given.rstrip("/")
    if host in ("0.0.0.0", "::", ""):
        host = socket.gethostname()
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def origin_of(url: str) -> str:
    """scheme://host[:port] of a URL, as a browser's Origin header writes it (default ports left out)."""
    parts = urlsplit(url)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{host}" + (f":{port}" if port and port != default else "")


def allowed_origins(host: str, port: int, url: str) -> set[str]:
    """The page's own origins: the public URL, and this machine's names when it listens locally."""
    out = {origin_of(url)}
    if is_local(host):
        out |= {origin_of(f"http://{name}:{port}") for name in ("127.0.0.1", "localhost", "[::1]")}
    return out


def can_listen(host: str, port: int) -> None:
    """Raises OSError when (host, port) cannot be listened on: before textual-serve prints its banner."""
    family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)      # as aiohttp does on Linux
        s.bind(addr)


def full_page(limit: int) -> str:
    return (PAGE_DIR / "full.html").read_text(encoding="utf-8").replace("{{ limit }}", str(limit))


def make_server(lesson: str | None, host: str, port: int, url: str | None, max_sessions: int = MAX_SESSIONS,  # noqa: C901 (older than the complexity rule)
                resume: bool = False) -> Server:
    """The textual-serve Server with the classroom's rules (see the module docstring)."""
    import asyncio
    import logging

    from aiohttp import web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server, to_int

    log = logging.getLogger("textual-serve")

    class ClassServer(Server):
        def __init__(self) -> None:
            super().__init__(app_command(lesson), host=host, port=port, title="rxviz",
                             public_url=public_url(host, port, url), templates_path=str(PAGE_DIR))
            self.origins = allowed_origins(host, port, self.public_url)
            self.max_sessions = max_sessions
            self.resume = resume
            self.running = 0
            self.home = Path(tempfile.mkdtemp(prefix="rxviz-serve-"))    # the visitors' state, 0700

        def visitor_dir(self, request: web.Request) -> tuple[Path, bool]:
            """(the state directory of this page's player, whether to delete it when the page goes)."""
            token = request.cookies.get(COOKIE, "")
            if self.resume and _TOKEN.fullmatch(token):
                d = self.home / hashlib.sha256(token.encode()).hexdigest()[:32]
                d.mkdir(mode=0o700, exist_ok=True)
                return d, False
            return Path(tempfile.mkdtemp(prefix="page-", dir=self.home)), True

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            if self.running >= self.max_sessions:
                return web.Response(status=503, text=full_page(self.max_sessions), content_type="text/html",
                                    headers={"Retry-After": "30"})
            response = await super().handle_index(request)
            if self.resume and not _TOKEN.fullmatch(request.cookies.get(COOKIE, "")):
                response.set_cookie(COOKIE, secrets.token_urlsafe(24), httponly=True, samesite="Strict")
            return response

        # aiohttp takes any StreamResponse from a handler; textual-serve's is typed for the websocket
        # only, and the refusals here (403, 503) are plain responses.
        async def handle_websocket(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
            """textual-serve's, with the checks above and a command of the visitor's own."""
            origin = request.headers.get("Origin")
            if origin is not None and origin_of(origin) not in self.origins:
                return web.Response(status=403, text="rxviz: this player only talks to its own page\n")
            if self.running >= self.max_sessions:
                return web.Response(status=503, text=f"rxviz: all {self.max_sessions} players are taken\n")
            state, temporary = self.visitor_dir(request)
            command = f"RXVIZ_STATE_DIR={shlex.quote(str(state))} {self.command}"
            # The page's size, within what a screen can be (it is the visitor's to say).
            width = min(max(to_int(request.query.get("width", "80"), 80), 20), 500)
            height = min(max(to_int(request.query.get("height", "24"), 24), 10), 300)
            websocket = web.WebSocketResponse(heartbeat=15)
            service: AppService | None = None
            self.running += 1
            try:
                await websocket.prepare(request)
                service = AppService(command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                                     # as textual-serve's own handler passes it; the bool it returns is unused
                                     close=websocket.close,  # type: ignore[arg-type]
                                     download_manager=self.download_manager,
                                     debug=self.debug)
                await service.start(width, height)
                await self._process_messages(websocket, service)
            except asyncio.CancelledError:
                await websocket.close()
            except Exception as error:           # a visitor's page is never the server's end
                log.exception(error)
            finally:
                if service is not None:
                    await service.stop()
                self.running -= 1
                if temporary:
                    shutil.rmtree(state, ignore_errors=True)
            return websocket

        async def on_shutdown(self, app: web.Application) -> None:
            shutil.rmtree(self.home, ignore_errors=True)
            await super().on_shutdown(app)

    return ClassServer()


def serve(lesson: str | None, host: str, port: int, url: str | None, max_sessions: int = MAX_SESSIONS,
          resume: bool = False) -> None:
    """Serve until Ctrl-C (or SIGTERM); raises OSError when the address cannot be listened on."""
    can_listen(host, port)
    make_server(lesson, host, port, url, max_sessions, resume).serve()
