"""TOSCA value types that need more than a Python built-in: versions and timestamps (the
scalar-units are read in ``app.tosca.units``).

Each parser accepts what a person types or what a template holds and raises ``ValueError`` with a
message for that person when the text is not a valid value.
"""

from __future__ import annotations

import datetime as dt
import re

from flask_babel import gettext as _

from app.tosca.numbers import whole

# The minor version may be left out: "7" is version 7.0 to tosca-parser, and a valid version
# to the orchestrator's parser, so templates write ``version: 7`` and deploy.
_VERSION_RE = re.compile(r"(\d+)(?:\.(\d+)(?:\.(\d+)(?:\.([A-Za-z0-9_]+)(?:-(\d+))?)?)?)?")


def parse_version(value) -> tuple:
    """Parse a TOSCA version ``major[.minor[.fix[.qualifier[-build]]]]`` into a sortable tuple
    (a missing minor version counts as 0, so 7 equals 7.0).

    Raises ``ValueError`` for anything else.
    """
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(_("must be a version such as 1.0 or 2.1.3"))
    match = _VERSION_RE.fullmatch(str(value).strip())
    if not match:
        raise ValueError(_("must be a version such as 1.0 or 2.1.3"))
    major, minor, fix, qualifier, build = match.groups()
    return (whole(major), whole(minor or 0), whole(fix or 0), qualifier or "", whole(build or 0))


def parse_timestamp(value) -> dt.datetime:
    """Parse an ISO 8601 / YAML timestamp; a bare date means midnight, no zone means UTC.

    Raises ``ValueError`` for anything else.
    """
    if isinstance(value, dt.datetime):
        moment = value
    elif isinstance(value, dt.date):
        moment = dt.datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        text = value.strip().replace(" ", "T", 1)
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            moment = dt.datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(_("must be a date and time such as 2025-01-31T12:00:00Z")) from None
    else:
        raise ValueError(_("must be a date and time such as 2025-01-31T12:00:00Z"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment


def format_timestamp(moment: dt.datetime) -> str:
    """Format a timestamp the way it is sent to the orchestrator (ISO 8601, ``Z`` for UTC)."""
    text = moment.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text
