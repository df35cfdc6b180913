"""How much people may use: limits, what launches cost, usage, and the operator pages."""

from flask import Flask


def init_quotas(app: Flask) -> None:
    """The quotas feature's own registration: its tables, and the usage panel it lends My
    deployments (through ``DEPLOYMENT_LIST_PANELS``, so that feature never imports this one).
    Its pages and template helpers come with its blueprint, its charge rows' listener with the
    others (``app.create_app``)."""
    from app.extension_points import DEPLOYMENT_LIST_PANELS
    from app.quotas import models  # noqa: F401  (the tables, for create_all and migrations)
    from app.quotas.operations import usage_panel_context

    DEPLOYMENT_LIST_PANELS.add(app, ("quotas/_usage_panel.html", usage_panel_context))
