"""The portal's exceptions, and the handlers that turn any failure into one friendly page."""

import logging

from flask import Flask, render_template, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from app.extension_points import JSON_ERROR_ANSWERS

log = logging.getLogger(__name__)


class ConfigurationError(RuntimeError):
    """The portal's configuration is unusable; the message says how to fix it."""


class PortalError(Exception):
    """A failure with a message meant for the person who caused it.

    ``field`` names the form field the message belongs to, when there is one.
    """

    status_code = 400

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


class NotAllowed(PortalError):
    status_code = 403


class NotFound(PortalError):
    status_code = 404


_TITLES = {
    400: _l("That request could not be understood"),
    403: _l("You are not allowed to do that"),
    404: _l("Nothing here"),
    405: _l("That action is not possible here"),
    413: _l("That upload is too large"),
    429: _l("Too many attempts"),
    500: _l("Something went wrong on our side"),
}
# Werkzeug's own descriptions are English; the ones people meet get the portal's words.
_DESCRIPTIONS = {
    403: _l("You don't have the permission to open this page."),
    405: _l("That address does not take this kind of request."),
    413: _l("What was sent is larger than the portal accepts."),
    429: _l("Too many requests in a short time. Wait a moment and try again."),
}


def render_error(status: int, message: str | None = None):
    title = _TITLES.get(status) or _("Something went wrong")
    return render_template("errors/error.html", status=status, title=title, message=message), status


def _api_answer(error: Exception):
    """The JSON answer for ``error`` when a face registered one for this request (the API's
    problem+json, see ``app.api.init_api``), else None for the HTML page."""
    answer_for = JSON_ERROR_ANSWERS.one()
    return answer_for(error) if answer_for is not None else None


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(CSRFError)
    def csrf_error(error):
        return render_error(
            400,
            _(
                "The form had expired or was sent from elsewhere. Go back, reload the page and "
                "try again; nothing was changed."
            ),
        )

    @app.errorhandler(PortalError)
    def portal_error(error):
        answer = _api_answer(error)
        return answer if answer is not None else render_error(error.status_code, error.message)

    @app.errorhandler(HTTPException)
    def http_error(error):
        if error.code is None or error.code < 400:
            return error
        if (answer := _api_answer(error)) is not None:
            return answer
        if error.code in (404, 500):
            return render_error(error.code)
        message = error.description
        if message == type(error).description:  # Werkzeug's own English sentence
            message = _DESCRIPTIONS.get(error.code)
        return render_error(error.code, message and str(message))

    @app.errorhandler(Exception)
    def unexpected_error(error):
        log.exception("Unhandled error on %s %s", request.method, request.path)
        answer = _api_answer(error)
        return answer if answer is not None else render_error(500)
