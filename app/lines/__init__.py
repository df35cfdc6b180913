"""Waiting in line: a launch that does not fit only because running deployments hold what it
needs waits, charged nothing, and starts by itself when they hand it back (README, "Waiting in
line"). Below the launch floor: this package keeps the line's books, and the launch decision
(``app.launch.decision``) says who waits, and starts them.

``joining`` records a request in line; ``operations`` are what people and operators do once
it waits (leave, move, remove); ``changing`` one change at a time; ``ahead`` whether a launch
comes behind those already waiting; ``reading`` what a plan reads; ``lines`` which line a
request is in and its place; ``fairness`` the written-down order; ``admission`` the worker
pass, in the line's order; ``capacity`` whether a site has room ("no site has the GPUs free
now" is the second reason to wait); ``presenters``, ``listing``, ``views`` and ``cli`` its faces.
"""

from flask import Flask


def init_waiting(app: Flask) -> None:
    """Start-up: check the settings, show places on the deployment pages and word the
    timeline. (The worker's admission duty is declared by ``init_launch``, which starts the
    requests.)"""
    from app.deployments.panels import Panel
    from app.extension_points import DEPLOYMENT_PANELS, EVENT_WORDS
    from app.lines import models, presenters, settings  # noqa: F401
    from app.lines.wording import event_words

    settings.check(app.config)
    DEPLOYMENT_PANELS.add(
        app,
        Panel(
            "line",
            presenters.load,
            row_template="lines/_row.html",
            detail_template="lines/_panel.html",
        ),
    )
    EVENT_WORDS.add(app, event_words)
