"""Who people are: one User per identity (provider + subject), and what they may do."""

from datetime import datetime

from flask_login import UserMixin
from sqlalchemy import JSON, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.clock import utcnow
from app.extensions import db


class User(UserMixin, db.Model):
    """A person as seen through one identity provider.

    The same person logging in through LDAP and through an OIDC provider gets two records: the
    orchestrator, too, tells owners apart by (issuer, subject).
    """

    __tablename__ = "users"
    __table_args__ = (UniqueConstraint("provider", "subject", name="uq_users_identity"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    provider: Mapped[str] = mapped_column(String(64))  # "local", "ldap" or an OIDC provider name
    subject: Mapped[str] = mapped_column(String(255))
    username: Mapped[str] = mapped_column(String(255))
    display_name: Mapped[str] = mapped_column(String(255), default="")
    email: Mapped[str] = mapped_column(String(255), default="")
    groups: Mapped[list] = mapped_column(JSON, default=list)
    # Roles that came from group membership at the last login; grants live in RoleGrant.
    group_roles: Mapped[list] = mapped_column(JSON, default=list)
    # Groups this person manages by membership of another group (GROUP_MANAGER_GROUPS), as
    # of the last login; managers named by operators live in GroupManager.
    managed_by_membership: Mapped[list] = mapped_column(JSON, default=list)
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    active: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_login_at: Mapped[datetime | None] = mapped_column(nullable=True)
    # Changing it logs out every session of this user (see load_user).
    session_version: Mapped[int] = mapped_column(default=1)
    # The language and IANA time zone the person picked; None follows the browser and the site.
    locale: Mapped[str | None] = mapped_column(String(16), nullable=True)
    timezone: Mapped[str | None] = mapped_column(String(64), nullable=True)

    grants: Mapped[list["RoleGrant"]] = relationship(
        back_populates="user", cascade="all, delete-orphan", lazy="selectin"
    )

    @property
    def is_active(self) -> bool:  # Flask-Login asks this
        return self.active

    def get_id(self) -> str:
        return f"{self.id}:{self.session_version}"

    @property
    def name(self) -> str:
        return self.display_name or self.username

    @property
    def roles(self) -> frozenset[str]:
        return frozenset(["user", *self.group_roles, *(g.role for g in self.grants)])

    def has_role(self, role: str) -> bool:
        return role in self.roles

    @property
    def is_admin(self) -> bool:
        return "admin" in self.roles

    @property
    def is_operator(self) -> bool:
        return "operator" in self.roles or self.is_admin

    def __repr__(self) -> str:
        return f"<User {self.provider}:{self.username}>"


class RoleGrant(db.Model):
    """A role given to one user by hand (``flask users grant``), on top of group-derived roles."""

    __tablename__ = "role_grants"
    __table_args__ = (UniqueConstraint("user_id", "role", name="uq_role_grants_user_role"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    role: Mapped[str] = mapped_column(String(32))
    granted_by: Mapped[str] = mapped_column(String(255), default="")
    granted_at: Mapped[datetime] = mapped_column(default=utcnow)

    user: Mapped[User] = relationship(back_populates="grants")


class GroupManager(db.Model):
    """A manager of a group named by an operator (``flask groups managers add``), on top of
    those its members' other groups make (``GROUP_MANAGER_GROUPS``)."""

    __tablename__ = "group_managers"
    __table_args__ = (
        UniqueConstraint("group_name", "user_id", name="uq_group_managers_group_user"),
        Index("ix_group_managers_user", "user_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    group_name: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    named_by: Mapped[str] = mapped_column(String(255), default="")
    named_at: Mapped[datetime] = mapped_column(default=utcnow)

    user: Mapped[User] = relationship()


class OAuthToken(db.Model):
    """A user's tokens from an OIDC provider, encrypted; the orchestrator calls need them."""

    __tablename__ = "oauth_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), unique=True)
    provider: Mapped[str] = mapped_column(String(64))
    access_token: Mapped[str] = mapped_column(db.Text)  # encrypted
    refresh_token: Mapped[str | None] = mapped_column(db.Text, nullable=True)  # encrypted
    expires_at: Mapped[datetime | None] = mapped_column(nullable=True)
    scope: Mapped[str] = mapped_column(String(512), default="")
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class UserSession(db.Model):
    """One login, from the moment it succeeded until logout, expiry or an end forced on it.

    The browser's signed cookie carries a random token; only its SHA-256 digest is stored, so
    that a copy of the database cannot be turned into live cookies.
    """

    __tablename__ = "user_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_digest: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    provider: Mapped[str] = mapped_column(String(64))
    address: Mapped[str] = mapped_column(String(64), default="")
    user_agent: Mapped[str] = mapped_column(String(120), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(index=True)


class LoginFailure(db.Model):
    """Failed logins counted per key ("account:<name>" or "address:<ip>") within a window."""

    __tablename__ = "login_failures"
    __table_args__ = (Index("ix_login_failures_window_start", "window_start"),)

    key: Mapped[str] = mapped_column(String(320), primary_key=True)
    failures: Mapped[int] = mapped_column(default=0)
    window_start: Mapped[datetime] = mapped_column(default=utcnow)
