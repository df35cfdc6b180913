"""Personal access tokens in the browser: created, listed and revoked on the Account page, and
listed and revoked by admins on a user's page. A new token is shown in the answer to the form
that created it, never flashed (a flash would put it in the session cookie)."""

from flask import flash, redirect, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from app.auth import access_tokens
from app.auth.account import bp as account_bp
from app.auth.account import render_account
from app.auth.admin_views import _user
from app.auth.admin_views import bp as users_admin_bp
from app.auth.forms import TokenForm
from app.auth.roles import role_required
from app.errors import NotFound


@account_bp.post("/tokens")
@login_required
def create_token():
    form = TokenForm()
    new_token, status = None, 400
    if form.validate_on_submit():
        try:
            lifetime = access_tokens.lifetime_in_days(form.days.data)
            _record, new_token = access_tokens.create(
                current_user, form.name.data, form.scopes.data, lifetime
            )
            status = 201
            form = TokenForm(formdata=None)
        except access_tokens.InvalidToken as error:
            target = getattr(form, {"expires": "days"}.get(error.field, error.field or ""), None)
            (target.errors if target is not None else form.form_errors).append(error.message)
    return (
        render_account(token_form=form, new_token=new_token),
        status,
    )


@account_bp.post("/tokens/<int:token_id>/revoke")
@login_required
def revoke_token(token_id: int):
    try:
        record = access_tokens.revoke(current_user, token_id)
        flash(_("The token \u201c%(name)s\u201d is revoked.", name=record.name), "success")
    except NotFound as error:
        flash(error.message, "info")
    return redirect(url_for("account.index"))


@users_admin_bp.post("/<int:user_id>/tokens/<int:token_id>/revoke")
@role_required("admin")
def revoke_user_token(user_id: int, token_id: int):
    user = _user(user_id)
    try:
        record = access_tokens.revoke(user, token_id)
        flash(
            _(
                "%(user)s's token \u201c%(name)s\u201d is revoked.",
                user=user.username,
                name=record.name,
            ),
            "success",
        )
    except NotFound as error:
        flash(error.message, "info")
    return redirect(url_for("users_admin.show", user_id=user.id))
