"""Why a login did not work, in words for the person trying."""

from app.errors import PortalError

# One message for unknown users and wrong passwords, so that the form does not reveal who has
# an account.
BAD_CREDENTIALS = "Unknown username or wrong password."


class LoginFailed(PortalError):
    status_code = 401

    def __init__(self, message: str = BAD_CREDENTIALS, field: str | None = None):
        super().__init__(message, field)


class LoginThrottled(PortalError):
    status_code = 429


class DirectoryUnavailable(PortalError):
    """The LDAP server could not be reached, or did not answer in time."""

    status_code = 503


class ProviderError(PortalError):
    """The OpenID Connect provider refused, failed, or sent something we cannot trust."""

    status_code = 400


class TokenUnavailable(PortalError):
    """No usable access token for calls made on the user's behalf: they must log in again."""

    status_code = 401


class GroupsNotEditable(PortalError):
    """The account's groups come from its identity provider, not from the portal."""

    status_code = 409


class InvalidGroupName(PortalError):
    """A name given as a group could not be one."""

    status_code = 400


class AccountExists(PortalError):
    """A local account of that name exists already."""

    status_code = 409
