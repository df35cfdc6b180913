"""Amounts of resources in the reader's words: ``4 cores``, ``1 GPU``, ``8 GB of memory``."""

from __future__ import annotations

from babel.lists import format_list as babel_format_list
from flask_babel import get_locale, ngettext
from flask_babel import gettext as _

from app.formatting import format_decimal, plural_count
from app.tosca.units import format_size


def format_list(items: list[str], style: str = "standard") -> str:
    """``A, B and C`` in the reader's language."""
    return babel_format_list(items, style=style, locale=get_locale() or "en")


def number_of(amount: float) -> int | float:
    return int(amount) if float(amount).is_integer() else round(amount, 3)


def amount_text(key: str, amount: float, model: str | None = None) -> str:
    """``4 GPUs``, ``2 A100 GPUs``, ``8 GB``, ``0.5 cores``, ``1 deployment``."""
    if key in ("memory", "disk"):
        return format_size(int(amount))
    shown = number_of(amount)
    number = format_decimal(shown)
    count = plural_count(shown)
    if key == "cores":
        return ngettext("%(amount)s core", "%(amount)s cores", count, amount=number)
    if key == "deployments":
        return ngettext("%(amount)s deployment", "%(amount)s deployments", count, amount=number)
    if model:
        return ngettext(
            "%(amount)s %(model)s GPU",
            "%(amount)s %(model)s GPUs",
            count,
            amount=number,
            model=model,
        )
    return ngettext("%(amount)s GPU", "%(amount)s GPUs", count, amount=number)


def amount_phrase(key: str, amount: float, model: str | None = None) -> str:
    """An amount as a sentence names it: sizes say what they measure (``8 GB of memory``)."""
    if key == "memory":
        return _("%(size)s of memory", size=format_size(int(amount)))
    if key == "disk":
        return _("%(size)s of disk", size=format_size(int(amount)))
    return amount_text(key, amount, model)


def charge_text(charge: dict | None) -> str:
    """What a stored charge holds, in the reader's words: ``4 cores, 8 GB of memory, 1 GPU``."""
    if not charge:
        return _("not counted")
    parts = [amount_text("cores", charge.get("cores") or 0)]
    if charge.get("memory"):
        parts.append(amount_phrase("memory", charge["memory"]))
    if charge.get("gpus"):
        parts.append(amount_text("gpus", charge["gpus"]))
    if charge.get("disk"):
        parts.append(amount_phrase("disk", charge["disk"]))
    return format_list(parts, style="unit-short")
