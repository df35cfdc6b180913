"""The login form."""

from flask_wtf import FlaskForm
from wtforms import HiddenField, PasswordField, RadioField, StringField
from wtforms.validators import DataRequired, Length

METHOD_LABELS = {"local": "Portal account", "ldap": "Institute account (LDAP)"}


class LoginForm(FlaskForm):
    username = StringField(
        "Username",
        validators=[DataRequired("Enter your username."), Length(max=255)],
        render_kw={"autocomplete": "username", "autofocus": True, "autocapitalize": "none"},
    )
    password = PasswordField(
        "Password",
        validators=[DataRequired("Enter your password."), Length(max=1024)],
        render_kw={"autocomplete": "current-password"},
    )
    method = RadioField("Account", validate_choice=True)
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
