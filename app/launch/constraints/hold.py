"""A claim a launch makes, and a constraint's answer when it holds the launch back."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.auth.models import User
from app.errors import PortalError
from app.lines.places import Line
from app.quotas.operations import LaunchQuota


@dataclass(frozen=True)
class Claim:
    """What a launch asks: ``user``'s launch of ``charge`` charged to ``group_name``.
    ``excluding`` is its own row when it has one (a request admitted from the line), left out
    of what is held; ``from_line``: the line's own admission, which planned in the line's
    order and by the sites' room itself, so only the limits (and budgets) are asked again.
    ``template_slug`` and ``lease_minutes`` (None: the policy's default) say how long it is
    charged for against a budget over a period.

    ``quota``: the quotas' answer (``quota_of_launch``) when the caller has read it already
    for this very claim (the cost box, which shows it), else None and the quota constraint
    reads it. ``known``: what the constraints read for the claim, kept with it, so that the
    box shows what weighing it read without a second reading; it lives as long as the claim,
    one decision."""

    user: User
    group_name: str | None
    charge: dict
    excluding: int | None = None
    from_line: bool = False
    template_slug: str = ""
    lease_minutes: int | None = None
    quota: LaunchQuota | None = None
    known: dict = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Hold:
    """Why a launch does not start now.

    ``kind`` is the API's problem kind; ``sentence`` what the person is told when it is
    refused; ``error`` the named error that refusal raises. ``line``: where it may wait instead
    (None: it may not wait, and ``cannot_wait`` says why when waiting was asked for);
    ``reason``: why it waits, kept with its place; ``joined``: its timeline entry on joining.
    """

    kind: str
    sentence: str
    error: type[PortalError]
    line: Line | None = None
    reason: str = ""
    joined: str = ""
    cannot_wait: str = ""
