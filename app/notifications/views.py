"""The notifications page, the navigation bar's menu, the Account page's e-mail choices, and
the operators' list of undelivered mail."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import ngettext
from flask_login import current_user, login_required

from app.auth.logins import login_reading
from app.auth.roles import role_required
from app.notifications import outbox
from app.notifications.forms import EmailChoicesForm
from app.notifications.mail import failure_text
from app.notifications.preferences import choose_email_kinds, email_kinds
from app.notifications.wording import shown

bp = Blueprint("notifications", __name__, url_prefix="/notifications")

MENU_SHOWN = 5
# The name of the unread count read with the login check.
UNREAD_READING = "notifications_unread"


class Shown:
    """A notification with its words, as the page and the menu list it."""

    def __init__(self, notification):
        self.notification = notification
        self.message = shown(notification)

    @property
    def mail_error(self) -> str:
        return failure_text(self.notification.mail_error)

    def __getattr__(self, name):
        return getattr(self.notification, name)


def navigation_menu() -> dict:
    """The menu's unread count and latest unread notices (asked only when the bar is drawn).

    The count comes with the login check when the request is a page (see ``init_notifications``)
    and has written nothing since; otherwise it is counted here.
    """
    unread = login_reading(UNREAD_READING)
    if unread is None:
        unread = outbox.unread_count(current_user)
    latest = outbox.latest_unread(current_user, MENU_SHOWN) if unread else []
    return {"unread": unread, "latest": [Shown(n) for n in latest]}


def unread_with_login(user_id_column):
    """The unread count as the login check reads it (``app.auth.logins.LoginReading``)."""
    return outbox.unread_count_of(user_id_column).scalar_subquery()


def draws_the_menu() -> bool:
    """Whether this request is likely to draw the navigation bar: a page, not an htmx partial."""
    return not request.headers.get("HX-Request")


def email_choices_context(user) -> dict:
    """What the Account page's section needs to show ``user``'s e-mail choices."""
    return {"form": EmailChoicesForm(kinds=sorted(email_kinds(user.id)), formdata=None)}


@bp.get("/")
@login_required
def index():
    shown = [Shown(n) for n in outbox.notifications_of(current_user)]
    return render_template("notifications/index.html", notifications=shown)


@bp.post("/<int:notification_id>/read")
@login_required
def read(notification_id: int):
    outbox.mark_read(current_user, notification_id)
    return redirect(url_for("notifications.index"))


@bp.post("/read-all")
@login_required
def read_all():
    count = outbox.mark_all_read(current_user)
    flash(
        ngettext("%(num)d notification marked read.", "%(num)d notifications marked read.", count),
        "success",
    )
    return redirect(url_for("notifications.index"))


@bp.post("/email-choices")
@login_required
def choose():
    form = EmailChoicesForm()
    if not form.validate_on_submit():
        flash(
            _("Your e-mail choices were not saved: %(problem)s", problem=_problem(form)), "danger"
        )
        return redirect(url_for("account.index"))
    choose_email_kinds(current_user, set(form.kinds.data or ()))
    flash(_("Your e-mail choices are saved."), "success")
    return redirect(url_for("account.index"))


def _problem(form) -> str:
    for errors in form.errors.values():
        return " ".join(str(error) for error in errors)
    return _("the form was incomplete.")


@bp.get("/undelivered")
@role_required("operator")
def undelivered():
    return render_template(
        "notifications/undelivered.html", mails=[Shown(n) for n in outbox.undelivered()]
    )


@bp.post("/<int:notification_id>/resend")
@role_required("operator")
def resend(notification_id: int):
    outbox.requeue(notification_id)
    flash(_("The mail is queued again; the mail worker sends it at its next pass."), "success")
    return redirect(url_for("notifications.undelivered"))
