"""A row of My deployments as the database gives it: the columns the list shows, as a plain
tuple rather than a ``Deployment``.

The page reads a dozen values of each of fifty rows several times (the row, its outputs, the
panels other features lend it). Read as ORM entities, each row was an identity-map entry, a
state with its loader hooks, and every value read a Python call through the instrumented
attribute; a named tuple gives them at C speed, and nothing is kept once the page is drawn.
The rules that speak of a deployment's values (``in_progress``, ``waiting``,
``shown_template_name``) are ``Deployment``'s own, read from the tuple by the same property.
"""

from __future__ import annotations

import json
from collections import namedtuple
from typing import Any

from sqlalchemy import ColumnElement, Text, cast, false, func, select

from app.deployments.models import Deployment
from app.deployments.stamps import SHOWN
from app.extensions import db

_TABLE = Deployment.__table__
# What a row of the list shows, by column name: the columns whose change moves a row's stamp
# (``stamps.SHOWN``), one list for both; the template text, parameters and sealed secrets stay
# unread. A batch job's row speaks of runs: its template is read then.
SHOWN_COLUMNS = SHOWN
# Values kept as JSON, read as their text and decoded here (``listed``).
_JSON = ("charge", "outputs")
_CHARGE, _OUTPUTS = (SHOWN_COLUMNS.index(name) + 1 for name in _JSON)
# Read as the table's columns, not the entity's attributes: a statement naming the entity is
# compiled and run through the ORM's machinery, a heavier path for the same rows.
COLUMNS: tuple[ColumnElement, ...] = (
    _TABLE.c.id,
    *(
        cast(_TABLE.c[name], Text).label(name) if name in _JSON else _TABLE.c[name]
        for name in SHOWN_COLUMNS
    ),
)
# A batch job before a site took it (its type is known only then): the list reads its Chronos
# node in the database rather than load every row's template text.
JOB_HINT = _TABLE.c.template_text.like("%Docker.Chronos%")
# The same rule as ``jobs.is_job``, for the database: once placed, the site's type says so,
# before that the text; never NULL, so that "not a job" holds for a row with neither.
IS_JOB = func.coalesce(_TABLE.c.deployment_type == "CHRONOS", JOB_HINT, false())

_Values = namedtuple("_Values", ["id", *SHOWN_COLUMNS, "is_job"])


class ListedDeployment(_Values):
    """One row of the list: the values of ``COLUMNS``, then whether it is a batch job."""

    __slots__ = ()

    in_progress = Deployment.in_progress
    waiting = Deployment.waiting
    shown_template_name = Deployment.shown_template_name


def listed(rows: list[Any]) -> list[ListedDeployment]:
    """``rows`` of a statement selecting ``COLUMNS``, ``IS_JOB`` and maybe more columns (left
    out), as ``ListedDeployment``s.

    The JSON values are decoded here: the type's own decoding went through four Python calls
    for each value, more than the rest of the row's reading. A page's rows mostly hold the
    same charge: each charge's text is decoded once, and the rows holding it share the value
    (a row's values are only read)."""
    width = len(ListedDeployment._fields)
    charges: dict[str | None, Any] = {}
    found = []
    for row in rows:
        values = list(row[:width])
        text = values[_CHARGE]
        charge = charges.get(text)
        if charge is None:
            charge = charges[text] = _decoded(text)
        values[_CHARGE] = charge
        values[_OUTPUTS] = _decoded(values[_OUTPUTS])
        found.append(_new(ListedDeployment, values))
    return found


# ``ListedDeployment._make`` without its Python steps: ``values`` are known to fit.
_new = tuple.__new__
# The C scanner ``json.loads`` runs after its Python steps (finding where the value starts,
# checking that nothing follows it).
_SCAN = json.JSONDecoder().scan_once


def _decoded(text: str | None) -> Any:
    """``json.loads(text)`` (None for SQL's NULL), for the JSON the portal wrote: the scanner
    alone when the value fills the text, as ``json.dumps`` writes it; ``json.loads`` for any
    other text (spaces around the value, or no JSON at all: its error then)."""
    if text is None:
        return None
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:
        return json.loads(text)
    if end != len(text):
        return json.loads(text)
    return value


def deployments_of(ids: list[int]) -> list[Deployment]:
    """The deployments ``ids`` name, whole: the few rows whose words need more than the list's
    columns (a batch job's schedule is in its template)."""
    return list(db.session.scalars(select(Deployment).where(Deployment.id.in_(ids))))
