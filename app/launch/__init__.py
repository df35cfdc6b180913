"""The top floor: launching and relaunching. The only package that knows the catalogue (what
can be launched), the deployments (what was launched) and the quotas (how much may be) together.

``views`` are the pages, ``prefill`` the form as first shown, ``preview`` its cost box (in the
words of ``fit_words``), and ``workflow`` the submit (record, reserve, submit; it says who
commits), after the checks of ``checks``.
"""

from flask import Flask


def init_launch(app: Flask) -> None:
    """Register the launch pages, and fill the catalogue's cost-preview slot (the admins'
    preview of a revision shows the same box as the launch form)."""
    from app.launch import preview
    from app.launch.views import bp

    app.register_blueprint(bp)
    app.extensions["catalogue.cost_preview"] = preview.summary
