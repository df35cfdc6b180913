"""Each input of a parsed template checked against the field the form gives it: its
constraints, its default, the sidecar's choices and presets (``parsed.parse_template``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.tosca.constraints import ConstraintError
from app.tosca.inputs import WidgetError, field_for
from app.tosca.wording import N_
from app.tosca.yamlsafe import Problem

if TYPE_CHECKING:
    from app.tosca.parsed import InputSpec, ParsedTemplate


def build_fields(result: ParsedTemplate) -> dict:
    """Check each input can get a field; record errors and unsupported types."""
    fields = {}
    for spec in result.inputs:
        try:
            input_field = field_for(spec)
        except (ConstraintError, WidgetError) as error:
            result.errors.append(
                Problem.of(
                    N_('Input "%(name)s": %(error)s'), spec.line, name=spec.name, error=str(error)
                )
            )
            continue
        spec.kind = input_field.kind
        if input_field.unsupported_reason:
            result.unsupported.append(f"{spec.name}: {input_field.unsupported_reason}")
        if spec.has_default and _breaks_own_constraints(input_field, spec):
            result.warnings.append(
                Problem.of(
                    N_(
                        'Input "%(name)s": its default %(default)s breaks its own constraints: '
                        "%(errors)s The template stays launchable: the form offers no default "
                        "for it, asks for a value and says why."
                    ),
                    spec.line,
                    name=spec.name,
                    default=repr(spec.default),
                    errors=" ".join(input_field.check(spec.default)[1]),
                )
            )
            spec.refused_default, spec.default = spec.default, None
            spec.has_default, spec.required = False, True
            input_field = field_for(spec)
        if spec.has_default:
            _value, messages = input_field.check(spec.default)
            if messages:
                result.errors.append(
                    Problem.of(
                        N_('Input "%(name)s": its default %(default)s is not valid: %(errors)s'),
                        spec.line,
                        name=spec.name,
                        default=repr(spec.default),
                        errors=" ".join(messages),
                    )
                )
        for choice in spec.choices or []:
            _value, messages = input_field.check(choice)
            if messages:
                result.errors.append(
                    Problem.of(
                        N_('Input "%(name)s": choice %(choice)s is not valid: %(errors)s'),
                        None,
                        "sidecar",
                        name=spec.name,
                        choice=repr(choice),
                        errors=" ".join(messages),
                    )
                )
        if spec.hidden and not spec.has_default and spec.required:
            result.errors.append(
                Problem.of(
                    N_('Input "%(name)s" is hidden but required and has no default.'),
                    None,
                    "sidecar",
                    name=spec.name,
                )
            )
        fields[spec.name] = input_field
    return fields


def _breaks_own_constraints(input_field, spec: InputSpec) -> bool:
    """Whether the default is a value of the input's type that its constraints refuse (a
    ``1 GB`` under ``valid_values`` from ``2 GB``). Backends take such a template, and take
    any allowed value for the input; a default of the wrong type stays an error."""
    try:
        input_field.coerce(spec.default)
    except ValueError:
        return False
    return bool(input_field.check(spec.default)[1])


def check_presets(result: ParsedTemplate, fields: dict) -> None:
    for preset in result.presets:
        for name, value in preset["values"].items():
            if name not in fields:
                continue
            _value, messages = fields[name].check(value)
            if messages:
                result.errors.append(
                    Problem.of(
                        N_('Preset "%(preset)s" sets %(name)s to %(value)s: %(errors)s'),
                        None,
                        "sidecar",
                        preset=preset["name"],
                        name=name,
                        value=repr(value),
                        errors=" ".join(messages),
                    )
                )
