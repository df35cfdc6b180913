"""The Account page's e-mail choices: one labelled checkbox per kind of notification."""

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import SelectMultipleField
from wtforms.widgets import CheckboxInput, ListWidget

from app.notifications.kinds import KINDS


class EmailChoicesForm(FlaskForm):
    kinds = SelectMultipleField(
        _l("E-mail me when"),
        widget=ListWidget(prefix_label=False),
        option_widget=CheckboxInput(),
        validate_choice=True,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.kinds.choices = [(kind.name, kind.label) for kind in KINDS]
