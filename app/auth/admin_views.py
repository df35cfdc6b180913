"""The admins' user pages: every account, its groups, the groups it manages, roles, state and
live sessions; and naming or removing a group's managers."""

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user
from sqlalchemy import func, or_, select

from app.auth import access_tokens, logins, managers, role_label
from app.auth.errors import (
    EmailNotEditable,
    GroupsNotEditable,
    InvalidEmail,
    InvalidGroupName,
    NoSuchPerson,
)
from app.auth.manager_operations import change_manager
from app.auth.models import User
from app.auth.operations import (
    change_local_groups,
    grant_role,
    revoke_role,
    set_active,
    set_email,
)
from app.auth.roles import GRANTABLE_ROLES, role_required
from app.bounds import page_number
from app.errors import NotFound
from app.extensions import db

bp = Blueprint("users_admin", __name__, url_prefix="/admin/users")
PAGE_SIZE = 50


def _user(user_id: int) -> User:
    user = db.session.get(User, user_id)
    if user is None:
        raise NotFound(_("There is no such user."))
    return user


@bp.get("/")
@role_required("admin")
def index():
    query = request.args.get("q", "").strip()[:100]
    page = page_number(request.args.get("page"))
    statement = select(User)
    if query:
        pattern = f"%{query.lower()}%"
        statement = statement.where(
            or_(
                func.lower(User.username).like(pattern),
                func.lower(User.display_name).like(pattern),
                func.lower(User.email).like(pattern),
            )
        )
    users = db.paginate(
        statement.order_by(User.provider, User.username), page=page, per_page=PAGE_SIZE
    )
    return render_template(
        "auth/admin/users.html",
        users=users,
        query=query,
        managed=managers.groups_managed_by(list(users.items)),
        providers=list(
            db.session.scalars(select(User.provider).distinct().order_by(User.provider))
        ),
        typed={key: request.args.get(key, "")[:255] for key in ("group", "username", "provider")},
    )


@bp.post("/managers")
@role_required("admin")
def change_managers():
    typed = {key: request.form.get(key, "")[:255] for key in ("group", "username", "provider")}
    naming = request.form.get("action") != "remove"
    back = {"q": request.form.get("q") or None}
    try:
        done = change_manager(
            current_user, typed["group"], typed["username"], typed["provider"], naming=naming
        )
    except (InvalidGroupName, NoSuchPerson) as error:
        flash(error.message, "danger")
        # What was typed comes back in the form, so nothing is lost.
        return redirect(url_for("users_admin.index", **back, **typed, _anchor="managers"))
    flash(*_manager_words(done, naming))
    return redirect(url_for("users_admin.index", **back))


def _manager_words(done, naming: bool) -> tuple[str, str]:
    names = {"user": done.user.username, "group": done.group}
    if naming and done.changed:
        return _("%(user)s now manages %(group)s.", **names), "success"
    if naming:
        return _("%(user)s already managed %(group)s.", **names), "info"
    if done.by_membership:
        if done.changed:
            return (
                _(
                    "%(user)s is no longer a named manager of %(group)s, but still manages it "
                    "by membership of another group (the GROUP_MANAGER_GROUPS setting).",
                    **names,
                ),
                "warning",
            )
        return (
            _(
                "%(user)s manages %(group)s by membership of another group (the "
                "GROUP_MANAGER_GROUPS setting), not by name: change the setting or their groups.",
                **names,
            ),
            "warning",
        )
    if done.changed:
        return _("%(user)s no longer manages %(group)s.", **names), "success"
    return _("%(user)s was not a manager of %(group)s.", **names), "info"


@bp.get("/<int:user_id>")
@role_required("admin")
def show(user_id: int):
    user = _user(user_id)
    return render_template(
        "auth/admin/user.html",
        user=user,
        sessions=logins.sessions_of(user, logins.current_id()),
        tokens=access_tokens.tokens_of(user),
        grantable=GRANTABLE_ROLES,
        group_text=request.args.get("group", ""),
        email_text=request.args.get("email"),
    )


@bp.post("/<int:user_id>/email")
@role_required("admin")
def change_email(user_id: int):
    user = _user(user_id)
    typed = request.form.get("email", "")[:300]
    try:
        address = set_email(user, typed)
    except (EmailNotEditable, InvalidEmail) as error:
        flash(error.message, "danger")
        # What was typed comes back in the field, so nothing is lost.
        return redirect(url_for("users_admin.show", user_id=user.id, email=typed))
    if address:
        flash(_("Notices for %(user)s now go to %(email)s.", user=user.username, email=address))
    else:
        flash(_("%(user)s has no e-mail address now.", user=user.username))
    return redirect(url_for("users_admin.show", user_id=user.id))


@bp.post("/<int:user_id>/groups")
@role_required("admin")
def change_groups(user_id: int):
    user = _user(user_id)
    name = request.form.get("group", "").strip()
    adding = request.form.get("action") == "add"
    try:
        if not name:
            raise InvalidGroupName(_("Type the name of the group to add."))
        change_local_groups(user, add=[name] if adding else [], remove=[] if adding else [name])
    except (GroupsNotEditable, InvalidGroupName) as error:
        flash(error.message, "danger")
        # The name comes back in the field, so nothing typed is lost.
        return redirect(url_for("users_admin.show", user_id=user.id, group=name))
    if adding:
        flash(_("%(user)s is now in %(group)s.", user=user.username, group=name), "success")
    else:
        flash(_("%(user)s is no longer in %(group)s.", user=user.username, group=name), "success")
    return redirect(url_for("users_admin.show", user_id=user.id))


@bp.post("/<int:user_id>/roles")
@role_required("admin")
def change_role(user_id: int):
    user = _user(user_id)
    role = request.form.get("role", "")
    if role not in GRANTABLE_ROLES:
        flash(_("Choose a role to grant or revoke."), "danger")
    elif request.form.get("action") == "grant":
        grant_role(user, role, granted_by=current_user.username)
        flash(_("%(user)s is now %(role)s.", user=user.username, role=role_label(role)), "success")
    elif user.id == current_user.id and role == "admin":
        flash(_("You cannot revoke your own admin role; ask another admin."), "warning")
    elif revoke_role(user, role):
        flash(
            _(
                "%(user)s is no longer %(role)s by grant.",
                user=user.username,
                role=role_label(role),
            ),
            "success",
        )
    else:
        flash(
            _(
                "%(user)s had no %(role)s grant (roles from groups follow the groups).",
                user=user.username,
                role=role_label(role),
            ),
            "info",
        )
    return redirect(url_for("users_admin.show", user_id=user.id))


@bp.post("/<int:user_id>/state")
@role_required("admin")
def change_state(user_id: int):
    user = _user(user_id)
    enable = request.form.get("action") == "enable"
    if not enable and user.id == current_user.id:
        flash(_("You cannot disable your own account."), "warning")
    else:
        set_active(user, enable)
        if enable:
            flash(_("%(user)s can log in again.", user=user.username), "success")
        else:
            flash(
                _(
                    "%(user)s can no longer log in; their sessions have ended.",
                    user=user.username,
                ),
                "success",
            )
    return redirect(url_for("users_admin.show", user_id=user.id))


@bp.post("/<int:user_id>/sessions/<int:session_id>/end")
@role_required("admin")
def end_session(user_id: int, session_id: int):
    user = _user(user_id)
    if logins.end_one(user, session_id):
        flash(_("Ended that session of %(user)s.", user=user.username), "success")
    else:
        flash(_("That session had already ended."), "info")
    return redirect(url_for("users_admin.show", user_id=user.id))
