"""``current_user`` is found by the portal's own reading of the request's contexts, and finds
who Flask-Login would: nobody outside a request, the visitor, then the person logged in."""

import flask_login.utils
from flask_login import current_user

from app.auth import Anonymous
from app.auth.logins import request_user


def test_current_user_is_read_the_portal_s_way(app):
    assert flask_login.utils._get_user is request_user


def test_nobody_outside_a_request_a_visitor_before_login_the_person_after(app, client, people):
    with app.app_context():
        assert request_user() is None
    with client:
        client.get("/healthz")
        assert isinstance(current_user._get_current_object(), Anonymous)
    user_id = people.login_as("user", username="reader")
    with client:
        client.get("/healthz")
        assert current_user.id == user_id and current_user.username == "reader"
        assert current_user._get_current_object() is current_user._get_current_object()
    page = client.get("/account/").get_data(as_text=True)
    assert "reader" in page
