"""Passwords of local accounts: the one rule a new password must meet, and changing one's own.

The command line (``flask users create/reset-password/bootstrap``) and the Account page apply
the same rule, so an operator cannot hand out a password the person could not have chosen.
"""

from flask import current_app
from flask_babel import gettext as _

from app.auth import local, logins, throttle
from app.auth.errors import LoginFailed, PasswordRefused
from app.auth.models import User
from app.extensions import db

# Longer than any passphrase a person types; Argon2 would hash more, but nobody needs it.
MAX_LENGTH = 1024


def check_new_password(password: str) -> None:
    """Raise PasswordRefused when ``password`` may not be a local account's password."""
    shortest = current_app.config["PASSWORD_MIN_LENGTH"]
    if len(password) < shortest:
        raise PasswordRefused(
            _("Choose a password of at least %(count)d characters.", count=shortest),
            "new_password",
        )
    if len(password) > MAX_LENGTH:
        raise PasswordRefused(
            _("Choose a password of at most %(count)d characters.", count=MAX_LENGTH),
            "new_password",
        )
    if not password.strip():
        raise PasswordRefused(_("A password cannot be only spaces."), "new_password")


def change_own_password(user: User, current: str, new: str, address: str) -> int:
    """Give ``user`` (a local account) the password ``new`` once ``current`` proves it is them,
    and end their other logins; returns how many were ended. Commits.

    Counted against the same limits as logins, so the form cannot be used to guess. Raises
    LoginThrottled when over a limit, LoginFailed (on the ``current_password`` field) for a
    wrong current password, PasswordRefused for a new password the rule refuses or for an
    account whose password the portal does not keep.
    """
    if user.provider != local.PROVIDER or not user.password_hash:
        raise PasswordRefused(
            _("Your password is kept by your identity provider: change it there.")
        )
    throttle.reserve_attempt(user.username, address)
    try:
        local.authenticate(user.subject, current)
    except LoginFailed:
        db.session.rollback()
        throttle.record_failure(user.username, address)
        raise LoginFailed(_("That is not your current password."), "current_password") from None
    throttle.record_success(user.username, address)
    try:
        check_new_password(new)
    except PasswordRefused:
        db.session.commit()  # the counted attempt was given back above
        raise
    user.password_hash = local.hash_password(new)
    ended = logins.end_others(user, logins.current_id())
    return ended
