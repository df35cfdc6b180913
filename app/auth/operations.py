"""Signing people in and out, whichever way they proved who they are."""

import logging
import re

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app.auth import local, logins
from app.auth.access_tokens import revoke_all
from app.auth.errors import (
    AccountExists,
    EmailNotEditable,
    GroupsNotEditable,
    InvalidEmail,
    InvalidGroupName,
)
from app.auth.groups import normalise_group, normalise_groups
from app.auth.identity import Identity
from app.auth.managers import refresh_membership
from app.auth.models import RoleGrant, User
from app.auth.roles import roles_from_groups
from app.clock import utcnow
from app.extensions import db
from app.text import one_line_problem

log = logging.getLogger(__name__)


def record_identity(identity: Identity) -> User:
    """Create or update the user record for ``identity`` and refresh its group-derived roles.

    Called at every login, so that names, e-mail addresses and groups follow the provider.
    Groups are stored in the portal's form (``app.auth.groups``), whatever the provider wrote.
    """
    try:
        return _record_identity(identity)
    except IntegrityError:
        # The same person's first login, in another tab or on another host, created the
        # record a moment earlier: this login updates it instead.
        db.session.rollback()
        return _record_identity(identity)


def _record_identity(identity: Identity) -> User:
    user = db.session.scalar(
        select(User).where(User.provider == identity.provider, User.subject == identity.subject)
    )
    if user is None:
        user = User(provider=identity.provider, subject=identity.subject)
        db.session.add(user)
        log.info("New user %s from %s", identity.username, identity.provider)
    user.username = identity.username
    user.display_name = identity.display_name or user.display_name or identity.username
    user.email = identity.email or user.email or ""
    user.groups = normalise_groups(identity.groups)
    user.group_roles = roles_from_groups(user.groups, current_app.config["ROLE_GROUPS"])
    refresh_membership(user)
    user.last_login_at = utcnow()
    db.session.commit()
    return user


def create_local_account(
    username: str, password: str, display_name: str = "", email: str = ""
) -> User:
    """Create a local account, and commit. Raises AccountExists if the name is taken, and
    InvalidEmail for an address that could not be one."""
    email = checked_email(email)
    if local.find_local_user(username):
        raise AccountExists(_("A local user named '%(name)s' already exists.", name=username))
    user = User(
        provider=local.PROVIDER,
        subject=username,
        username=username,
        display_name=display_name or username,
        email=email,
        groups=[],
        group_roles=[],
        password_hash=local.hash_password(password),
    )
    db.session.add(user)
    db.session.commit()
    return user


# One "@" between a local part and a domain with a dot, nothing a mail header cannot hold: the
# mail server is the judge of the rest.
_ADDRESS = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s.]+")
_ADDRESS_MAX = 254  # RFC 5321's longest path


def checked_email(text: str | None) -> str:
    """``text`` as an address to keep ("" for none). Raises InvalidEmail in words."""
    address = (text or "").strip()
    if not address:
        return ""
    if (
        len(address) > _ADDRESS_MAX
        or not _ADDRESS.fullmatch(address)
        or any(ord(c) < 32 or ord(c) == 127 for c in address)
    ):
        raise InvalidEmail(
            _(
                "“%(address)s” is not an e-mail address: write one such as name@institute.example.",
                address=address[:80],
            ),
            field="email",
        )
    return address


def set_email(user: User, text: str | None) -> str:
    """Give a local account the address its notices go to ("" removes it), and commit;
    returns the address kept. Raises EmailNotEditable for accounts whose address comes from
    their directory or identity provider at each login, and InvalidEmail."""
    if user.provider != local.PROVIDER:
        raise EmailNotEditable(
            _(
                "%(user)s's e-mail address comes from %(provider)s at each login; change it there.",
                user=user.username,
                provider=user.provider,
            )
        )
    user.email = checked_email(text)
    db.session.commit()
    return user.email


def grant_role(user: User, role: str, granted_by: str) -> bool:
    """Give ``user`` the role; returns False if they already had that grant."""
    if any(g.role == role for g in user.grants):
        return False
    user.grants.append(RoleGrant(role=role, granted_by=granted_by))
    db.session.commit()
    return True


def revoke_role(user: User, role: str) -> bool:
    """Take a granted role back; returns False if there was no such grant."""
    for grant in list(user.grants):
        if grant.role == role:
            user.grants.remove(grant)
            db.session.commit()
            return True
    return False


def end_all_sessions(user: User) -> None:
    """Invalidate every login session of ``user`` (after a password reset, for instance)."""
    user.session_version += 1
    logins.end_all(user, commit=False)
    db.session.commit()


GROUP_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,99}")


def change_local_groups(user: User, add=(), remove=()) -> list[str]:
    """Add and remove groups of a local account; returns its groups afterwards.

    Group-derived roles follow at once, as they do at an LDAP or OIDC login. Raises
    GroupsNotEditable for accounts whose groups come from LDAP or an identity provider, and
    InvalidGroupName for a name that could not be a group.
    """
    if user.provider != "local":
        raise GroupsNotEditable(
            _(
                "%(user)s's groups come from %(provider)s at each login; change them there.",
                user=user.username,
                provider=user.provider,
            )
        )
    for name in add:
        if problem := one_line_problem(name, _("Group")):
            raise InvalidGroupName(problem)
    add, remove = [normalise_group(n) for n in add], [normalise_group(n) for n in remove]
    for name in (*add, *remove):
        if not GROUP_NAME.fullmatch(name):
            raise InvalidGroupName(
                _(
                    "'%(name)s' is not a group name: use up to 100 letters, digits and "
                    ". _ : / @ + -, starting with a letter or digit (for example gpu-users).",
                    name=name,
                )
            )
    user.groups = normalise_groups((set(user.groups or ()) | set(add)) - set(remove))
    user.group_roles = roles_from_groups(user.groups, current_app.config["ROLE_GROUPS"])
    refresh_membership(user)
    db.session.commit()
    return user.groups


def set_active(user: User, active: bool) -> None:
    """Enable or disable an account; disabling ends all of its sessions and access tokens."""
    user.active = active
    if not active:
        revoke_all(user, commit=False)
        end_all_sessions(user)
    else:
        db.session.commit()
