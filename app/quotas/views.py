"""Quotas, for operators."""

from flask import Blueprint, render_template
from sqlalchemy import select

from app.auth.models import User
from app.auth.roles import role_required
from app.extensions import db

bp = Blueprint("quotas", __name__, url_prefix="/quotas")


@bp.route("/")
@role_required("operator")
def index():
    users = db.session.scalars(select(User).order_by(User.username)).all()
    return render_template("quotas/index.html", users=users)
