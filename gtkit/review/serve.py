"""`gtkit review`: the review server on 127.0.0.1, with a fresh random token in the URL it prints."""

from __future__ import annotations

import errno
import getpass
import secrets
import socket
from collections.abc import Callable
from pathlib import Path

from gtkit.errors import GtkitError
from gtkit.review.state import Review

HOST = "127.0.0.1"
MAX_PORT = 65535


def bind(port: int) -> socket.socket:
    """A listening socket on the loopback address (port 0: any free port); a port in use is one GtkitError."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((HOST, port))
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise GtkitError(f"port {port} on {HOST} is in use: pick another with --port") from None
        raise GtkitError(f"cannot listen on {HOST}:{port} ({e.strerror})") from None
    sock.listen(64)
    return sock


def serve(dataset: Path, *, port: int = 8765, who: str | None = None, every_cell: bool = False,
          announce: Callable[[str], None] = print) -> None:
    """Serve the review of a consensus output (with `every_cell`, every cell of it), or of every cell of any other
    dataset or bundle, until interrupted; `announce` gets the URL to open."""
    import uvicorn

    from gtkit.review.app import create_app

    if not 0 <= port <= MAX_PORT:
        raise GtkitError(f"--port {port}: a port is 0 (any free port) to {MAX_PORT}")
    review = Review(Path(dataset), who or getpass.getuser(), every_cell=every_cell)
    sock = bind(port)
    token = secrets.token_urlsafe(24)
    app = create_app(review, token)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    announce(f"reviewing {len(review.items)} item(s) of {dataset}; decisions go to {review.decisions.path}")
    announce(f"open http://{HOST}:{sock.getsockname()[1]}/?token={token}   (Ctrl-C stops the server)")
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
