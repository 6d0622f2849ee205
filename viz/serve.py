"""`rxviz serve`: the player in a web page, through textual-serve.

textual-serve runs one `rxviz` process per browser tab, with Textual's web
driver, and relays its screen and keys over a websocket; nothing of the app
changes. The command it runs is this same interpreter with `-P -m viz`, so a
wheel, a venv or a checkout each serve their own rxviz, and a `models/` or
`viz/` in the current directory cannot take its place (viz/origin.py).

By default it listens on 127.0.0.1 only. Another address is served only
when asked for, with a warning: whoever can reach the port can open the page
and so run lessons (lesson files, not commands, but a process each) on this
machine.
"""

from __future__ import annotations

import os
import shlex
import socket

from .origin import HOME, app_argv, needs_pythonpath

LOCAL = ("127.0.0.1", "localhost", "::1")


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


def can_listen(host: str, port: int) -> None:
    """Raises OSError when (host, port) cannot be listened on: before textual-serve prints its banner."""
    family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)      # as aiohttp does on Linux
        s.bind(addr)


def serve(lesson: str | None, host: str, port: int, url: str | None) -> None:
    """Serve until Ctrl-C (or SIGTERM); raises OSError when the address cannot be listened on."""
    from textual_serve.server import Server

    can_listen(host, port)

    Server(app_command(lesson), host=host, port=port, title="rxviz",
           public_url=public_url(host, port, url)).serve()
