"""Fields for secrets and keys: passwords, TOSCA credentials and SSH public keys."""

from __future__ import annotations

import base64
import binascii
import re
import secrets
import struct
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import Form, FormField, PasswordField, StringField, TextAreaField

from app.tosca.inputs.base import InputField, ToscaValue
from app.tosca.inputs.limits import ssh_comment_max
from app.tosca.inputs.scalars import StringInput
from app.tosca.numbers import grouped

PASSWORD_NAME = re.compile(r"passw|secret|token|passphrase", re.IGNORECASE)
SSH_KEY_NAME = re.compile(r"ssh.*key", re.IGNORECASE)
# Names that mention a secret but hold something else: where it is, what it is called.
NOT_A_SECRET = re.compile(r"_(path|url|uri|file|name|type|endpoint|id)$", re.IGNORECASE)
SSH_KEY_TYPES = (
    "ssh-rsa",
    "ssh-ed25519",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
)


def generate_password() -> str:
    """A random password of 24 URL-safe characters."""
    return secrets.token_urlsafe(18)


class PasswordInput(StringInput):
    """A string shown masked; with sidecar ``generate: true`` an empty field gets a random one.

    Chosen for ``widget: password`` and for string inputs named like *password*, *secret* or
    *token*. Stored values are never written back into the page.
    """

    kind = "password"
    widgets = ("password", "text")

    def default_widget(self) -> str:
        return "password"

    @property
    def required(self) -> bool:
        return super().required and not self.spec.generate

    def field_class(self):
        return PasswordField if self.widget == "password" else StringField

    def render_kw(self) -> dict[str, Any]:
        hints = super().render_kw()
        hints["autocomplete"] = "new-password"
        if self.spec.generate:
            hints.setdefault("placeholder", _l("Leave empty to generate one"))
        return hints

    def to_tosca(self, data: Any) -> Any:
        if self.spec.generate and self.is_empty(data):
            return generate_password()
        return self.coerce(data)


def check_ssh_public_key(text: str) -> str:
    """Return the key normalised to "type base64 [comment]"; raise ``ValueError`` if invalid.

    The base64 part must decode to a blob that starts with the same key type name.
    """
    parts = text.strip().split(None, 2)
    if len(parts) < 2:
        raise ValueError(_("must be an SSH public key such as: ssh-ed25519 AAAA... you@host"))
    key_type, blob_text = parts[0], parts[1]
    if key_type not in SSH_KEY_TYPES:
        raise ValueError(
            _(
                'key type "%(type)s" is not one of: %(types)s...',
                type=key_type,
                types=", ".join(SSH_KEY_TYPES[:3]),
            )
        )
    try:
        blob = base64.b64decode(blob_text, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(_("the key's base64 part is damaged (was it copied whole?)")) from None
    if len(blob) < 4:
        raise ValueError(_("the key is too short to be an SSH public key"))
    (length,) = struct.unpack(">I", blob[:4])
    if blob[4 : 4 + length] != key_type.encode("ascii"):
        raise ValueError(_("the key's data does not match its type %(type)s", type=key_type))
    if len(parts) > 2 and len(parts[2]) > ssh_comment_max():
        raise ValueError(
            _(
                "the comment after the key is %(length)s characters long; keep it to "
                "%(most)s (it is usually just you@host)",
                length=grouped(len(parts[2])),
                most=grouped(ssh_comment_max()),
            )
        )
    return " ".join(parts)


class SshKeyInput(StringInput):
    """An SSH public key (one line), checked for its type and base64 data."""

    kind = "ssh-key"
    widgets = ("textarea", "text")

    def field_class(self):
        return TextAreaField if self.widget == "textarea" else StringField

    def render_kw(self) -> dict[str, Any]:
        hints = super().render_kw()
        hints.setdefault("placeholder", "ssh-ed25519 AAAA... you@example.org")
        return hints

    def coerce(self, value: Any, *, strict: bool = False) -> str:
        return check_ssh_public_key(super().coerce(value, strict=strict))


class _CredentialForm(Form):
    user = StringField(_l("User name"))
    token = PasswordField(_l("Password or token"), render_kw={"autocomplete": "new-password"})


class CredentialInput(InputField):
    """``tosca.datatypes.Credential`` (and types derived from it): a user name and a secret.

    Sent as ``{"user": ..., "token": ..., "token_type": "password"}``, keeping ``protocol``,
    ``token_type`` and ``keys`` from the default when it has them.
    """

    kind = "credential"
    widgets = ("password",)
    _KEYS = {"protocol", "token_type", "token", "keys", "user"}

    def default_widget(self) -> str:
        return "password"

    def field_class(self):
        return FormField

    def make_field(self):
        return FormField(
            _CredentialForm,
            label=self.label,
            description=self.help,
            default=self.form_default(),
            validators=[ToscaValue(self)],
        )

    @property
    def required(self) -> bool:
        return super().required and not self.spec.generate

    def is_empty(self, value: Any) -> bool:
        return not isinstance(value, dict) or not (value.get("user") or value.get("token"))

    def check(self, value: Any, *, strict: bool = False) -> tuple[Any, list[str]]:
        if self.spec.generate and isinstance(value, dict) and not value.get("token"):
            # The token is generated on submission; check the rest now.
            value = {**value, "token": "generated"}
        return super().check(value, strict=strict)

    def to_form(self, value: Any) -> Any:
        if not isinstance(value, dict):
            return {"user": "", "token": ""}
        return {"user": value.get("user") or "", "token": ""}

    def to_tosca(self, data: Any) -> Any:
        data = dict(data or {})
        if self.spec.generate and not data.get("token"):
            data["token"] = generate_password()
        return self.coerce(data)

    def coerce(self, value: Any, *, strict: bool = False) -> dict:
        if not isinstance(value, dict):
            raise ValueError(_("must be a credential with a user and a token"))
        unknown = set(value) - self._KEYS
        if unknown:
            raise ValueError(
                _("unknown credential fields: %(fields)s", fields=", ".join(sorted(unknown)))
            )
        default = self.spec.default if isinstance(self.spec.default, dict) else {}
        credential = {k: v for k, v in default.items() if k in ("protocol", "token_type", "keys")}
        credential.setdefault("token_type", "password")
        for key, item in value.items():
            if item in (None, ""):
                continue
            if key == "keys":
                if not isinstance(item, dict) or not all(isinstance(v, str) for v in item.values()):
                    raise ValueError(_("credential keys must map names to text"))
            elif not isinstance(item, str):
                raise ValueError(_("credential %(key)s must be text", key=key))
            credential[key] = item
        if not credential.get("token"):
            raise ValueError(_("the credential needs a password or token"))
        return credential
