"""Leases: how long a deployment may live, chosen at launch, warned of, extended within its
policy, and deleted by the portal when it ends (see README, "Leases")."""


def init_leases(app) -> None:
    """Start-up: show leases on the deployment pages, word their timeline entries and declare
    the expiry duty. (Its listener to status changes is registered with the others, by
    ``app.create_app``.)"""
    from app.deployments.panels import Panel
    from app.extension_points import BACKGROUND_DUTIES, DEPLOYMENT_PANELS, EVENT_WORDS
    from app.leases import expiry, presenters
    from app.leases.wording import event_words
    from app.worker import Duty

    DEPLOYMENT_PANELS.add(
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
    EVENT_WORDS.add(app, event_words)
    app.add_template_global(presenters.countdown_words, "lease_countdown_words")
