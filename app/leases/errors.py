"""The leases feature's errors: each carries a sentence for a person (and a form field)."""

from app.errors import PortalError


class InvalidPolicy(PortalError):
    """A lease policy, or a duration in it, that cannot be accepted."""

    status_code = 400


class ExtendRefused(PortalError):
    """A lease that may not be extended now; the message says why."""

    status_code = 409
