"""The TOSCA library reads the running app's settings, and the committed ones elsewhere."""

from flask import Flask

from app.tosca.settings import _committed, setting


def test_the_running_app_s_value_is_read(app):
    with app.app_context():
        app.config["INPUT_MAX_DIGITS"] = 7
        assert setting("INPUT_MAX_DIGITS") == 7


def test_outside_an_app_or_in_a_bare_app_the_committed_value_is_read():
    committed = _committed()["INPUT_MAX_DIGITS"]
    assert setting("INPUT_MAX_DIGITS") == committed
    with Flask("bare").app_context():
        assert setting("INPUT_MAX_DIGITS") == committed
