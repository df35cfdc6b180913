"""Reading property values of a template before it is deployed: ``get_input`` and defaults.

Only what can be known in advance is read; anything that depends on the running deployment
(``get_attribute``, ``concat`` over attributes...) is refused with a message naming where.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from flask_babel import gettext as _

from app.tosca.units import size_in_bytes


class AccountingError(ValueError):
    """The template or its inputs don't say clearly how much they ask for."""


class Resolver:
    """Evaluates property values, replacing ``get_input`` wherever it appears."""

    def __init__(self, inputs: Mapping[str, Any], parameters: Mapping[str, Any]):
        self.inputs = inputs
        self.parameters = parameters
        # Which inputs each size property read ("num_cpus" -> {"num_cpus"}), so that a launch
        # over its quota can point at the fields to change.
        self.read: dict[str, set[str]] = {}

    def resolve(self, value: Any, where: str) -> Any:
        """``value`` with every ``get_input`` replaced by the parameter or the input default.

        Raises AccountingError for an undeclared input, a required input without a value, or
        a function only known once deployed.
        """
        if isinstance(value, Mapping) and len(value) == 1:
            ((function, argument),) = value.items()
            if function == "get_input":
                return self.resolve(self._input(argument, where), where)
            if isinstance(function, str) and function.startswith(("get_", "concat", "token")):
                raise AccountingError(
                    _(
                        "%(where)s: %(function)s is only known once deployed, so the size "
                        "can't be counted in advance.",
                        where=where,
                        function=function,
                    )
                )
        if isinstance(value, Mapping):
            return {k: self.resolve(v, f"{where}.{k}") for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v, f"{where}[{i}]") for i, v in enumerate(value)]
        return value

    def _input(self, argument: Any, where: str) -> Any:
        # TOSCA 1.3 also allows [input_name, key_or_index, ...] to reach inside a value.
        path = list(argument) if isinstance(argument, list) else [argument]
        if not path or not isinstance(path[0], str):
            raise AccountingError(
                _(
                    "%(where)s: get_input needs an input name, got %(value)s.",
                    where=where,
                    value=repr(argument),
                )
            )
        name = path[0]
        prop = where.rsplit(": ", 1)[-1].split(".")[0].split("[")[0]
        self.read.setdefault(prop, set()).add(name)
        if name not in self.inputs:
            raise AccountingError(
                _(
                    "%(where)s: get_input names an undeclared input %(name)s.",
                    where=where,
                    name=repr(name),
                )
            )
        definition = self.inputs[name]
        if not isinstance(definition, Mapping):
            definition = {}
        value = self.parameters.get(name)
        if value is None:
            value = definition.get("default")
        # Counting a required size as nothing would let a launch slip past its quota.
        if value is None and definition.get("required", True) not in (False, "no", "false"):
            raise AccountingError(
                _(
                    "%(where)s: the required input %(name)s has no value.",
                    where=where,
                    name=repr(name),
                )
            )
        for step in path[1:]:
            try:
                value = value[step]
            except (KeyError, IndexError, TypeError):
                raise AccountingError(
                    _(
                        "%(where)s: input %(name)s has no element %(step)s.",
                        where=where,
                        name=repr(name),
                        step=repr(step),
                    )
                ) from None
        return value

    def number(self, raw: Any, where: str) -> float:
        """A count or a number of cores, zero or more (0 when absent)."""
        value = self.resolve(raw, where)
        if value is None:
            return 0.0
        try:
            if isinstance(value, bool):
                raise TypeError
            number = float(Decimal(str(value).strip()))
        except (TypeError, ValueError, InvalidOperation):
            raise AccountingError(
                _("%(where)s: expected a number, got %(value)s.", where=where, value=repr(value))
            ) from None
        if number < 0 or not math.isfinite(number):
            raise AccountingError(
                _(
                    "%(where)s: expected a number of zero or more, got %(value)s.",
                    where=where,
                    value=repr(value),
                )
            )
        return number

    def integer(self, raw: Any, where: str, default: int) -> int:
        """A whole number of zero or more; ``default`` when absent."""
        value = self.resolve(raw, where)
        if value is None:
            return default
        number = self.number(value, where)
        if not number.is_integer():
            raise AccountingError(
                _(
                    "%(where)s: expected a whole number, got %(value)s.",
                    where=where,
                    value=repr(value),
                )
            )
        return int(number)

    def size(self, raw: Any, where: str) -> int:
        """A size in bytes (0 when absent)."""
        value = self.resolve(raw, where)
        if value is None:
            return 0
        try:
            return size_in_bytes(value)
        except ValueError as error:
            raise AccountingError(
                _(
                    "%(where)s: %(problem)s, got %(value)s.",
                    where=where,
                    problem=error,
                    value=repr(value),
                )
            ) from None

    def text(self, raw: Any, where: str) -> str | None:
        """A short text such as a GPU model or a flavour name (None when absent or empty)."""
        value = self.resolve(raw, where)
        if value is None or isinstance(value, Mapping | list):
            return None
        text = str(value).strip()
        return text or None
