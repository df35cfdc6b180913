"""The launch's own words about a request that does not fit: which tabs hold what to change,
and why Launch is off. The sentences about each resource that does not fit (the cost box's and
the refusal's) belong to the quotas (``app.quotas.fit``)."""

from __future__ import annotations

from babel.lists import format_list
from flask_babel import get_locale, ngettext
from flask_babel import gettext as _


def _listed(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` in the reader's language."""
    return format_list(items, locale=get_locale() or "en") if items else ""


def misfit_tabs(tabs: list, field_names: list[str]) -> list[tuple[int, str]]:
    """The tabs (number from 1, name) that hold any of ``field_names`` (form field names)."""
    wanted = set(field_names)
    return [
        (number, name)
        for number, (name, names) in enumerate(tabs, start=1)
        if wanted.intersection(names)
    ]


def launch_reason(summary: dict, tabs: list[tuple[int, str]]) -> str:
    """Why Launch is off while the request does not fit, naming the tabs to change."""
    if summary.get("over_budget") and summary.get("fits") and not summary.get("refusal"):
        if summary.get("can_wait"):
            return _(
                "Launch is off while this would overrun a budget: wait in line for its renewal."
            )
        return _("Launch is off while this would overrun a budget: choose smaller sizes.")
    if summary.get("kept") and summary.get("fits") and not summary.get("refusal"):
        return _(
            "Launch is off while requests in line come first for what this needs: wait in line."
        )
    if summary.get("no_room") and summary.get("fits") and not summary.get("refusal"):
        return _("Launch is off while no known site has room for this: wait in line.")
    yours = summary.get("yours_hold", True)
    if summary.get("refusal") or not tabs:
        if not yours:
            return _("Launch is off until the request fits your quota: choose smaller sizes.")
        return _(
            "Launch is off until the request fits your quota: choose smaller sizes, or delete "
            "a deployment you no longer need."
        )
    # Named apart: a call inside ngettext's arguments hides its plural from extraction.
    names = _listed([_("\u201c%(name)s\u201d", name=name) for _number, name in tabs])
    if not yours:
        # None of what holds it is the person's: deleting is not theirs to do.
        return ngettext(
            "Launch is off until the request fits your quota: choose smaller sizes on the "
            "%(tabs)s tab.",
            "Launch is off until the request fits your quota: choose smaller sizes on the "
            "%(tabs)s tabs.",
            len(tabs),
            tabs=names,
        )
    return ngettext(
        "Launch is off until the request fits your quota: choose smaller sizes on the "
        "%(tabs)s tab, or delete a deployment you no longer need.",
        "Launch is off until the request fits your quota: choose smaller sizes on the "
        "%(tabs)s tabs, or delete a deployment you no longer need.",
        len(tabs),
        tabs=names,
    )
