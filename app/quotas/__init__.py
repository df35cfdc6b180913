"""How much people may use: limits, what launches cost, usage, and the operator pages."""

from flask import Flask


def init_quotas(app: Flask) -> None:
    """The quotas feature's own registration: its tables' charge rows kept in step with the
    deployments, its pages, its template helpers, and the usage panel it lends My deployments
    (through the deployments feature's panel slot, so that feature never imports this one)."""
    from app.auth.account import add_account_section
    from app.deployments.sync import register_pass
    from app.quotas import models, usage_models  # noqa: F401  (the tables, for create_all)
    from app.quotas.budget_views import budget_context  # noqa: F401  (its routes)
    from app.quotas.charges import register_charge_listeners
    from app.quotas.operations import usage_panel_context
    from app.quotas.usage_marks import account_usage_once, register_usage_listeners
    from app.quotas.usage_views import account_usage_context
    from app.quotas.views import bp

    register_charge_listeners()
    register_usage_listeners()
    register_pass(app, "usage", account_usage_once)
    app.register_blueprint(bp)
    add_account_section(app, "quotas/_account_usage.html", account_usage_context)
    app.extensions.setdefault("deployments.list_panels", []).append(
        ("quotas/_usage_panel.html", usage_panel_context)
    )
