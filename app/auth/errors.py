"""Why a login did not work, in words for the person trying."""

from flask_babel import gettext as _

from app.errors import PortalError

# One message for unknown users and wrong passwords, so that the form does not reveal who has
# an account. In English here; LoginFailed puts it in the person's language when raised.
BAD_CREDENTIALS = "Unknown username or wrong password."


class LoginFailed(PortalError):
    status_code = 401

    def __init__(self, message: str | None = None, field: str | None = None):
        super().__init__(message or _("Unknown username or wrong password."), field)


class LoginThrottled(PortalError):
    status_code = 429


class DirectoryUnavailable(PortalError):
    """The LDAP server could not be reached, or did not answer in time."""

    status_code = 503


class ProviderError(PortalError):
    """The OpenID Connect provider refused, failed, or sent something we cannot trust."""

    status_code = 400


# What the portal says when an identity provider (named by its label) lets a login down.
def not_answering(provider: str) -> ProviderError:
    return ProviderError(
        _(
            "The identity provider %(provider)s is not answering right now. Please try again in "
            "a few minutes.",
            provider=provider,
        )
    )


def unusable_answer(provider: str) -> ProviderError:
    return ProviderError(
        _(
            "The identity provider %(provider)s sent an answer the portal cannot use. Please try "
            "again later; if it keeps happening, tell the portal's operators.",
            provider=provider,
        )
    )


def unverifiable(provider: str) -> ProviderError:
    return ProviderError(
        _(
            "The login from %(provider)s could not be verified. Please try again; if it keeps "
            "happening, tell the portal's operators.",
            provider=provider,
        )
    )


def no_renewal(provider: str) -> ProviderError:
    return ProviderError(_("%(provider)s refused to renew the login.", provider=provider))


class TokenUnavailable(PortalError):
    """No usable access token for calls made on the user's behalf: they must log in again."""

    status_code = 401


class GroupsNotEditable(PortalError):
    """The account's groups come from its identity provider, not from the portal."""

    status_code = 409


class InvalidGroupName(PortalError):
    """A name given as a group could not be one."""

    status_code = 400


class PasswordRefused(PortalError):
    """A new password that the rule for local accounts refuses, or that cannot be set here."""

    status_code = 400


class AccountExists(PortalError):
    """A local account of that name exists already."""

    status_code = 409


class EmailNotEditable(PortalError):
    """The account's address comes from its identity provider or directory at each login."""

    status_code = 409


class InvalidEmail(PortalError):
    """A text given as an e-mail address could not be one."""

    status_code = 400


class NoSuchPerson(PortalError):
    """No account, or more than one, answers to the username given."""

    status_code = 400
