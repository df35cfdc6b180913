"""The login form, a local account's password change, and the form that creates a personal
access token."""

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import (
    HiddenField,
    IntegerField,
    PasswordField,
    RadioField,
    SelectMultipleField,
    StringField,
)
from wtforms.validators import DataRequired, EqualTo, Length, NumberRange
from wtforms.widgets import CheckboxInput, ListWidget

from app.auth.access_tokens import SCOPES
from app.text import OneLine

try:
    from wtforms import SelectChoice as Choice  # WTForms >= 3.3 deprecates plain tuples
except ImportError:  # pragma: no cover - older WTForms
    from typing import NamedTuple

    class Choice(NamedTuple):
        value: str
        label: str


METHOD_LABELS = {"local": _l("Portal account"), "ldap": _l("Institute account (LDAP)")}


class LoginForm(FlaskForm):
    username = StringField(
        _l("Username"),
        validators=[DataRequired(_l("Enter your username.")), Length(max=255)],
        render_kw={"autocomplete": "username", "autofocus": True, "autocapitalize": "none"},
    )
    password = PasswordField(
        _l("Password"),
        validators=[DataRequired(_l("Enter your password.")), Length(max=1024)],
        render_kw={"autocomplete": "current-password"},
    )
    method = RadioField(_l("Account"), validate_choice=True)
    next = HiddenField()

    def __init__(self, methods: list[str], label: str | None = None, **kwargs):
        super().__init__(**kwargs)
        self.method.choices = [(m, METHOD_LABELS[m]) for m in methods]
        if label and "ldap" in methods:
            self.method.choices = [
                (m, label if m == "ldap" else text) for m, text in self.method.choices
            ]
        if not self.method.data and methods:
            self.method.data = methods[0]


class MultiCheckboxField(SelectMultipleField):
    widget = ListWidget(prefix_label=False)
    option_widget = CheckboxInput()


class TokenForm(FlaskForm):
    """A new personal access token: its name, scopes and lifetime."""

    name = StringField(
        _l("Name"),
        validators=[
            DataRequired(_l("Name the token, e.g. after the script that uses it.")),
            Length(max=100),
            OneLine(),
        ],
        description=_l("What uses it, so that you know which one to revoke."),
    )
    scopes = MultiCheckboxField(
        _l("Allowed to"),
        validators=[DataRequired(_l("Choose at least one scope."))],
        choices=[
            Choice(name, _l("%(scope)s: %(meaning)s", scope=name, meaning=text))
            for name, text in SCOPES.items()
        ],
    )
    days = IntegerField(
        _l("Lifetime in days"),
        default=30,
        validators=[DataRequired(_l("Give a number of days.")), NumberRange(min=1)],
    )


class ChangePasswordForm(FlaskForm):
    """A local account's own password change: the current one proves who is asking."""

    current_password = PasswordField(
        _l("Current password"),
        validators=[DataRequired(_l("Enter your current password.")), Length(max=1024)],
        render_kw={"autocomplete": "current-password"},
    )
    new_password = PasswordField(
        _l("New password"),
        validators=[DataRequired(_l("Choose a new password.")), Length(max=1024)],
        render_kw={"autocomplete": "new-password"},
    )
    repeated = PasswordField(
        _l("New password again"),
        validators=[
            DataRequired(_l("Type the new password again.")),
            EqualTo("new_password", _l("The two new passwords differ: type the same one twice.")),
        ],
        render_kw={"autocomplete": "new-password"},
    )
