"""Waiting in line: a launch that does not fit only because running deployments hold what it
needs waits, charged nothing, and starts by itself when they hand it back (README, "Waiting in
line"). Above the launch floor: it launches as a person's launch does.

``operations`` are what people and operators do (wait, leave, move, remove); ``ahead`` keeps
a launch behind those already waiting; ``reading`` what a plan reads; ``lines`` which
line a request is in and its place; ``fairness`` the written-down order; ``admission`` the
worker pass; ``capacity`` whether a site has room ("no site has the GPUs free now" is the
second reason to wait); ``presenters``, ``listing``, ``views`` and ``cli`` its faces.
"""

from flask import Flask


def init_waiting(app: Flask) -> None:
    """Start-up: check the settings, fill the launch form's "wait in line" slot, show places
    on the deployment pages, word the timeline, and declare the admission duty."""
    from app.deployments.panels import Panel, register_panel
    from app.deployments.steps import register_event_words
    from app.extension_points import BACKGROUND_DUTIES
    from app.waiting import admission, models, operations, presenters, settings  # noqa: F401
    from app.waiting.views import bp
    from app.waiting.wording import event_words
    from app.worker import Duty

    settings.check(app.config)
    app.register_blueprint(bp)
    app.extensions["launch.wait_in_line"] = operations.wait_or_launch
    app.extensions["launch.can_wait"] = operations.can_wait
    app.extensions["launch.line_ahead"] = operations.kept_for_line
    app.extensions["quotas.line_ahead"] = operations.kept_for_line
    register_panel(
        app,
        Panel(
            "line",
            presenters.load,
            row_template="waiting/_row.html",
            detail_template="waiting/_panel.html",
        ),
    )
    BACKGROUND_DUTIES.add(
        app,
        Duty(
            "lines",
            admission.admit_once,
            every="DEPLOYMENTS_SYNC_TICK_SECONDS",
            budget=lambda config: 60,
            claims="each waiting request it starts, its row locked and read fresh",
        ),
    )
    register_event_words(app, event_words)
