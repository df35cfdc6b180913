"""The person's language and time zone: their own choice, else the browser's, else the site's."""

from flask import Flask, current_app, has_request_context, request, session
from flask_login import current_user

# The languages the portal speaks, by code, each named in itself (as the switch shows them).
LANGUAGES = {"en": "English", "it": "Italiano"}
# Before logging in, the switch keeps the choice here; at login it moves to the account.
SESSION_KEY = "locale"


def chosen_locale() -> str | None:
    """The language the person picked (on their account, or in this session), if any."""
    if not has_request_context():
        return None
    stored = getattr(current_user, "locale", None) if current_user else None
    if stored in LANGUAGES:
        return stored
    picked = session.get(SESSION_KEY)
    return picked if picked in LANGUAGES else None


def select_locale() -> str:
    if not has_request_context():
        return current_app.config["DEFAULT_LOCALE"]
    return (
        chosen_locale()
        or request.accept_languages.best_match(LANGUAGES)
        or current_app.config["DEFAULT_LOCALE"]
    )


def select_timezone() -> str:
    stored = getattr(current_user, "timezone", None) if has_request_context() else None
    return stored or current_app.config["DEFAULT_TIMEZONE"]


def init_i18n(app: Flask) -> None:
    from app.extensions import babel

    if app.config["DEFAULT_LOCALE"] not in LANGUAGES:
        from app.errors import ConfigurationError

        raise ConfigurationError(
            f"DEFAULT_LOCALE is {app.config['DEFAULT_LOCALE']!r}; the portal speaks "
            + ", ".join(sorted(LANGUAGES))
            + "."
        )
    babel.init_app(app, locale_selector=select_locale, timezone_selector=select_timezone)
