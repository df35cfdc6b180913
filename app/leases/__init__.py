"""Leases: how long a deployment may live, chosen at launch, warned of, extended within its
policy, and deleted by the portal when it ends (see README, "Leases")."""


def init_leases(app) -> None:
    """Start-up: show leases on the deployment pages and word their timeline entries, and have
    the sync worker run the expiry pass. (Its listener to status changes is registered with
    the others, by ``app.create_app``.)"""
    from app.deployments.panels import Panel
    from app.deployments.sync import register_pass
    from app.extension_points import DEPLOYMENT_PANELS, EVENT_WORDS
    from app.leases import expiry, presenters
    from app.leases.wording import event_words

    DEPLOYMENT_PANELS.add(
        app,
        Panel(
            "lease",
            presenters.load,
            row_template="leases/_row.html",
            detail_template="leases/_panel.html",
        ),
    )
    register_pass(app, "leases", expiry.expire_once)
    EVENT_WORDS.add(app, event_words)
    app.add_template_global(presenters.countdown_words, "lease_countdown_words")
