"""The launch's words for whether a request fits: one sentence per resource that does not fit
(the cost box and the refusal after a submit say the same), the amounts in them, and why
Launch is off. Each is a whole sentence with named placeholders, so that every language can
order and agree its words; the figures come from the quota bars (``app.quotas.fit``)."""

from __future__ import annotations

from flask import url_for
from flask_babel import format_decimal, ngettext
from flask_babel import gettext as _
from markupsafe import Markup, escape

from app.tosca.units import format_size

# How many deployments a sentence names before it counts the rest.
NAMED_HOLDERS = 5


def _figure(amount: float) -> str:
    return format_decimal(int(amount) if float(amount).is_integer() else round(amount, 3))


def _plural(amount: float) -> int:
    """The count a plural form is chosen by: 1 for exactly one, else many (0.5 cores)."""
    return 1 if amount == 1 else 2


def amount(key: str, value: float, model: str | None = None) -> str:
    """``4 GPUs``, ``2 A100 GPUs``, ``8 GB``, ``0.5 cores``, ``1 deployment``."""
    if key in ("memory", "disk"):
        return format_size(int(value))
    num, many = _figure(value), _plural(value)
    if key == "cores":
        return ngettext("%(amount)s core", "%(amount)s cores", many, amount=num)
    if key == "deployments":
        return ngettext("%(amount)s deployment", "%(amount)s deployments", many, amount=num)
    if model:
        return ngettext(
            "%(amount)s %(model)s GPU", "%(amount)s %(model)s GPUs", many, amount=num, model=model
        )
    return ngettext("%(amount)s GPU", "%(amount)s GPUs", many, amount=num)


def _bare(bar, value: float) -> str:
    """A figure without its noun ("2 of your 4"); sizes keep their unit."""
    return format_size(int(value)) if bar.key in ("memory", "disk") else _figure(value)


def limit_word(bar) -> str:
    """How a limit is named in a sentence: ``GPU``, ``A100 GPU``, ``memory``."""
    if bar.model:
        return _("%(model)s GPU", model=bar.model)
    return {
        "cores": _("CPU core"),
        "gpus": _("GPU"),
        "memory": _("memory"),
        "disk": _("disk"),
        "deployments": _("deployment"),
    }[bar.key]


def listed(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` in the reader's language."""
    if len(items) < 2:
        return "".join(items)
    return _("%(items)s and %(last)s", items=", ".join(items[:-1]), last=items[-1])


def _holders(bar, linked: bool) -> str:
    """The deployments holding what does not fit: links in the cost box, quoted names in a
    refusal; the first few, then how many more."""
    shown = bar.holders[:NAMED_HOLDERS]
    if linked:
        names = [
            str(
                Markup('<a href="{}">{}</a>').format(
                    url_for("deployments.detail", deployment_id=h.id), h.name
                )
            )
            for h in shown
        ]
    else:
        names = [_("\u201c%(name)s\u201d", name=h.name) for h in shown]
    rest = len(bar.holders) - len(shown)
    if rest:
        names.append(ngettext("%(num)d more", "%(num)d more", rest))
    return listed(names)


def misfit(assessment, bar, *, linked: bool = False) -> str:
    """One resource that does not fit, as a clause: ``needs 4 GPUs, 2 of your 4 are held by
    deployments “X” and “Y” (2 GPUs over)``. With ``linked`` the result is HTML (Markup):
    every value in it is escaped and the deployments are links."""
    clean = escape if linked else str
    words = {
        "needs": clean(amount(bar.key, bar.request, bar.model)),
        "over": clean(amount(bar.key, bar.over, bar.model)),
        "group": clean(assessment.group or ""),
    }
    pool = assessment.group is not None
    if not bar.used:
        words["limit"] = clean(amount(bar.key, bar.limit or 0, bar.model))
        if pool:
            text = _(
                "needs %(needs)s, group %(group)s's pool is limited to %(limit)s (%(over)s over)",
                **words,
            )
        else:
            text = _("needs %(needs)s, your limit is %(limit)s (%(over)s over)", **words)
    else:
        words["used"] = clean(_bare(bar, bar.used))
        words["limit"] = clean(_bare(bar, bar.limit or 0))
        text = _held(pool, bar, words, _holders(bar, linked) if bar.holders else None)
    # Every value in ``text`` was escaped above and the holders are links built by Markup.
    return Markup(text) if linked else text  # noqa: S704


def _held(pool: bool, bar, words: dict, holders: str | None) -> str:
    one = bar.used == 1
    if holders is None:
        if pool:
            if one:
                return _(
                    "needs %(needs)s, %(used)s of the %(limit)s in group %(group)s's pool is "
                    "held already (%(over)s over)",
                    **words,
                )
            return _(
                "needs %(needs)s, %(used)s of the %(limit)s in group %(group)s's pool are held "
                "already (%(over)s over)",
                **words,
            )
        if one:
            return _(
                "needs %(needs)s, %(used)s of your %(limit)s is held already (%(over)s over)",
                **words,
            )
        return _(
            "needs %(needs)s, %(used)s of your %(limit)s are held already (%(over)s over)", **words
        )
    count = len(bar.holders)
    if pool and one:
        return ngettext(
            "needs %(needs)s, %(used)s of the %(limit)s in group %(group)s's pool is held by "
            "deployment %(holders)s (%(over)s over)",
            "needs %(needs)s, %(used)s of the %(limit)s in group %(group)s's pool is held by "
            "deployments %(holders)s (%(over)s over)",
            count,
            holders=holders,
            **words,
        )
    if pool:
        return ngettext(
            "needs %(needs)s, %(used)s of the %(limit)s in group %(group)s's pool are held by "
            "deployment %(holders)s (%(over)s over)",
            "needs %(needs)s, %(used)s of the %(limit)s in group %(group)s's pool are held by "
            "deployments %(holders)s (%(over)s over)",
            count,
            holders=holders,
            **words,
        )
    if one:
        return ngettext(
            "needs %(needs)s, %(used)s of your %(limit)s is held by deployment %(holders)s "
            "(%(over)s over)",
            "needs %(needs)s, %(used)s of your %(limit)s is held by deployments %(holders)s "
            "(%(over)s over)",
            count,
            holders=holders,
            **words,
        )
    return ngettext(
        "needs %(needs)s, %(used)s of your %(limit)s are held by deployment %(holders)s "
        "(%(over)s over)",
        "needs %(needs)s, %(used)s of your %(limit)s are held by deployments %(holders)s "
        "(%(over)s over)",
        count,
        holders=holders,
        **words,
    )


def refusal(assessments) -> str | None:
    """The refusal of a launch over quota, for the first owner of limits it does not fit
    (the check at submit stops at the first): None when everything fits."""
    for assessment in assessments:
        bars = assessment.misfits()
        if not bars:
            continue
        names = listed([limit_word(bar) for bar in bars])
        details = "; ".join(misfit(assessment, bar) for bar in bars)
        if assessment.group is not None:
            return ngettext(
                "This launch does not fit the %(names)s limit of group %(group)s's pool: it "
                "%(details)s. Nothing was launched; delete a deployment or choose smaller "
                "sizes, then launch again.",
                "This launch does not fit the %(names)s limits of group %(group)s's pool: it "
                "%(details)s. Nothing was launched; delete a deployment or choose smaller "
                "sizes, then launch again.",
                len(bars),
                names=names,
                group=assessment.group,
                details=details,
            )
        return ngettext(
            "This launch does not fit your %(names)s limit: it %(details)s. Nothing was "
            "launched; delete a deployment or choose smaller sizes, then launch again.",
            "This launch does not fit your %(names)s limits: it %(details)s. Nothing was "
            "launched; delete a deployment or choose smaller sizes, then launch again.",
            len(bars),
            names=names,
            details=details,
        )
    return None


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
    if summary.get("refusal") or not tabs:
        return _(
            "Launch is off until the request fits your quota: choose smaller sizes, or delete "
            "a deployment you no longer need."
        )
    # Named apart: a call inside ngettext's arguments hides its plural from extraction.
    names = listed([_("\u201c%(name)s\u201d", name=name) for _number, name in tabs])
    return ngettext(
        "Launch is off until the request fits your quota: choose smaller sizes on the "
        "%(tabs)s tab, or delete a deployment you no longer need.",
        "Launch is off until the request fits your quota: choose smaller sizes on the "
        "%(tabs)s tabs, or delete a deployment you no longer need.",
        len(tabs),
        tabs=names,
    )
