"""A Chronos schedule chosen as a person would ("once, now", "every day at 02:00", "every 6
hours, 10 times") with form controls, and sent as the ISO 8601 repeating interval the
template expects (sidecar ``widget: schedule`` on a string input)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup
from wtforms import Field
from wtforms.utils import unset_value

from app.tosca.inputs.base import InputField
from app.tosca.numbers import whole
from app.tosca.schedules import UNITS, Schedule, parse_schedule

HOW = (("now", _l("Once, now")), ("once", _l("Once, at a set time")), ("repeat", _l("Repeatedly")))
UNIT_WORDS = (
    ("minutes", _l("minutes")),
    ("hours", _l("hours")),
    ("days", _l("days")),
    ("weeks", _l("weeks")),
)


class ScheduleControls:
    """Renders the controls of a schedule field: how it runs, from when, how often, how many
    times; each named ``<field>-<part>`` and labelled. Every value is escaped by
    ``Markup.format``."""

    def __call__(self, field, **kwargs) -> Markup:
        data = field.data if isinstance(field.data, dict) else {}
        raw = field.raw_parts or {}
        attributes = {"disabled": bool(kwargs.get("disabled"))}
        described = kwargs.get("aria-describedby") or kwargs.get("aria_describedby")
        invalid = " is-invalid" if field.errors else ""

        def value(part: str) -> str:
            if part in raw:
                return raw[part]
            shown = data.get(part)
            if isinstance(shown, datetime):
                return shown.strftime("%Y-%m-%dT%H:%M")
            return "" if shown is None else str(shown)

        def common(part: str) -> Markup:
            return Markup(' id="{}-{}" name="{}-{}"{}{}').format(
                field.id,
                part,
                field.name,
                part,
                Markup(" disabled") if attributes["disabled"] else "",
                Markup(' aria-describedby="{}"').format(described) if described else "",
            )

        def select(part: str, label, choices) -> Markup:
            options = Markup("").join(
                Markup('<option value="{}"{}>{}</option>').format(
                    key, Markup(" selected") if value(part) == key else "", words
                )
                for key, words in choices
            )
            control = Markup('<select class="form-select{}"{}>{}</select>').format(
                invalid, common(part), options
            )
            return _control(field, part, label, control)

        def box(part: str, label, kind: str, hint="") -> Markup:
            control = Markup('<input class="form-control{}" type="{}"{} value="{}"{}>').format(
                invalid,
                kind,
                common(part),
                value(part),
                Markup(' min="1" step="1"') if kind == "number" else "",
            )
            return _control(field, part, label, control, hint)

        parts = [
            select("how", _l("Runs"), HOW),
            box("start", _l("Starting at (UTC)"), "datetime-local", _l("Empty: now")),
            box("every", _l("Every"), "number"),
            select("unit", _l("Unit"), UNIT_WORDS),
            box("times", _l("Times"), "number", _l("Empty: until deleted")),
        ]
        return Markup('<div class="row g-2 schedule-controls" id="{}">{}</div>').format(
            field.id, Markup("").join(parts)
        )


def _control(field, part: str, label, control: Markup, hint="") -> Markup:
    # The choice and the start need room for their words; the numbers fit narrower columns.
    width = "col-lg-3" if part in ("how", "start") else "col-lg"
    return Markup(
        '<div class="col-sm-6 {} schedule-{}"><label class="form-label small" for="{}-{}">{}'
        "</label>{}{}</div>"
    ).format(
        width,
        part,
        field.id,
        part,
        label,
        control,
        Markup('<div class="form-text">{}</div>').format(hint) if hint else "",
    )


class ScheduleField(Field):
    """One launch-form field made of the schedule's controls; ``data`` is their values as a
    dict (``how``, ``start`` as a datetime, ``every``, ``unit``, ``times``)."""

    widget = ScheduleControls()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.raw_parts: dict[str, str] | None = None

    def process(self, formdata, data=unset_value, extra_filters=None):
        self.process_errors = []
        self.errors = []
        default = self.default() if callable(self.default) else self.default
        self.object_data = default if data is unset_value else data
        self.data = self.object_data
        if formdata is None or not any(f"{self.name}-{p}" in formdata for p in PARTS):
            return
        self.raw_parts = {p: (formdata.get(f"{self.name}-{p}") or "").strip() for p in PARTS}
        self.raw_data = [self.raw_parts.get("how", "")]
        try:
            self.data = _read_parts(self.raw_parts)
        except ValueError as error:
            self.data = None
            self.process_errors.append(str(error))


PARTS = ("how", "start", "every", "unit", "times")


def _read_parts(raw: dict[str, str]) -> dict:
    """The typed values of the controls; raises ValueError for one that is not readable."""
    data: dict[str, Any] = {"how": raw["how"] or "now", "unit": raw["unit"] or "days"}
    if raw["start"]:
        try:
            data["start"] = datetime.fromisoformat(raw["start"]).replace(tzinfo=None)
        except ValueError:
            raise ValueError(_("The start is not a date and time.")) from None
    for part in ("every", "times"):
        if raw[part]:
            if not raw[part].isdigit():
                raise ValueError(
                    _("“Every” must be a whole number, such as 6.")
                    if part == "every"
                    else _("“Times” must be a whole number, such as 10.")
                )
            data[part] = whole(raw[part])  # TooManyDigits says what is wrong in a sentence
    return data


class ScheduleInput(InputField):
    """A string input holding a Chronos schedule, edited as "how, from when, how often"."""

    kind = "schedule"
    widgets = ("schedule",)

    def field_class(self):
        return ScheduleField

    def render_kw(self) -> dict[str, Any]:
        return {}

    @property
    def max_length(self) -> int | None:
        return None  # made of bounded controls, never typed whole

    def is_empty(self, value: Any) -> bool:
        return value is None or value == ""

    def coerce(self, value: Any, *, strict: bool = False) -> str:
        if isinstance(value, dict) and not strict:
            return _from_controls(value).iso()
        if not isinstance(value, str):
            raise ValueError(_("must be a schedule"))
        return parse_schedule(value).iso()

    def to_form(self, value: Any) -> Any:
        try:
            schedule = parse_schedule(value) if isinstance(value, str) else None
        except ValueError:
            schedule = None
        if schedule is None:
            return {"how": "now", "every": 1, "unit": "days"}
        every, unit = schedule.every() or (1, "days")
        how = "repeat"
        if schedule.repeats == 1:
            how = "now" if schedule.start is None else "once"
        return {
            "how": how,
            "start": schedule.start,
            "every": every,
            "unit": unit,
            "times": schedule.repeats if how == "repeat" else None,
        }

    def form_parts(self, value: Any, name: str) -> dict[str, str]:
        """The controls' values as the page names them (``<name>-how``...), for presets."""
        parts = {}
        for part, shown in self.to_form(value).items():
            if isinstance(shown, datetime):
                shown = shown.strftime("%Y-%m-%dT%H:%M")
            parts[f"{name}-{part}"] = "" if shown is None else str(shown)
        return parts


def _from_controls(data: dict) -> Schedule:
    """The schedule the controls describe; raises ValueError naming what is missing."""
    how, start = data.get("how") or "now", data.get("start")
    if start is not None and not isinstance(start, datetime):
        raise ValueError(_("has a start that is not a date and time"))
    if how == "now":
        return parse_schedule("R1//P1D")
    if how == "once":
        if start is None:
            raise ValueError(_("needs the date and time of its run"))
        return Schedule(1, start.replace(second=0, microsecond=0), parse_schedule("R1//P1D").period)
    every, unit, times = data.get("every"), data.get("unit"), data.get("times")
    if not isinstance(every, int) or every < 1 or unit not in UNITS:
        raise ValueError(
            _("needs how often it repeats: every 1 or more minutes, hours, days or weeks")
        )
    if times is not None and (not isinstance(times, int) or times < 1):
        raise ValueError(_("needs 1 or more times, or none to repeat until deleted"))
    period = f"PT{every}M" if unit == "minutes" else f"PT{every}H" if unit == "hours" else None
    period = period or (f"P{every}D" if unit == "days" else f"P{every}W")
    start_text = start.strftime("%Y-%m-%dT%H:%M:00Z") if start else ""
    return parse_schedule(f"R{times or ''}/{start_text}/{period}")
