"""What an identity provider tells us about the person who just proved who they are.

The one owner of how a provider's words become names: whatever a directory or an identity
provider sends, a name, a display name and the groups are one-line texts (``app.text``: a run
of control characters becomes one space) no longer than the database keeps, as local names are
refused at creation when they are not; an e-mail address with a control character in it is no
address (it could add a mail header) and is dropped. The subject is kept as sent: it is the
provider's key for the person, never shown as a name.
"""

from dataclasses import dataclass, field

from app.text import control_characters, flatten

NAME_MAX = 255  # the users table's columns


@dataclass(frozen=True)
class Identity:
    provider: str  # "local", "ldap" or the configured OIDC provider name
    subject: str  # stable id within the provider (OIDC "sub", LDAP username)
    username: str
    display_name: str = ""
    email: str = ""
    groups: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self):
        username = flatten(self.username)[:NAME_MAX] or flatten(self.subject)[:NAME_MAX]
        email = "" if control_characters(self.email) else self.email.strip()
        groups = tuple(group for group in map(flatten, self.groups) if group)
        # Frozen: the normalised values are set once, here, before anyone reads them.
        object.__setattr__(self, "username", username or self.subject)
        object.__setattr__(self, "display_name", flatten(self.display_name)[:NAME_MAX])
        object.__setattr__(self, "email", email[:NAME_MAX])
        object.__setattr__(self, "groups", groups)
