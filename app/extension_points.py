"""Where one feature lets others plug in: every such place of the portal, declared here once.

An extension point has a name, the signature of what plugs in, and a docstring that says when
it is used and what a plug must not do. Features fill points at start-up
(``POINT.add(app, value)``, from their ``init_*``), and the owner of a point reads what was
plugged in (``POINT.each()`` for every value in the order added, ``POINT.one()`` where at most
one may plug in). Values are kept on the Flask application, keyed by the point itself, so two
apps in one process (the tests) never see each other's plugs, and no module reaches a point by
spelling its name.

A module's own state on the application (a cache, a registry, an emulator's world) is no
point: it lives under a ``StateKey`` of that module, never under a string.

Nothing here imports a feature: a point's signature names its types as strings. The points
are grouped by the feature that offers them, from the bottom floor up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

from flask import Flask, current_app

if TYPE_CHECKING:
    from app.worker import Duty

T = TypeVar("T")


class ExtensionPoint(Generic[T]):
    """One place where features plug in values of type ``T`` (spelled in ``signature``)."""

    def __init__(self, name: str, signature: str, doc: str, *, single: bool = False) -> None:
        self.name = name
        self.signature = signature
        self.__doc__ = doc
        self.single = single

    def __repr__(self) -> str:
        return f"<extension point {self.name}>"

    def add(self, app: Flask, value: T) -> None:
        """Plug ``value`` in, at start-up.

        Raises RuntimeError when a single point already holds a value.
        """
        plugged = app.extensions.setdefault(self, [])
        if self.single and plugged:
            raise RuntimeError(f"The extension point {self.name} takes one value, not two.")
        plugged.append(value)

    def each(self, app: Flask | None = None) -> tuple[T, ...]:
        """Every value plugged in, in the order added (none: an empty tuple)."""
        return tuple((app or current_app).extensions.get(self, ()))

    def one(self, app: Flask | None = None) -> T | None:
        """The value plugged into a single point, or None."""
        plugged = self.each(app)
        return plugged[0] if plugged else None


class StateKey:
    """The key of one module's own state on ``app.extensions``: not a point (nothing plugs in),
    and out of reach of any module that does not hold the key."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<state {self.name}>"


# --- Core: the pages' frame and the error handlers ---------------------------------------------

NAVIGATION_MENUS: ExtensionPoint[str] = ExtensionPoint(
    "navigation.menus",
    "str: a template",
    """Menus of a feature's own in the navigation bar of logged-in people (the notifications
    bell), drawn in the order added, before the person's own menu.

    Fires on every page that draws the bar (``app.templating``). The template runs on every
    page: it must read only what a context processor of its feature hands it, and run no
    query of its own that a page without the menu would not need.""",
)

JSON_ERROR_ANSWERS: ExtensionPoint[object] = ExtensionPoint(
    "errors.json_answer",
    "Callable[[Exception], Response | None]",
    """The JSON answer for an error, from the face that answers in JSON (the API's
    problem+json); None lets the HTML error page answer.

    Fires in ``app.errors``'s handlers for every error a request ends in, before the HTML page
    is drawn. At most one face plugs in. It must decide from the request alone (its path)
    whether the error is its own, never raise, and never write to the database: the request
    is failing.""",
    single=True,
)

# --- Auth: who you are -------------------------------------------------------------------------

LOGIN_READINGS: ExtensionPoint[object] = ExtensionPoint(
    "auth.login_readings",
    "LoginReading (app.auth.logins): name, column_for(user id column) -> scalar subquery, "
    "wanted() -> bool",
    """A value read about the person in the login check's own query (the unread count of the
    navigation bar, the change stamp of My deployments), found later with
    ``app.auth.logins.login_reading(name)``. A later reading of the same name replaces an
    earlier one.

    Fires on every request of a logged-in person for which ``wanted()`` holds. ``wanted`` is
    asked on every request: it must read the request only, never the database. The column must
    be one scalar subquery about the person, cheap enough to add to every such request.""",
)

ACCOUNT_SECTIONS: ExtensionPoint[object] = ExtensionPoint(
    "account.sections",
    "tuple[str, Callable[[User], dict]]: a template and its context of the person",
    """A section of a feature's own on the Account page (what to get by e-mail), below the
    sessions, in the order added; the template finds ``context_of(user)`` as ``section``.

    Fires when the Account page is drawn. ``context_of`` reads; it must not write or commit,
    and a form it builds must not be bound to the submitted data (the page shows it fresh).""",
)

# --- Catalogue: what can be launched -----------------------------------------------------------

COST_PREVIEW: ExtensionPoint[object] = ExtensionPoint(
    "catalogue.cost_preview",
    "Callable[[Entry, Form], dict]: the launch page's resource box for a revision",
    """The resource box of the launch page, shown on the admins' preview of a revision (the
    launch feature prices it against the quotas); without it the preview shows no box.

    Fires when an admin previews a revision. At most one plugs in. It must only read: it
    prices what launching would cost and records, reserves and submits nothing. It may raise
    TemplateError (the preview shows its message), nothing else.""",
    single=True,
)

# --- Deployments: what you launched ------------------------------------------------------------

DEPLOYMENT_LIST_PANELS: ExtensionPoint[object] = ExtensionPoint(
    "deployments.list_panels",
    "tuple[str, Callable[[User], dict]]: a template and its context of the person",
    """A panel above My deployments (the quotas' usage panel), in the order added; the template
    finds ``context_of(user)`` as ``panel``. A full answer to the list's poll brings the panels
    too (swapped out of band), so ``context_of`` runs on each such poll.

    Fires when the list is drawn in full. ``context_of`` must only read, in a few queries that
    do not grow with the person's deployments (sums, not rows).""",
)

DEPLOYMENT_PANELS: ExtensionPoint[object] = ExtensionPoint(
    "deployments.panels",
    "Panel (app.deployments.panels): name, load(deployments) -> {deployment id: value}, "
    "row_template, detail_template",
    """What a feature shows of each deployment, in a list row and on a deployment's page (a
    lease's end, a place in line), in the order added.

    Fires once per page with the deployments shown: ``load`` must read them in one query (or a
    few), never one per deployment, and must not write. A deployment ``load`` has nothing for
    is left out of its answer: its templates are not drawn for it.""",
)

EVENT_WORDS: ExtensionPoint[object] = ExtensionPoint(
    "deployments.event_words",
    "Callable[[DeploymentEvent], tuple[str, str | None] | None]: (title, text) or None",
    """The words of the timeline entries a feature records (a lease's start, extension and end;
    a request's place in line), asked in the order added; the first answer that is not None
    names the entry, None leaves it to the next feature and then to the deployments' own words.
    For an entry that changes the status, the status names the step and the text says why.

    Fires for every entry of a timeline shown, in the reader's language (the words are built
    when shown, never stored). It must answer None for kinds that are not its feature's, read
    only the entry (no query: a timeline has many entries), and never raise.""",
)

# --- Leases: how long a deployment may live ---------------------------------------------------

LEASE_EXTEND_CHECKS: ExtensionPoint[object] = ExtensionPoint(
    "leases.extend_checks",
    "Callable[[Deployment, Lease, datetime, datetime], None]: (deployment, lease, new end, now)",
    """A check an extend within the policy must pass besides the policy (the launch's budgets
    over a period), asked in the order added; it refuses by raising a PortalError whose
    message says why, with the numbers.

    Fires in ``app.leases.operations.extend``, under the lease's row lock, before anything is
    written; an operator's override past the policy is not asked. It must only read (the
    extend rolls back on its error), and never stop or shorten what runs.""",
)

# --- Quotas: how much people may use ---------------------------------------------------------

BUDGET_WARNINGS: ExtensionPoint[object] = ExtensionPoint(
    "quotas.budget_warnings",
    "Callable[[BudgetReached], None] (app.quotas.budget_warnings): scope, subject, owner, "
    "counts, model, hours, used, threshold, period_days, renews_on",
    """Who is told that a budget's use reached 80 or 100 per cent of it in its period (the
    notifications tell the person, or the managers of the group), in the order added.

    Fires in the worker's budgets pass, once per budget, period and threshold across every
    host (a rolling window's period is one crossing of the threshold, re-armed when its use
    falls back 10 points below it: ``app.quotas.budget_warnings``): only the pass that
    recorded the warning calls it, in the transaction that records it. It must only add rows
    to the session (the pass commits them with the warning, or rolls both back), and must not
    commit.""",
)

# --- The worker: what runs in the background --------------------------------------------------

BACKGROUND_DUTIES: ExtensionPoint[Duty] = ExtensionPoint(
    "worker.duties",
    "Duty (app.worker): name, run() -> outcome, every (a setting), budget(config), claims",
    """Work the worker does in the background, one ``app.worker.Duty`` per feature duty (the
    sync of deployments, the end of leases, the capacity refresh, admission from the line, the
    mail outbox), each with its name, its interval, its time budget per pass and the rows it
    claims. Filled from the features' ``init_*``; run by ``flask worker`` (and the older
    ``flask deployments sync --loop`` and ``flask notifications send --loop``), each duty in a
    thread of its own.

    Fires in the worker, every interval of the duty, in the duty's own thread. A pass must
    commit its own work and claim its rows through ``app.claims`` (several workers may run it
    at once, on several hosts); it must not rely on another duty having run before it, and
    should stop taking more rows once ``app.worker.out_of_time()`` says so.""",
)
