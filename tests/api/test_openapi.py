"""The OpenAPI document is valid OpenAPI 3.1, generated from the routes, and complete; the
reference page is served from the portal itself."""

import re

from openapi_spec_validator import validate

from app.api.openapi import api_rules, openapi_path
from app.api.problems import KINDS


def test_the_document_is_valid_openapi_3_1(app):
    answer = app.test_client().get("/api/v1/openapi.json")
    assert answer.status_code == 200
    document = answer.get_json()
    assert document["openapi"] == "3.1.0"
    validate(document)


def test_every_api_route_and_method_is_in_the_document_and_nothing_else(app):
    document = app.test_client().get("/api/v1/openapi.json").get_json()
    routes = set()
    for rule, view in api_rules(app):
        assert getattr(view, "api_doc", None), f"{rule.rule} has no @operation"
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            routes.add((openapi_path(rule), method.lower()))
    documented = {
        (path, method)
        for path, operations in document["paths"].items()
        for method in operations
        if method != "parameters"
    }
    assert documented == routes


def test_every_protected_operation_names_its_scope_and_its_problems(app):
    document = app.test_client().get("/api/v1/openapi.json").get_json()
    problem_ref = "#/components/schemas/Problem"
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method == "parameters" or operation["security"] == []:
                continue
            [requirement] = operation["security"]
            assert requirement["token"], f"{method} {path} names no scope"
            for status in ("401", "403"):
                content = operation["responses"][status]["content"]
                assert content["application/problem+json"]["schema"]["$ref"] == problem_ref


def test_every_problem_kind_is_documented_and_has_a_page(app):
    client = app.test_client()
    document = client.get("/api/v1/openapi.json").get_json()
    text = str(document["paths"])
    for kind in KINDS:
        if kind in ("method-not-allowed", "server-error"):
            continue  # answers of any route, not of one operation
        assert f"{kind}:" in text, kind
        page = client.get(f"/api/v1/problems/{kind}")
        assert page.status_code == 200
    assert client.get("/api/v1/problems/nonsense").status_code == 404


def test_the_reference_page_loads_swagger_ui_from_the_portal_without_inline_scripts(app):
    client = app.test_client()
    page = client.get("/api/v1/docs")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    assert scripts and all('src="/static/' in attrs and not body.strip() for attrs, body in scripts)
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    for src in [
        *re.findall(r'(?:src|href)="(/static/[^"]+)"', html),
        "/static/vendor/swagger-ui/LICENSE",
    ]:
        answer = client.get(src)
        answer.close()
        assert answer.status_code == 200, src
