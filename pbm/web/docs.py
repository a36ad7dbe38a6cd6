"""The API's spec and its page, served by the app itself: `/openapi.json`, and `/docs`, drawn on the
server from that spec as plain HTML (no script, no CDN, nothing fetched from anywhere else), both
with a Content-Security-Policy. It shows the spec and nothing else: no token, no game.

FastAPI's own /docs and /redoc pages load Swagger UI and ReDoc from a CDN: an operator offline (or
behind a firewall) saw a blank page, and every visitor's browser ran that CDN's script on this
server's origin, where the seats' cookies are. This page has no script to run.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from pbm.web.render import environment

router = APIRouter(include_in_schema=False)

DOCS_POLICY = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
SPEC_POLICY = "default-src 'none'; frame-ancestors 'none'; sandbox"  # JSON: nothing in it may run or be framed
METHODS = ("get", "post", "put", "delete", "patch")


def _headers(policy: str) -> dict[str, str]:
    return {"Content-Security-Policy": policy, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


@router.get("/openapi.json")
async def spec(request: Request) -> Response:
    return JSONResponse(request.app.openapi(), headers=_headers(SPEC_POLICY))


@router.get("/docs", response_class=HTMLResponse)
async def docs(request: Request) -> Response:
    from pbm.web.pages import STATIC_PATH  # the page's stylesheet, at its content-named path

    openapi = request.app.openapi()
    html = environment.get_template("docs.html").render(
        info=openapi["info"],
        openapi_version=openapi.get("openapi", "3"),
        operations=operations(openapi),
        schemas=schemas(openapi),
        static=STATIC_PATH,
    )
    return HTMLResponse(html, headers=_headers(DOCS_POLICY))


def operations(openapi: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for path, item in openapi.get("paths", {}).items():
        for method in METHODS:
            if method not in item:
                continue
            operation = item[method]
            body = operation.get("requestBody", {}).get("content", {})
            found.append({
                "id": operation.get("operationId", f"{method}-{path}"),
                "method": method.upper(),
                "path": path,
                "summary": operation.get("summary", ""),
                "description": operation.get("description", ""),
                "bearer": bool(operation.get("security")),
                "parameters": [
                    {"name": p["name"], "in": p["in"], "required": p.get("required", False), "type": type_text(p.get("schema", {}))}
                    for p in operation.get("parameters", [])
                ],
                "body": {kind: type_text(content.get("schema", {})) for kind, content in body.items()},
                "responses": [(status, answer.get("description", "")) for status, answer in operation.get("responses", {}).items()],
            })
    return found


def schemas(openapi: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for name, schema in openapi.get("components", {}).get("schemas", {}).items():
        required = set(schema.get("required", ()))
        fields = [
            {"name": field, "required": field in required, "type": type_text(inner), "default": inner.get("default")}
            for field, inner in schema.get("properties", {}).items()
        ]
        found.append({"name": name, "fields": fields, "closed": schema.get("additionalProperties") is False})
    return found


def type_text(schema: dict[str, Any]) -> str:
    """A JSON schema as a line a person reads: `string (1 to 200 characters)`, `list of SeatSpec`."""
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if "anyOf" in schema:
        kinds = [type_text(each) for each in schema["anyOf"]]
        return " or ".join(kinds)
    kind = schema.get("type")
    if kind == "array":
        return f"list of {type_text(schema.get('items', {}))}" + _bounds(schema, "minItems", "maxItems", "items")
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"object of {type_text(schema['additionalProperties'])}" + _bounds(schema, "minProperties", "maxProperties", "entries")
    if kind == "string":
        pattern = f", matching {schema['pattern']}" if "pattern" in schema else ""
        return "string" + _bounds(schema, "minLength", "maxLength", "characters") + pattern
    if kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum", schema.get("exclusiveMaximum"))
        if low is None and high is None:
            return kind
        below = "below" if "exclusiveMaximum" in schema and "maximum" not in schema else "to"
        return f"{kind} ({_number(low) if low is not None else '…'} {below} {_number(high) if high is not None else '…'})"
    return kind or "any JSON"


def _bounds(schema: dict[str, Any], low_key: str, high_key: str, unit: str) -> str:
    low, high = schema.get(low_key), schema.get(high_key)
    if low is None and high is None:
        return ""
    if high is None:
        return f" (at least {low} {unit})"
    return f" ({low or 0} to {high} {unit})"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:.3g}"
