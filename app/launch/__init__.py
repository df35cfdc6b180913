"""The top floor: launching and relaunching. The only package that knows the catalogue (what
can be launched), the deployments (what was launched), the quotas (how much may be) and the
line (who waits) together.

A launch is one value (``request.LaunchRequest``), built once by whoever asks: the form
(``views``), the API, a relaunch (``relaunching``), a change of a waiting request
(``changing``). ``workflow`` checks it and builds its row once (after the checks of
``checks``; it says who commits), ``decision`` decides start, wait or refuse by asking the
``constraints`` in order under the quotas' locks, ``submitting`` sends it to its backend, and
``admission`` starts the requests the line's admission pass planned. ``prefill`` is the form
as first shown, ``preview`` its cost box (in the words of ``fit_words``), showing the same
decision without taking it.
"""

from flask import Flask


def init_launch(app: Flask) -> None:
    """Plug the launch form's cost box into the catalogue's ``COST_PREVIEW`` (the admins'
    preview of a revision shows the same box as the launch form), the budgets into the
    leases' ``LEASE_EXTEND_CHECKS`` (an extend is charged as a launch is), the words of a
    take-over into the timeline's ``EVENT_WORDS``, and declare the worker's admission duty,
    which starts requests from the line."""
    from app.extension_points import (
        BACKGROUND_DUTIES,
        COST_PREVIEW,
        EVENT_WORDS,
        LEASE_EXTEND_CHECKS,
    )
    from app.launch import admission, preview, take_over_words
    from app.launch.constraints import budget
    from app.worker import Duty

    COST_PREVIEW.add(app, preview.summary)
    LEASE_EXTEND_CHECKS.add(app, budget.extension_check)
    EVENT_WORDS.add(app, take_over_words.event_words)
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
