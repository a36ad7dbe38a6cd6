"""The web front end's errors: every expected failure becomes a JSON body `{"error": <one line>}`
with the right status, never a traceback. It never puts a token into a message, nor where the
server keeps its data: a failing Redis is named, with its address or data directory, in the
server's log only; whoever asked is told that the service is unavailable (503).
"""

from __future__ import annotations

import logging

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException

import core
from events.codec import DecodeError
from events.commands import UnknownGame, UnreadableGame
from events.server import REDIS_ERRORS, NotReplicated, RedisUnavailable, explain
from events.store import Conflict, NotPlayable

log = logging.getLogger("pbm.web")
# What a caller learns of a Redis that fails: not which one, where, or how (explain's line names
# its URL or the embedded server's data directory, and how it is set up: for the log).
UNAVAILABLE = "the service is unavailable for a moment: try again shortly"
RETRY_AFTER_S = 5


class ApiError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers


class JSONAnswer(Response):
    """A JSON answer encoded by orjson: the same compact UTF-8 as Starlette's JSONResponse, at a
    fraction of json.dumps's CPU for a seat's view (the move's answer, the hot path)."""

    media_type = "application/json"

    def render(self, content: object) -> bytes:
        return orjson.dumps(content)


def error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONAnswer:
    return JSONAnswer({"error": message}, status_code=status, headers=headers)


# Errors of the layers below, by the status they answer.
STATUS = (
    (Conflict, 409),
    (NotPlayable, 409),
    (UnreadableGame, 409),
    (UnknownGame, 404),
    (core.IllegalMove, 422),
    (core.SetupError, 422),
    (DecodeError, 500),
)


def validation_message(failure: RequestValidationError) -> str:
    problems = failure.errors()
    if not problems:
        return "bad request"
    first = problems[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body") or "body"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{where}: {first.get('msg', 'invalid')}{more}"


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_request: Request, failure: ApiError) -> JSONAnswer:
        return error(failure.status, failure.message, failure.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, failure: RequestValidationError) -> JSONAnswer:
        return error(422, validation_message(failure))

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, failure: HTTPException) -> JSONAnswer:
        return error(failure.status_code, str(failure.detail), getattr(failure, "headers", None))

    async def store_down(_request: Request, failure: Exception) -> JSONAnswer:
        log.error("%s", explain(failure))  # one line for the operator, without the password
        return error(503, UNAVAILABLE, {"Retry-After": str(RETRY_AFTER_S)})

    async def not_replicated(_request: Request, failure: NotReplicated) -> JSONResponse:
        # Written on the master, not yet confirmed by the replicas PBM_MIN_REPLICAS asks for: the
        # caller must know that the move may stand, and how to learn whether it does.
        log.warning("%s", failure)
        return error(503, str(failure), {"Retry-After": "1"})

    for failing in REDIS_ERRORS:
        app.add_exception_handler(failing, store_down)
    app.add_exception_handler(RedisUnavailable, store_down)
    app.add_exception_handler(NotReplicated, not_replicated)

    for kind, status in STATUS:
        app.add_exception_handler(kind, _answer(status))


def _answer(status: int):
    async def handler(_request: Request, failure: Exception) -> JSONAnswer:
        if status >= 500:
            log.error("%s: %s", type(failure).__name__, failure)
        return error(status, str(failure))

    return handler
