"""The start page and the health check."""

from flask import Blueprint, redirect, url_for
from flask_login import current_user
from sqlalchemy import text

from app.extensions import db

bp = Blueprint("main", __name__)


@bp.route("/")
def home():
    if current_user.is_authenticated:
        return redirect(url_for("catalogue.index"))
    return redirect(url_for("auth.login"))


@bp.route("/healthz")
def health():
    """For load balancers: 200 when the database answers."""
    db.session.execute(text("SELECT 1"))
    return {"status": "ok"}
