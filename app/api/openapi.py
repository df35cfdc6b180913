"""The OpenAPI 3.1 document, generated from the API's routes and schemas (apispec + marshmallow).

Each API view carries what the document needs through ``@operation``: a summary, the schemas of
its query, body and answer, and the kinds of problem it can answer with. The document walks the
application's URL map, so a route without ``@operation`` is a test failure, not a silent gap.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask

from app.api import dry_run_schemas, schemas
from app.api.problems import KINDS, MEDIA_TYPE

API_VERSION = "1.0.0"
# Kinds every authenticated route can answer with (too-many-attempts: see auth.throttle).
COMMON_PROBLEMS = ("unauthenticated", "missing-scope", "too-many-attempts")
BASE = "/api/v1"
_RULE_ARGUMENT = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")


def operation(
    summary: str,
    *,
    response: type | None = None,
    status: int = 200,
    query: type | None = None,
    body: type | None = None,
    problems: tuple[str, ...] = (),
    public: bool = False,
    media_type: str = "application/json",
    description: str = "",
    headers: dict[str, str] | None = None,
):
    """Describe an API view for the document: see the module's docstring."""

    def decorate(view):
        view.api_doc = {
            "summary": summary,
            "description": description or (view.__doc__ or "").strip(),
            "response": response,
            "status": status,
            "query": query,
            "body": body,
            "problems": tuple(problems) + (() if public else COMMON_PROBLEMS),
            "public": public,
            "media_type": media_type,
            "headers": headers or {},
        }
        return view

    return decorate


def api_rules(app: Flask):
    """(rule, view) of every route of the API blueprint."""
    for rule in app.url_map.iter_rules():
        if rule.endpoint.startswith("api."):
            yield rule, app.view_functions[rule.endpoint]


def openapi_path(rule) -> str:
    """The rule's path in OpenAPI's template syntax, relative to the API's base."""
    return _RULE_ARGUMENT.sub(r"{\1}", rule.rule).removeprefix(BASE)


def build(app: Flask, server_url: str) -> dict[str, Any]:
    """The OpenAPI document of ``app``'s API, as a dict."""
    spec = APISpec(
        title="Research cloud portal API",
        version=API_VERSION,
        openapi_version="3.1.0",
        plugins=[MarshmallowPlugin()],
        info={
            "description": (
                "Templates, deployments and quotas for scripts. Authenticate with a personal "
                "access token (Authorization: Bearer). Errors are application/problem+json "
                "(RFC 9457) with a stable type per kind. Pages are counted from 1."
            )
        },
        servers=[{"url": server_url}],
    )
    spec.components.security_scheme(
        "token", {"type": "http", "scheme": "bearer", "description": "A personal access token"}
    )
    spec.components.schema("Problem", schema=schemas.Problem)
    # The dry run's answer (200) is named in the launch's description rather than its responses.
    spec.components.schema("DryRun", schema=dry_run_schemas.DryRun)
    for rule, view in sorted(api_rules(app), key=lambda pair: pair[0].rule):
        doc = getattr(view, "api_doc", None)
        if doc is None:
            continue
        operations = {
            method.lower(): _operation(rule, view, doc)
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"})
        }
        parameters = [
            {"name": name, "in": "path", "required": True, "schema": _path_type(rule, name)}
            for name in rule.arguments
        ]
        spec.path(path=openapi_path(rule), operations=operations, parameters=parameters)
    return spec.to_dict()


def _path_type(rule, name: str) -> dict:
    converter = rule._converters.get(name)
    return (
        {"type": "integer"}
        if type(converter).__name__ == "IntegerConverter"
        else {"type": "string"}
    )


def _operation(rule, view, doc: dict) -> dict:
    operation: dict[str, Any] = {
        "operationId": rule.endpoint.removeprefix("api."),
        "summary": doc["summary"],
        "tags": [openapi_path(rule).split("/")[1]],
    }
    if doc["description"]:
        operation["description"] = doc["description"]
    scope = getattr(view, "required_scope", None)
    if doc["public"]:
        operation["security"] = []
    else:
        operation["security"] = [{"token": [scope] if scope else []}]
    if doc["query"]:
        operation["parameters"] = [{"in": "query", "schema": doc["query"]}]
    if rule.methods & {"POST"} and doc["body"] is not None:
        operation.setdefault("parameters", []).append(
            {
                "in": "header",
                "name": "Idempotency-Key",
                "required": False,
                "schema": {"type": "string", "maxLength": 200},
                "description": "The same key within a day returns the first answer.",
            }
        )
    if doc["body"]:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": doc["body"]}},
        }
    answer: dict[str, Any] = {"description": doc["summary"]}
    if doc["response"] is not None:
        answer["content"] = {doc["media_type"]: {"schema": doc["response"]}}
    elif doc["media_type"] != "application/json":
        answer["content"] = {doc["media_type"]: {"schema": {"type": "string"}}}
    if doc["headers"]:
        answer["headers"] = {
            name: {"description": text, "schema": {"type": "string"}}
            for name, text in doc["headers"].items()
        }
    operation["responses"] = {str(doc["status"]): answer, **_problem_responses(doc["problems"])}
    return operation


def _problem_responses(kinds) -> dict:
    by_status: dict[int, list[str]] = defaultdict(list)
    for kind in kinds:
        by_status[KINDS[kind][0]].append(kind)
    responses = {}
    for status, names in sorted(by_status.items()):
        response = {
            "description": "; ".join(f"{name}: {KINDS[name][1]}" for name in names),
            "content": {MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        if {"rate-limited", "idempotency-key-in-use", "too-many-attempts"} & set(names):
            response["headers"] = {
                "Retry-After": {"description": "Seconds to wait", "schema": {"type": "integer"}}
            }
        responses[str(status)] = response
    return responses
