"""The person's own account: who they are to the portal, where they are logged in, and their
access tokens (whose create and revoke views are in ``token_views``)."""

from collections.abc import Callable

from flask import Blueprint, Flask, current_app, flash, redirect, render_template, url_for
from flask_login import current_user, login_required

from app.auth import access_tokens, logins
from app.auth.forms import TokenForm

bp = Blueprint("account", __name__, url_prefix="/account")

# Features above this one lend the page sections of their own (what to get by e-mail): each
# fills this slot at start with a template and a context function of the user, so the page
# shows them without this feature knowing theirs.
SECTIONS = "account.sections"


def add_account_section(app: Flask, template: str, context_of: Callable) -> None:
    """Show ``template`` on the Account page, below the sessions, with ``context_of(user)``
    as ``section`` in its context."""
    app.extensions.setdefault(SECTIONS, []).append((template, context_of))


def render_account(token_form: TokenForm | None = None, new_token: str | None = None) -> str:
    """The Account page of the person logged in, with the token form as given (its errors, or
    the token just created, shown once)."""
    return render_template(
        "auth/account.html",
        user=current_user,
        sessions=logins.sessions_of(current_user, logins.current_id()),
        sections=[
            (template, context_of(current_user))
            for template, context_of in current_app.extensions.get(SECTIONS, ())
        ],
        tokens=access_tokens.tokens_of(current_user),
        token_form=token_form or TokenForm(formdata=None),
        new_token=new_token,
    )


@bp.get("/")
@login_required
def index():
    return render_account()


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
