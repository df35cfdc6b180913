"""Which kinds of notification a person gets by e-mail (every kind is shown in the portal)."""

from __future__ import annotations

from app.auth.models import User
from app.extensions import db
from app.notifications.kinds import BY_NAME, DEFAULT_EMAIL_KINDS
from app.notifications.models import NotificationPreference


def email_kinds(user_id: int) -> frozenset[str]:
    """The kinds ``user_id`` wants by e-mail: their choice, or the defaults if they made none."""
    chosen = db.session.get(NotificationPreference, user_id)
    return DEFAULT_EMAIL_KINDS if chosen is None else frozenset(chosen.email_kinds or ())


def choose_email_kinds(user: User, chosen: set[str]) -> None:
    """Keep ``chosen`` as the kinds ``user`` gets by e-mail, and commit.

    Raises ValueError naming a kind this portal does not know (a forged form).
    """
    unknown = set(chosen) - set(BY_NAME)
    if unknown:
        raise ValueError(f"There is no notification kind called {sorted(unknown)[0]!r}.")
    preference = db.session.get(NotificationPreference, user.id)
    if preference is None:
        preference = NotificationPreference(user_id=user.id)
        db.session.add(preference)
    preference.email_kinds = sorted(chosen)
    db.session.commit()
