"""The top floor: launching and relaunching. The only package that knows the catalogue (what
can be launched), the deployments (what was launched) and the quotas (how much may be) together.

``views`` are the pages, ``prefill`` the form as first shown, ``preview`` its cost box (in the
words of ``fit_words``), and ``workflow`` the submit (record, reserve, submit; it says who
commits), after the checks of ``checks``.
"""

from flask import Flask


def init_launch(app: Flask) -> None:
    """Plug the launch form's cost box into the catalogue's ``COST_PREVIEW`` (the admins'
    preview of a revision shows the same box as the launch form)."""
    from app.extension_points import COST_PREVIEW
    from app.launch import preview

    COST_PREVIEW.add(app, preview.summary)
