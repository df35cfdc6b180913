"""How much people may use: limits, what launches cost, usage, and the operator pages."""

from flask import Flask


def init_quotas(app: Flask) -> None:
    """The quotas feature's own registration: its tables, the usage panel it lends My
    deployments (through ``DEPLOYMENT_LIST_PANELS``, so that feature never imports this one),
    the usage section of the Account page, and the worker's duties that write usage down and
    warn of budgets nearly or wholly used (``budget_warnings``). Its pages and template
    helpers come with its blueprint, its listeners (charge rows, usage marks) with the others
    (``app.create_app``)."""
    from app.extension_points import ACCOUNT_SECTIONS, BACKGROUND_DUTIES, DEPLOYMENT_LIST_PANELS
    from app.quotas import models, usage_models  # noqa: F401  (the tables, for create_all)
    from app.quotas.budget_views import budget_context  # noqa: F401  (its routes)
    from app.quotas.budget_warnings import warn_once
    from app.quotas.member_views import init_member_pages
    from app.quotas.operations import usage_panel_context
    from app.quotas.usage_marks import account_usage_once
    from app.quotas.usage_views import account_usage_context
    from app.worker import Duty

    init_member_pages(app)
    DEPLOYMENT_LIST_PANELS.add(app, ("quotas/_usage_panel.html", usage_panel_context))
    ACCOUNT_SECTIONS.add(app, ("quotas/_account_usage.html", account_usage_context))
    BACKGROUND_DUTIES.add(
        app,
        Duty(
            "usage",
            account_usage_once,
            every="DEPLOYMENTS_SYNC_TICK_SECONDS",
            budget=lambda config: 60,
            claims="usage marks written down for more than an hour and closed stretches, "
            "each folded once (compare-and-set, skip locked)",
        ),
    )
    BACKGROUND_DUTIES.add(
        app,
        Duty(
            "budgets",
            warn_once,
            every="DEPLOYMENTS_SYNC_TICK_SECONDS",
            budget=lambda config: 60,
            claims="each budget's warning per period (a month, or a rolling window's "
            "crossing) and threshold, recorded once across hosts (insert, ON CONFLICT DO "
            "NOTHING); only the host that recorded it tells",
        ),
    )
