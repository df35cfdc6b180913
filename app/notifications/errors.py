"""What can go wrong with notifications, in words for the person who must act."""

from app.errors import PortalError


class MailSettingsError(PortalError):
    """The mail settings do not let the portal send mail; the message says which and why."""

    status_code = 500
