"""Notifications: telling people what happened to their deployments, in the portal and by mail.

Timeline entries become notifications in the same transaction (``listener``), and so do the
quotas' warnings of a budget nearly or wholly used (``budget_notices``); the portal shows
them at once (a menu in the navigation bar and a page); e-mails are sent by the worker's mail
duty (``flask worker``, or ``flask notifications send --loop``) when a mail server is
configured.
"""

from flask import Flask

from app.errors import ConfigurationError


def init_notifications(app: Flask) -> None:
    from app.auth.logins import LoginReading
    from app.extension_points import (
        ACCOUNT_SECTIONS,
        BACKGROUND_DUTIES,
        BUDGET_WARNINGS,
        LOGIN_READINGS,
        NAVIGATION_MENUS,
    )
    from app.extensions import mail
    from app.notifications import models  # noqa: F401  (registers the tables)
    from app.notifications.budget_notices import tell_budget_reached
    from app.notifications.sending import send_once
    from app.notifications.views import (
        UNREAD_READING,
        draws_the_menu,
        email_choices_context,
        navigation_menu,
        unread_with_login,
    )
    from app.worker import Duty

    _check_settings(app)
    # SMTP always: Flask-Mailman would otherwise keep mail in memory when TESTING is on, and
    # the tests talk to a real SMTP server.
    app.config["MAIL_BACKEND"] = "smtp"
    mail.init_app(app)
    app.context_processor(lambda: {"notifications_menu": navigation_menu})
    NAVIGATION_MENUS.add(app, "notifications/_menu.html")
    # Every page a logged-in person sees draws the menu's count: it comes with the login check
    # rather than in a round trip of its own.
    LOGIN_READINGS.add(app, LoginReading(UNREAD_READING, unread_with_login, draws_the_menu))
    ACCOUNT_SECTIONS.add(app, ("notifications/_email_choices.html", email_choices_context))
    # The quotas' budgets pass tells of a budget nearly or wholly used through this.
    BUDGET_WARNINGS.add(app, tell_budget_reached)
    BACKGROUND_DUTIES.add(
        app,
        Duty(
            "mail",
            send_once,
            every="NOTIFICATIONS_SEND_TICK_SECONDS",
            # Well within the claims, so that no other worker takes a mail of this pass.
            budget=lambda config: config["NOTIFICATIONS_CLAIM_SECONDS"] / 2,
            claims="due mails, up to NOTIFICATIONS_SEND_BATCH, each claimed with a token for "
            "NOTIFICATIONS_CLAIM_SECONDS",
        ),
    )


def _check_settings(app: Flask) -> None:
    config = app.config
    if not config.get("MAIL_SERVER"):
        return
    if not config.get("MAIL_DEFAULT_SENDER"):
        raise ConfigurationError(
            "Refusing to start: MAIL_SERVER is set but MAIL_DEFAULT_SENDER is not. Set "
            'PORTAL_MAIL_DEFAULT_SENDER to the address mails come from, e.g. "Research Cloud '
            'Portal <cloud@example.org>".'
        )
    if not config.get("PORTAL_BASE_URL"):
        raise ConfigurationError(
            "Refusing to start: MAIL_SERVER is set but PORTAL_BASE_URL is not, and mails link "
            'to the portal. Set PORTAL_PORTAL_BASE_URL, e.g. "https://portal.example.org".'
        )
    if config.get("MAIL_USE_TLS") and config.get("MAIL_USE_SSL"):
        raise ConfigurationError(
            "Refusing to start: MAIL_USE_TLS and MAIL_USE_SSL are both on. Use MAIL_USE_SSL "
            "for a server that speaks TLS from the start (port 465), MAIL_USE_TLS for STARTTLS "
            "(port 587), not both."
        )
