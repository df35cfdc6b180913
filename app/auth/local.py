"""Local accounts: people whose password the portal itself stores (hashed with Argon2id)."""

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import select

from app.auth.errors import LoginFailed
from app.auth.identity import Identity
from app.auth.models import User
from app.extensions import db

PROVIDER = "local"
_hasher = PasswordHasher()
# Verified when the account does not exist, so that unknown names take as long as wrong passwords.
_DUMMY_HASH = _hasher.hash("not a real password")


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def find_local_user(username: str) -> User | None:
    return db.session.scalar(
        select(User).where(User.provider == PROVIDER, User.subject == username)
    )


def authenticate(username: str, password: str) -> Identity:
    """Check a local account's password and return its identity.

    Raises LoginFailed for an unknown account, a wrong password or a disabled account.
    """
    user = find_local_user(username)
    stored = user.password_hash if user and user.password_hash else _DUMMY_HASH
    try:
        _hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        raise LoginFailed() from None
    if user is None or not user.password_hash or not user.active:
        raise LoginFailed()
    if _hasher.check_needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
    return Identity(
        provider=PROVIDER,
        subject=user.subject,
        username=user.username,
        display_name=user.display_name,
        email=user.email,
        groups=tuple(user.groups or ()),
    )
