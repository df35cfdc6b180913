"""The person's own account: who they are to the portal, where they are logged in, and their
access tokens (whose create and revoke views are in ``token_views``)."""

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import ngettext
from flask_login import current_user, login_required

from app.auth import access_tokens, logins
from app.auth.errors import LoginFailed, LoginThrottled, PasswordRefused
from app.auth.forms import ChangePasswordForm, TokenForm
from app.auth.passwords import change_own_password
from app.extension_points import ACCOUNT_SECTIONS

bp = Blueprint("account", __name__, url_prefix="/account")


def render_account(
    token_form: TokenForm | None = None,
    new_token: str | None = None,
    password_form: ChangePasswordForm | None = None,
) -> str:
    """The Account page of the person logged in, with the token form as given (its errors, or
    the token just created, shown once) and, for a local account, the password form."""
    if password_form is None and current_user.provider == "local":
        password_form = ChangePasswordForm(formdata=None)
    return render_template(
        "auth/account.html",
        user=current_user,
        sessions=logins.sessions_of(current_user, logins.current_id()),
        # Features above this one lend the page sections of their own (what to get by e-mail).
        sections=[
            (template, context_of(current_user)) for template, context_of in ACCOUNT_SECTIONS.each()
        ],
        tokens=access_tokens.tokens_of(current_user),
        token_form=token_form or TokenForm(formdata=None),
        new_token=new_token,
        password_form=password_form,
    )


@bp.get("/")
@login_required
def index():
    return render_account()


@bp.post("/password")
@login_required
def change_password():
    """A local account changes its own password; its other logins end."""
    form = ChangePasswordForm()
    if current_user.provider != "local":
        flash(_("Your password is kept by your identity provider: change it there."), "info")
        return redirect(url_for("account.index"))
    if not form.validate_on_submit():
        return render_account(password_form=form), 400
    try:
        ended = change_own_password(
            current_user,
            form.current_password.data,
            form.new_password.data,
            request.remote_addr or "",
        )
    except (LoginFailed, LoginThrottled, PasswordRefused) as error:
        field = getattr(form, error.field, None) if error.field else None
        (field.errors if field is not None else form.form_errors).append(error.message)
        return render_account(password_form=form), error.status_code
    message = ngettext(
        "Your password is changed, and your other session has ended.",
        "Your password is changed, and your %(num)d other sessions have ended.",
        ended,
    )
    flash(message if ended else _("Your password is changed."), "success")
    return redirect(url_for("account.index"))


@bp.post("/sessions/<int:session_id>/end")
@login_required
def end_session(session_id: int):
    if session_id == logins.current_id():
        flash(_("To end this session, log out."), "info")
    elif logins.end_one(current_user, session_id):
        flash(_("That session has ended; its browser must log in again."), "success")
    else:
        flash(_("That session had already ended."), "info")
    return redirect(url_for("account.index"))


@bp.post("/sessions/end-others")
@login_required
def end_other_sessions():
    ended = logins.end_others(current_user, logins.current_id())
    if ended:
        flash(
            ngettext("Ended %(num)d other session.", "Ended %(num)d other sessions.", ended),
            "success",
        )
    else:
        flash(_("There were no other sessions to end."), "info")
    return redirect(url_for("account.index"))
