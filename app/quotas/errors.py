"""Errors of the quotas feature, with messages for the person launching or editing."""

from app.errors import PortalError


class QuotaExceeded(PortalError):
    """A launch would go over a limit; the message names the limit and by how much.

    Nothing was reserved or recorded when it is raised.
    """

    status_code = 409


class KeptForLine(QuotaExceeded):
    """A launch its limits let start, but what it needs is kept for requests already waiting
    in line for it (the launch decision's line constraint): it may wait in line for its turn."""


class InvalidLimit(PortalError):
    """A limit typed by an operator can't be read; ``field`` names the form field."""


class OverBudget(PortalError):
    """A launch (or an extension) would overrun a budget: ``checks`` are the
    ``app.quotas.budgets.BudgetCheck`` it does not fit, the message their sentences. Nothing
    was reserved or recorded when it is raised. The API answers it with problem type
    ``budget``."""

    status_code = 409

    def __init__(self, checks):
        self.checks = list(checks)
        super().__init__("; ".join(check.sentence for check in self.checks))

    def numbers(self) -> list[dict]:
        """The figures of each budget not fitted, for scripts."""
        return [check.body() for check in self.checks]
