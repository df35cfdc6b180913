"""Whether a charge fits: one bar per limited resource (held, this request, limit) and the
sentences that explain a misfit, for the launch form and for the refusal at submit.

Each explanation is one whole sentence per resource and per owner of the limit (the person or
a group's pool), with the amounts as named placeholders, so that every language can say it
its own way."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from markupsafe import Markup, escape

from app.quotas.amounts import amount_phrase, amount_text, format_list, number_of
from app.quotas.limits import Limits
from app.quotas.usage import Holder, Usage
from app.tosca.units import format_size

RESOURCES = (
    ("cores", _l("CPU cores")),
    ("gpus", _l("GPUs")),
    ("memory", _l("Memory")),
    ("disk", _l("Disk")),
    ("deployments", _l("Deployments")),
)
# Holders a sentence names before it counts the others.
NAMED_HOLDERS = 5


@dataclass
class Bar:
    """One resource against one limit: what is held, what this request adds, the limit."""

    key: str
    label: str
    used: float
    request: float
    limit: float | None
    model: str | None = None
    holders: list[Holder] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        return self.limit is None or self.used + self.request <= self.limit + 1e-9

    @property
    def over(self) -> float:
        return 0 if self.limit is None else max(self.used + self.request - self.limit, 0)

    def percent(self, amount: float) -> float:
        """``amount`` as a share of the bar's width (the limit, or what is needed if more);
        nothing is drawn against no limit, where a share would mean nothing."""
        if self.limit is None:
            return 0.0
        scale = max(self.limit or 0, self.used + self.request, 1e-9)
        return round(min(100.0, 100.0 * amount / scale), 1)

    def text(self, amount: float) -> str:
        return amount_text(self.key, amount, self.model)


@dataclass
class Assessment:
    """The bars of one owner of limits: the user (``group`` None), a group's pool, or the
    user's own limits inside the group (``member``)."""

    group: str | None
    bars: list[Bar]
    member: bool = False

    @property
    def fits(self) -> bool:
        return all(bar.fits for bar in self.bars)

    @property
    def title(self) -> str:
        if self.group is None:
            return _("Your quota")
        if self.member:
            return _("Your limits in group %(group)s", group=self.group)
        return _("Pool of group %(group)s", group=self.group)

    def misfits(self) -> list[Bar]:
        return [bar for bar in self.bars if not bar.fits]

    def share(self, used: str, limit: str) -> str:
        """``2 of your 4`` or ``2 of the 4 in group physics's pool`` (the launch box's words)."""
        if self.group is None:
            return f"{used} of your {limit}"
        if self.member:
            return f"{used} of your {limit} in group {self.group}"
        return f"{used} of the {limit} in group {self.group}'s pool"

    def limit_phrase(self, limit: str) -> str:
        if self.group is None:
            return f"your limit is {limit}"
        if self.member:
            return f"your limit in group {self.group} is {limit}"
        return f"group {self.group}'s pool is limited to {limit}"


@dataclass
class Misfit:
    """One resource that does not fit, in words: ``needs`` 4 GPUs, ``held`` (2 of your 4
    are held by deployments) ``holders``, or else ``limit`` (your limit is 4 GPUs); ``over``."""

    needs: str
    held: str | None
    holders: list[Holder]
    limit: str | None
    over: str


def misfit(assessment: Assessment, bar: Bar) -> Misfit:
    """The words for ``bar``, which does not fit."""
    limit = bar.limit or 0
    held = None
    if bar.used:
        word = "deployment" if len(bar.holders) == 1 else "deployments"
        verb = "is" if bar.used == 1 else "are"
        tail = f"held by {word}" if bar.holders else "held already"
        held = f"{assessment.share(_bare(bar, bar.used), _bare(bar, limit))} {verb} {tail}"
    return Misfit(
        needs=f"needs {bar.text(bar.request)}",
        held=held,
        holders=bar.holders,
        limit=None if held else assessment.limit_phrase(bar.text(limit)),
        over=f"{bar.text(bar.over)} over",
    )


def assess(
    group: str | None,
    limits: Limits,
    usage: Usage,
    charge: dict,
    holders: Callable[[], list[Holder]],
    *,
    show_unlimited: bool = False,
    member: bool = False,
) -> Assessment:
    """Bars for every limited resource (all resources with ``show_unlimited``); the holders
    of a resource are looked up only when it does not fit. ``member``: the limits are the
    person's own inside ``group``."""
    bars = []
    for key, label in RESOURCES:
        request = 1 if key == "deployments" else float(charge.get(key) or 0)
        limit = limits.get(key)
        if limit is not None or show_unlimited:
            bars.append(Bar(key, label, usage.get(key), request, limit))
    requested_models = charge.get("gpu_models") or {}
    for model, limit in sorted(limits.gpu_models.items()):
        request = float(requested_models.get(model, 0))
        if limit is not None or request:
            label = _("%(model)s GPUs", model=model)
            bars.append(Bar("gpus", label, usage.gpu_models.get(model, 0), request, limit, model))
    misfits = [bar for bar in bars if not bar.fits]
    if misfits:
        everyone = holders()
        for bar in misfits:
            bar.holders = [h for h in everyone if h.amount(bar.key, bar.model) > 0]
    return Assessment(group, bars, member)


def could_wait(assessments: list[Assessment]) -> bool:
    """Whether a launch that does not fit now would fit once what is held is handed back: it
    is short only of resources running deployments hold, never over a limit by itself. Such a
    launch may wait in line (``app.lines``); one over a limit itself never could fit."""
    misfits = [bar for assessment in assessments for bar in assessment.misfits()]
    return bool(misfits) and all(
        bar.limit is not None and bar.request <= bar.limit + 1e-9 for bar in misfits
    )


def misfit_sentence(assessment: Assessment, bar: Bar, link: Callable | None = None) -> str:
    """One sentence for ``bar``, which does not fit: ``It needs 4 GPUs, but deployments “X”
    and “Y” already hold 2 GPUs of your limit of 4 GPUs (2 GPUs over).``

    With ``link`` (a holder to its Markup link, such as a template macro) the deployments are
    links and the sentence is Markup, everything else in it escaped.
    """
    values = {
        "needs": amount_phrase(bar.key, bar.request, bar.model),
        "used": amount_text(bar.key, bar.used, bar.model),
        "limit": amount_phrase(bar.key, bar.limit or 0, bar.model),
        "over": amount_text(bar.key, bar.over, bar.model),
        "group": assessment.group or "",
    }
    if link is not None:
        values = {key: escape(value) for key, value in values.items()}
    mine = assessment.group is None
    holders = bar.holders if bar.used else []
    if assessment.member:
        text = _member_sentence(values, holders, link)
    elif holders and not mine:
        # A pool's holders are the person's own only (``assess_launch``): the group's total.
        values["deployments"] = _holder_list(holders, link)
        text = ngettext(
            "It needs %(needs)s, but the members of group %(group)s already hold %(used)s of "
            "its pool, limited to %(limit)s (%(over)s over); your deployment %(deployments)s "
            "is one of them.",
            "It needs %(needs)s, but the members of group %(group)s already hold %(used)s of "
            "its pool, limited to %(limit)s (%(over)s over); your deployments %(deployments)s "
            "are among them.",
            len(holders),
            **values,
        )
    elif holders:
        values["deployments"] = _holder_list(holders, link)
        if mine:
            text = ngettext(
                "It needs %(needs)s, but deployment %(deployments)s already holds %(used)s of "
                "your limit of %(limit)s (%(over)s over).",
                "It needs %(needs)s, but deployments %(deployments)s already hold %(used)s of "
                "your limit of %(limit)s (%(over)s over).",
                len(holders),
                **values,
            )
        else:
            text = ngettext(
                "It needs %(needs)s, but deployment %(deployments)s already holds %(used)s of "
                "the pool of group %(group)s, limited to %(limit)s (%(over)s over).",
                "It needs %(needs)s, but deployments %(deployments)s already hold %(used)s of "
                "the pool of group %(group)s, limited to %(limit)s (%(over)s over).",
                len(holders),
                **values,
            )
    elif bar.used and mine:
        text = _(
            "It needs %(needs)s, but you already hold %(used)s of your limit of %(limit)s "
            "(%(over)s over).",
            **values,
        )
    elif bar.used:
        text = _(
            "It needs %(needs)s, but the members of group %(group)s already hold %(used)s of "
            "its pool, limited to %(limit)s (%(over)s over).",
            **values,
        )
    elif mine:
        text = _("It needs %(needs)s, but your limit is %(limit)s (%(over)s over).", **values)
    else:
        text = _(
            "It needs %(needs)s, but the pool of group %(group)s is limited to %(limit)s "
            "(%(over)s over).",
            **values,
        )
    # Safe: every value in it was escaped above, and the words are the catalogue's.
    return Markup(text) if link is not None else text  # noqa: S704


def _member_sentence(values: dict, holders: list[Holder], link: Callable | None) -> str:
    """A misfit of the person's own limits inside a group (``misfit_sentence``'s words)."""
    if holders:
        values["deployments"] = _holder_list(holders, link)
        return ngettext(
            "It needs %(needs)s, but your deployment %(deployments)s charged to group "
            "%(group)s already holds %(used)s of your limit there of %(limit)s (%(over)s over).",
            "It needs %(needs)s, but your deployments %(deployments)s charged to group "
            "%(group)s already hold %(used)s of your limit there of %(limit)s (%(over)s over).",
            len(holders),
            **values,
        )
    return _(
        "It needs %(needs)s, but your limit in group %(group)s is %(limit)s (%(over)s over).",
        **values,
    )


def refusal_message(assessment: Assessment, misfits: list[Bar]) -> str:
    """Why a launch is refused: what it does not fit, a sentence per resource, what to do."""
    if assessment.member:
        lead = _(
            "This launch does not fit your limits in group %(group)s, set by its managers.",
            group=assessment.group,
        )
    elif assessment.group is None:
        lead = _("This launch does not fit your quota.")
    else:
        lead = _("This launch does not fit the pool of group %(group)s.", group=assessment.group)
    if yours_hold([assessment]):
        advice = _(
            "Nothing was launched; delete a deployment or choose smaller sizes, then launch again."
        )
    else:
        advice = _(
            "Nothing was launched; none of what holds it is yours: choose smaller sizes, or "
            "launch again once the group's members hand some back."
        )
    # Whole sentences, one after the other.
    return " ".join([lead, *(misfit_sentence(assessment, bar) for bar in misfits), advice])


def yours_hold(assessments: list[Assessment]) -> bool:
    """Whether deleting one of the person's own deployments is advice that fits: what does not
    fit is their own limit, or their deployments hold some of a group's pool."""
    return any(
        assessment.group is None or assessment.member or bar.holders
        for assessment in assessments
        for bar in assessment.misfits()
    )


def _bare(bar: Bar, amount: float) -> str:
    if bar.key in ("memory", "disk"):
        return format_size(int(amount))
    return str(number_of(amount))


def _holder_list(holders: list[Holder], link: Callable | None) -> str:
    """``“X”, “Y” and “Z”`` (or links), the first few and how many others, in the reader's
    language."""
    named = holders if len(holders) <= NAMED_HOLDERS else holders[: NAMED_HOLDERS - 1]
    if link is None:
        names = [_("“%(name)s”", name=holder.name) for holder in named]
    else:
        names = [link(holder) for holder in named]  # Markup: the caller's own links
    others = len(holders) - len(named)
    if others:
        names.append(ngettext("%(num)d other", "%(num)d others", others))
    if link is None:
        return format_list(names)
    return Markup(format_list([str(escape(name)) for name in names]))  # noqa: S704
