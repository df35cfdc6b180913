"""The application as a whole: configuration, security headers, cookies and error pages."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from app import create_app
from app.errors import ConfigurationError
from tests.conftest import TEST_CONFIG, csrf_from

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "templates"


def test_the_portal_refuses_to_start_with_the_default_secret_key(tmp_path):
    with pytest.raises(ConfigurationError, match="SECRET_KEY is the default"):
        create_app({"SECRET_KEY": "change-me"}, instance_path=str(tmp_path))


def test_development_mode_accepts_the_default_secret_key(tmp_path):
    app = create_app({"SECRET_KEY": "change-me", "DEVELOPMENT": True}, instance_path=str(tmp_path))
    assert app.config["SESSION_COOKIE_SECURE"] is False


def test_environment_variables_override_the_defaults(tmp_path, monkeypatch):
    monkeypatch.setenv("PORTAL_SECRET_KEY", "from-the-environment")
    monkeypatch.setenv("PORTAL_LOCAL_LOGIN_ENABLED", "false")
    monkeypatch.setenv("PORTAL_ROLE_GROUPS", '{"admin": ["wheel"]}')
    monkeypatch.setenv("PORTAL_ORCHESTRATOR_URL", "demo")
    app = create_app(instance_path=str(tmp_path))
    assert app.config["SECRET_KEY"] == "from-the-environment"
    assert app.config["LOCAL_LOGIN_ENABLED"] is False
    assert app.config["ROLE_GROUPS"] == {"admin": ["wheel"]}


def test_a_settings_file_overrides_the_defaults(tmp_path, monkeypatch):
    settings = tmp_path / "portal.py"
    settings.write_text(
        "SECRET_KEY = 'from-a-file'\nPORTAL_NAME = 'INFN Cloud'\nORCHESTRATOR_URL = 'demo'\n"
    )
    monkeypatch.setenv("PORTAL_SETTINGS", str(settings))
    app = create_app(instance_path=str(tmp_path / "instance"))
    assert (app.config["SECRET_KEY"], app.config["PORTAL_NAME"]) == ("from-a-file", "INFN Cloud")


def test_pages_carry_a_content_security_policy_without_inline_scripts(client):
    response = client.get("/login")
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "same-origin"


def test_no_template_contains_an_inline_script_or_style_attribute():
    for path in TEMPLATES.rglob("*.html"):
        text = path.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), path
        assert not re.search(r"\sstyle=\"", text), path
        assert not re.search(r"\son[a-z]+=\"", text), path


def test_the_session_cookie_is_secure_httponly_and_samesite(people, client):
    people.create("ada")
    response = people.login("ada")
    cookie = next(c for c in response.headers.getlist("Set-Cookie") if c.startswith("session="))
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_an_unknown_page_gets_a_friendly_404(client):
    response = client.get("/no/such/page")
    assert response.status_code == 404
    assert "Nothing here" in response.get_data(as_text=True)


def test_an_error_in_a_view_gets_the_500_page_without_a_stack_trace(make_app):
    app = make_app(PROPAGATE_EXCEPTIONS=False)

    @app.route("/boom")
    def boom():
        raise RuntimeError("secret internals")

    response = app.test_client().get("/boom")
    html = response.get_data(as_text=True)
    assert response.status_code == 500
    assert "Something went wrong on our side" in html
    assert "secret internals" not in html and "Traceback" not in html


@pytest.mark.parametrize("url", ["/admin/catalogue/", "/quotas/"])
def test_a_researcher_gets_403_on_admin_and_operator_pages(login_as, client, url):
    login_as("user")
    response = client.get(url)
    assert response.status_code == 403
    assert "You are not allowed to do that" in response.get_data(as_text=True)


def test_an_operator_reaches_quotas_but_not_admin(login_as, client):
    login_as("operator")
    assert client.get("/quotas/").status_code == 200
    assert client.get("/admin/catalogue/").status_code == 403


def test_a_visitor_is_sent_to_log_in_and_back(client):
    response = client.get("/deployments/")
    assert response.status_code == 302
    assert response.headers["Location"] == "/login?next=/deployments/?"


def test_an_expired_session_says_so(people, client, app):
    people.create("ada")
    people.login("ada")
    # What the browser holds once the session cookie has run out: only the longer-lived hint.
    client.delete_cookie("session")
    response = client.get("/deployments/", follow_redirects=True)
    assert "Your session has expired. Please log in again." in response.get_data(as_text=True)


def test_a_stale_form_token_gets_a_clear_message_and_changes_nothing(people, client, app):
    people.create("ada")
    people.login("ada")
    page = client.get("/deployments/").get_data(as_text=True)
    token = csrf_from(page)
    response = client.post("/logout", data={"csrf_token": token + "tampered"})
    assert response.status_code == 400
    assert "The form had expired" in response.get_data(as_text=True)
    assert client.get("/deployments/").status_code == 200  # still logged in


def test_health_check_answers(client):
    assert client.get("/healthz").get_json() == {"status": "ok"}


def test_apps_under_test_keep_the_production_safeguards(app, client):
    # Tests must exercise what production runs: no development relaxations.
    assert app.config["DEVELOPMENT"] is False
    assert app.config["SESSION_COOKIE_SECURE"] is True
    https = client.get("/login", base_url="https://portal.test")
    assert "max-age" in https.headers["Strict-Transport-Security"]
    with pytest.raises(ConfigurationError, match="SECRET_KEY is the default"):
        create_app({**TEST_CONFIG, "SECRET_KEY": "change-me"}, instance_path=app.instance_path)


@pytest.mark.parametrize(
    "body",
    [
        b"username=ada%FF%FE&password=x&method=local",
        b"username=ada\xff\xfe&password=x&method=local",
        b"username=%C3%28&password=x&method=local",
    ],
    ids=["percent-encoded", "raw", "truncated-sequence"],
)
def test_a_form_that_is_not_utf8_is_refused_in_words_not_as_expired(client, body):
    token = csrf_from(client.get("/login").get_data(as_text=True))
    response = client.post(
        "/login",
        data=b"csrf_token=" + token.encode() + b"&" + body,
        content_type="application/x-www-form-urlencoded",
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "The form data could not be read" in html and "not UTF-8 text" in html
    assert "The form had expired" not in html


def test_a_multipart_form_that_is_not_utf8_is_refused_in_words(client):
    token = csrf_from(client.get("/login").get_data(as_text=True))
    boundary = "portal-boundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n{token}\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="username"\r\n\r\n'
        ).encode()
        + b"ada\xff\r\n"
        + f"--{boundary}--\r\n".encode()
    )
    response = client.post(
        "/login", data=body, content_type=f"multipart/form-data; boundary={boundary}"
    )
    assert response.status_code == 400
    assert "The form data could not be read" in response.get_data(as_text=True)


def test_utf8_text_of_every_script_passes_the_check(people, client):
    people.create("zoë-Łukasz-日本")
    response = people.login("zoë-Łukasz-日本")
    assert response.status_code == 302


def test_behind_a_configured_proxy_the_client_address_comes_from_x_forwarded_for(make_app):
    app = make_app(PROXY_FIX=1)

    @app.route("/whoami")
    def whoami():
        from flask import request

        return request.remote_addr

    client = app.test_client()
    assert client.get("/whoami", headers={"X-Forwarded-For": "192.0.2.7"}).text == "192.0.2.7"
    plain = make_app().test_client()
    plain.application.add_url_rule("/whoami", view_func=whoami)
    assert plain.get("/whoami", headers={"X-Forwarded-For": "192.0.2.7"}).text == "127.0.0.1"


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "flask", "routes"],
        [sys.executable, "-m", "gunicorn", "--bind", "127.0.0.1:0", "wsgi:app"],
    ],
    ids=["flask", "gunicorn"],
)
def test_a_refusal_to_start_is_one_clear_sentence_without_a_traceback(tmp_path, command):
    env = {key: value for key, value in os.environ.items() if not key.startswith("PORTAL_")} | {
        "PORTAL_INSTANCE_PATH": str(tmp_path),
        "PORTAL_SECRET_KEY": "s" * 40,
        "FLASK_APP": "wsgi",
    }
    ended = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert ended.returncode != 0
    said = "The portal did not start." if "gunicorn" in command else "this command cannot run."
    assert f"{said} No orchestrator is configured." in ended.stderr
    assert "Traceback" not in ended.stderr


def test_a_misspelt_variable_is_named_at_start_with_the_setting_it_resembles(
    tmp_path, monkeypatch, caplog
):
    monkeypatch.setenv("PORTAL_SECRET_KEY", "from-the-environment")
    monkeypatch.setenv("PORTAL_ORCHESTRATOR_URL", "demo")
    monkeypatch.setenv("PORTAL_ORCHESTRATOR_ULR", "https://orchestrator.example.org")
    monkeypatch.setenv("PORTAL_ADMIN_PASSWORD", "read by the set-up, not a setting")
    with caplog.at_level("WARNING"):
        create_app(instance_path=str(tmp_path))
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert (
        "PORTAL_ORCHESTRATOR_ULR names no setting of the portal and is ignored. "
        "Did you mean PORTAL_ORCHESTRATOR_URL?"
    ) in warnings
    assert not any("PORTAL_ADMIN_PASSWORD" in w or "PORTAL_SECRET_KEY" in w for w in warnings)
