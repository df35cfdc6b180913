"""Leases: how long a deployment may live, chosen at launch, warned of, extended within its
policy, and deleted by the portal when it ends (see README, "Leases")."""


def init_leases(app) -> None:
    """Start-up: listen to status changes, show leases on the deployment pages and word their
    timeline entries, and have the sync worker run the expiry pass."""
    from app.deployments.panels import Panel, register_panel
    from app.deployments.steps import register_event_words
    from app.leases import expiry, presenters
    from app.leases.hooks import init_hooks
    from app.leases.wording import event_words
    from app.sync.passes import register_pass

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
    register_pass(app, "leases", expiry.expire_once)
    register_event_words(app, event_words)
    app.add_template_global(presenters.countdown_words, "lease_countdown_words")
