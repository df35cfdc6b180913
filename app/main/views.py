"""The start page, the health check, and each person's language and time zone."""

from flask import Blueprint, flash, g, redirect, url_for
from flask_babel import force_locale, get_locale
from flask_babel import gettext as _
from flask_login import current_user, login_required
from sqlalchemy import literal_column, select

from app.auth.account import render_account
from app.auth.views import safe_next
from app.extensions import db
from app.i18n import remember_locale
from app.main.forms import LanguageForm, LanguageSwitchForm

bp = Blueprint("main", __name__)


@bp.route("/")
def home():
    if current_user.is_authenticated:
        return redirect(url_for("catalogue.index"))
    return redirect(url_for("auth.login"))


@bp.route("/healthz")
def health():
    """For load balancers: 200 when the database answers."""
    # A select() rather than text: the database sees a plain read (see app.transactions).
    db.session.execute(select(literal_column("1")))
    return {"status": "ok"}


@bp.post("/language")
def switch_language():
    """The navigation bar's switch: the same page again, in the language chosen."""
    form = LanguageSwitchForm()
    back = safe_next(form.next.data) or url_for("main.home")
    if not form.validate_on_submit():
        for error in form.locale.errors or form.form_errors or form.errors.get("csrf_token", []):
            flash(error, "danger")
        return redirect(back)
    remember_locale(form.locale.data)
    return redirect(back)


@bp.post("/account/language")
@login_required
def save_language():
    """The Account page's language and time zone, both kept on the account."""
    form = LanguageForm()
    if not form.validate_on_submit():
        # The page again with what was typed and why it was refused; nothing is stored.
        g.language_form = form
        return render_account(), 400
    current_user.locale = form.locale.data
    current_user.timezone = form.timezone.data or None
    db.session.commit()
    # Said in the language just chosen: it is the one the next page speaks.
    with force_locale(form.locale.data):
        flash(
            _(
                "Your language and time zone are saved. Times are shown in %(zone)s.",
                zone=form.timezone.data or LanguageForm.default_zone(),
            ),
            "success",
        )
    return redirect(url_for("account.index"))


@bp.app_context_processor
def _language_form():
    def language_form() -> LanguageForm:
        if "language_form" not in g:
            g.language_form = LanguageForm.for_user(current_user, str(get_locale()))
        return g.language_form

    return {"language_form": language_form}
