"""The person's own account: who they are to the portal, where they are logged in, and their
access tokens (whose create and revoke views are in ``token_views``)."""

from flask import Blueprint, flash, redirect, render_template, url_for
from flask_login import current_user, login_required

from app.auth import access_tokens, logins
from app.auth.forms import TokenForm

bp = Blueprint("account", __name__, url_prefix="/account")


@bp.get("/")
@login_required
def index():
    current = logins.current_id()
    return render_template(
        "auth/account.html",
        user=current_user,
        sessions=logins.sessions_of(current_user, current),
        tokens=access_tokens.tokens_of(current_user),
        token_form=TokenForm(formdata=None),
        new_token=None,
    )


@bp.post("/sessions/<int:session_id>/end")
@login_required
def end_session(session_id: int):
    if session_id == logins.current_id():
        flash("To end this session, log out.", "info")
    elif logins.end_one(current_user, session_id):
        flash("That session has ended; its browser must log in again.", "success")
    else:
        flash("That session had already ended.", "info")
    return redirect(url_for("account.index"))


@bp.post("/sessions/end-others")
@login_required
def end_other_sessions():
    ended = logins.end_others(current_user, logins.current_id())
    if ended:
        flash(f"Ended {ended} other session{'s' if ended != 1 else ''}.", "success")
    else:
        flash("There were no other sessions to end.", "info")
    return redirect(url_for("account.index"))
