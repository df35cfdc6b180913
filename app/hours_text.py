"""Hours of one resource in words ("2,000 A100 GPU-hours", "12.5 core-hours"), in the language
being served: the budgets' amounts, wherever they are shown (a launch's check, a warning)."""

from __future__ import annotations

from flask_babel import ngettext

from app.formatting import format_decimal, plural_count

CORES = "cores"


def hours_text(hours: float, counts: str, model: str | None = None) -> str:
    """``hours`` of core-hours (``counts`` ``"cores"``) or of GPU-hours (anything else; of
    ``model``, or of any model when None), rounded to a tenth."""
    amount = round(hours, 1)
    number, count = format_decimal(amount), plural_count(amount)
    if counts == CORES:
        return ngettext("%(amount)s core-hour", "%(amount)s core-hours", count, amount=number)
    if model:
        return ngettext(
            "%(amount)s %(model)s GPU-hour",
            "%(amount)s %(model)s GPU-hours",
            count,
            amount=number,
            model=model,
        )
    return ngettext("%(amount)s GPU-hour", "%(amount)s GPU-hours", count, amount=number)
