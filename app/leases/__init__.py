"""Leases: how long a deployment may live, chosen at launch, warned of, extended within its
policy, and deleted by the portal when it ends (see README, "Leases")."""


def init_leases(app) -> None:
    """Start-up: listen to status changes, show leases on the deployment pages and word their
    timeline entries, and declare the expiry duty."""
    from app.deployments.panels import Panel, register_panel
    from app.deployments.steps import register_event_words
    from app.extension_points import BACKGROUND_DUTIES
    from app.leases import expiry, presenters
    from app.leases.hooks import init_hooks
    from app.leases.wording import event_words
    from app.worker import Duty

    init_hooks()
    register_panel(
        app,
        Panel(
            "lease",
            presenters.load,
            row_template="leases/_row.html",
            detail_template="leases/_panel.html",
        ),
    )
    BACKGROUND_DUTIES.add(
        app,
        Duty(
            "leases",
            expiry.expire_once,
            every="DEPLOYMENTS_SYNC_TICK_SECONDS",
            budget=lambda config: expiry.PASS_BUDGET_SECONDS,
            claims="leases due for their next step (warning, end, delete), held while "
            "each moves one step",
        ),
    )
    register_event_words(app, event_words)
    app.add_template_global(presenters.countdown_words, "lease_countdown_words")
