"""What an identity provider tells us about the person who just proved who they are."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Identity:
    provider: str  # "local", "ldap" or the configured OIDC provider name
    subject: str  # stable id within the provider (OIDC "sub", LDAP username)
    username: str
    display_name: str = ""
    email: str = ""
    groups: tuple[str, ...] = field(default_factory=tuple)
