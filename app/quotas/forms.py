"""The operators' limits form: what they type, read into changes, errors beside each field."""

from __future__ import annotations

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import StringField, TextAreaField
from wtforms.validators import DataRequired, Length

from app.quotas.editing import INHERIT, check_model, parse_limit
from app.quotas.errors import InvalidLimit
from app.quotas.models import LIMIT_KEYS
from app.text import OneLine

_HELP = _l("A number, “unlimited”, or empty to leave it to the level above.")


class LimitsForm(FlaskForm):
    cores = StringField(_l("CPU cores"), description=_HELP)
    gpus = StringField(_l("GPUs (all models)"), description=_HELP)
    memory = StringField(
        _l("Memory"), description=_l("A size such as 64 GB, “unlimited”, or empty.")
    )
    disk = StringField(_l("Disk"), description=_l("A size such as 1 TB, “unlimited”, or empty."))
    deployments = StringField(_l("Deployments at once"), description=_HELP)
    gpu_models = TextAreaField(
        _l("GPUs per model"),
        description=_l("One model per line, e.g. “A100 = 1” or “T4 = unlimited”."),
        render_kw={"rows": 3},
    )
    reason = StringField(
        _l("Reason for the change"),
        validators=[
            DataRequired(_l("Say why the limits change: it is kept in the history.")),
            Length(max=500, message=_l("At most %(max)d characters.")),
            OneLine(),
        ],
    )

    @classmethod
    def showing(cls, limits: dict, **kwargs) -> LimitsForm:
        """A form filled with stored ``limits`` (for a GET)."""
        data = {key: _shown(key, limits[key]) if key in limits else "" for key in LIMIT_KEYS}
        data["gpu_models"] = "\n".join(
            f"{model} = {_shown('gpus', value)}"
            for model, value in (limits.get("gpu_models") or {}).items()
        )
        return cls(data=data, **kwargs)

    def changes(self, current: dict) -> dict | None:
        """The changes typed, against the ``current`` stored limits; None (with errors set on
        the fields) when something can't be read."""
        changes, ok = {}, True
        for key in LIMIT_KEYS:
            try:
                changes[key] = parse_limit(key, self[key].data)
            except InvalidLimit as error:
                self[key].errors = [*self[key].errors, error.message]
                ok = False
        try:
            models = self._models()
        except InvalidLimit as error:
            self.gpu_models.errors = [*self.gpu_models.errors, error.message]
            return None
        removed = {m: INHERIT for m in (current.get("gpu_models") or {}) if m not in models}
        changes["gpu_models"] = {**removed, **models}
        return changes if ok else None

    def _models(self) -> dict:
        models = {}
        for number, line in enumerate((self.gpu_models.data or "").splitlines(), 1):
            if not line.strip():
                continue
            if "=" not in line:
                raise InvalidLimit(
                    _(
                        "Line %(number)d: write “MODEL = NUMBER”, got “%(line)s”.",
                        number=number,
                        line=line.strip(),
                    )
                )
            name, value = line.split("=", 1)
            model = check_model(name)
            limit = parse_limit(model, value)
            if limit is INHERIT:
                raise InvalidLimit(
                    _(
                        "Line %(number)d: give %(model)s a number or “unlimited”.",
                        number=number,
                        model=model,
                    )
                )
            models[model] = limit
        return models


def _shown(key: str, value) -> str:
    if value is None:
        return "unlimited"
    if key in ("memory", "disk"):
        # Exactly, so that saving the form again changes nothing.
        for unit, factor in (
            ("TB", 10**12),
            ("TiB", 2**40),
            ("GB", 10**9),
            ("GiB", 2**30),
            ("MB", 10**6),
            ("MiB", 2**20),
            ("kB", 10**3),
        ):
            if value and value % factor == 0:
                return f"{value // factor} {unit}"
        return f"{value} B"
    return f"{value:g}" if isinstance(value, float) else str(value)
