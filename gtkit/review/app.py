"""The review web application (Starlette): the page, its script and style, the items, page images, decisions.

Security model (the server listens on 127.0.0.1 only, see `serve`):

- every request must carry the session's random token, else 403: as the `token` query parameter
  for what the browser loads (the page, its script and style, the page images, the item JSON), and
  as the `X-Gtkit-Token` header for a POST, the only requests that change anything; a POST with the
  token in its URL only is refused too, so a page of another site cannot forge one (it cannot set
  the header without the browser's CORS preflight, which this server never answers);
- the Host header must name the loopback address (a DNS-rebinding page gets 403);
- no asset comes from elsewhere: the script and style are files of this package, and the page's
  Content-Security-Policy lets the browser load nothing but this server's own files.

A decision's body is at most `MAX_BODY` bytes (413 beyond: a larger Content-Length is refused before
reading, a body without one as soon as it passes the limit) of JSON nested at most `MAX_DEPTH` deep
(400 beyond, checked before parsing, so no recursion limit is ever met); its keys are then typed
strictly (`gtkit.review.state.Sent`).
"""

from __future__ import annotations

import json
import re
import secrets
from importlib.resources import files
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from gtkit.errors import GtkitError
from gtkit.files.write import AppendFailed
from gtkit.review.state import Review
from gtkit.review.store import ApplyFailed, ChangedUnderUs

MAX_BODY = 1 << 20   # bytes of a request body
MAX_DEPTH = 64       # nesting of the JSON of a request body (arrays and objects)
# A JSON string (its brackets are not nesting), and every byte but a bracket.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
STATIC = {"review.js": "text/javascript", "review.css": "text/css", "favicon.svg": "image/svg+xml"}
LOOPBACK = ("127.0.0.1", "localhost")
HEADER = "x-gtkit-token"
# The browser itself refuses anything from elsewhere, inline scripts, framing, and sending the address on.
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
                               "connect-src 'self'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}


def _asset(name: str) -> str:
    return files("gtkit.review").joinpath("static", name).read_text(encoding="utf-8")


class TokenGate:
    """ASGI middleware: 403 for any request without the token (query for GET, header for POST) or from
    a host name other than the loopback address."""

    def __init__(self, app: Any, token: str):
        self.app, self.token = app, token

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self._allowed(scope):
            refusal = PlainTextResponse("forbidden: this review session needs its token", status_code=403)
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _allowed(self, scope: dict) -> bool:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "").rsplit(":", 1)[0]
        if host not in LOOPBACK:
            return False
        if scope["method"] == "POST":
            given = headers.get(HEADER, "")
        else:
            given = (parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token") or [""])[0]
        return secrets.compare_digest(given.encode(), self.token.encode())


class Refused(Exception):
    """A request body refused before it is looked at: its HTTP status and one line saying why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


async def read_body(request: Request) -> bytes:
    """The request body, at most MAX_BODY bytes (else Refused, 413): a larger Content-Length is refused before
    reading, and a body sent without one is counted as it comes."""
    too_large = Refused(413, f"the request body is larger than {MAX_BODY} bytes")
    declared = request.headers.get("content-length", "")
    if re.fullmatch(r"[0-9]+", declared) and int(declared) > MAX_BODY:
        raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise too_large
    return bytes(body)


def parse_json(body: bytes) -> Any:
    """The JSON value of a request body (else Refused, 400), its nesting checked first: the brackets outside
    strings are counted, so a body nested deeper than MAX_DEPTH never reaches the (recursive) parser."""
    depth = 0
    for c in _STRING.sub(b'""', body).translate(None, _NOT_BRACKETS):
        depth += 1 if c in b"[{" else -1
        if depth > MAX_DEPTH:
            raise Refused(400, f"the request is JSON nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(body)
    except ValueError:
        raise Refused(400, "the request is not JSON") from None


def create_app(review: Review, token: str) -> Any:
    """The ASGI application, behind its token gate."""
    return TokenGate(Starlette(routes=[*_reading_routes(review, token), *_deciding_routes(review)]), token)


def _reading_routes(review: Review, token: str) -> list[Route]:
    """What the browser loads (GET): the page, its script and style, the state, an item, a page image."""

    def page(request: Request) -> Response:
        html = _asset("review.html").replace("{{TOKEN}}", token)
        return Response(html, media_type="text/html", headers={"Cache-Control": "no-store", **PAGE_HEADERS})

    def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return PlainTextResponse("not found", status_code=404)
        return Response(_asset(name), media_type=STATIC[name])

    def state(request: Request) -> Response:
        return JSONResponse(review.state())

    def item(request: Request) -> Response:
        try:
            return JSONResponse(review.detail(request.path_params["i"]))
        except GtkitError as e:
            return JSONResponse({"error": str(e)}, status_code=404)

    def image(request: Request) -> Response:
        try:
            png = review.page_png(request.path_params["doc"], request.path_params["page"])
        except (KeyError, IndexError):
            return PlainTextResponse("no such page", status_code=404)
        return Response(png, media_type="image/png", headers={"Cache-Control": "private, max-age=3600"})

    return [
        Route("/", page),
        Route("/static/{name}", static),
        Route("/api/state", state),
        Route("/api/item/{i:int}", item),
        Route("/page/{doc}/{page:int}.png", image),
    ]


def _deciding_routes(review: Review) -> list[Route]:
    """What changes something (POST): a decision appended, the decisions applied."""

    async def decide(request: Request) -> Response:
        try:
            sent = parse_json(await read_body(request))
        except Refused as e:
            return JSONResponse({"error": str(e)}, status_code=e.status)
        try:
            return JSONResponse(await run_in_threadpool(review.decide, sent))
        except ChangedUnderUs as e:
            return JSONResponse({"error": str(e)}, status_code=409)
        except AppendFailed as e:  # nothing written: the same decision may be sent again
            return JSONResponse({"error": str(e)}, status_code=507 if e.disk_full else 503)
        except GtkitError as e:
            return JSONResponse({"error": str(e)}, status_code=400)

    async def apply(request: Request) -> Response:
        try:
            return JSONResponse(await run_in_threadpool(review.apply))
        except ChangedUnderUs as e:
            return JSONResponse({"error": str(e)}, status_code=409)
        except ApplyFailed as e:  # nothing applied: apply now may be pressed again
            return JSONResponse({"error": str(e)}, status_code=507 if e.disk_full else 503)
        except GtkitError as e:
            return JSONResponse({"error": str(e)}, status_code=400)

    return [
        Route("/api/decide", decide, methods=["POST"]),
        Route("/api/apply", apply, methods=["POST"]),
    ]
