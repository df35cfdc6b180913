"""Whether a charge fits: one bar per limited resource (held, this request, limit) and the
sentences that explain a misfit, for the launch form and for the refusal at submit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from app.quotas.limits import Limits
from app.quotas.usage import Holder, Usage
from app.tosca.units import format_size

RESOURCES = (
    ("cores", "CPU cores"),
    ("gpus", "GPUs"),
    ("memory", "Memory"),
    ("disk", "Disk"),
    ("deployments", "Deployments"),
)


def amount_text(key: str, amount: float, model: str | None = None) -> str:
    """``4 GPUs``, ``2 A100 GPUs``, ``8 GB``, ``0.5 cores``, ``1 deployment``."""
    if key in ("memory", "disk"):
        return format_size(int(amount))
    shown = int(amount) if float(amount).is_integer() else round(amount, 3)
    noun = {"cores": "core", "gpus": "GPU", "deployments": "deployment"}[key]
    if model:
        noun = f"{model} {noun}"
    return f"{shown} {noun}" if shown == 1 else f"{shown} {noun}s"


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

    @property
    def limit_word(self) -> str:
        """How the limit is named in a sentence: ``GPU``, ``A100 GPU``, ``memory``."""
        if self.model:
            return f"{self.model} GPU"
        return {
            "cores": "CPU core",
            "gpus": "GPU",
            "memory": "memory",
            "disk": "disk",
            "deployments": "deployment",
        }[self.key]


@dataclass
class Assessment:
    """The bars of one owner of limits: the user (``group`` None), or a group's pool."""

    group: str | None
    bars: list[Bar]

    @property
    def fits(self) -> bool:
        return all(bar.fits for bar in self.bars)

    @property
    def title(self) -> str:
        return "Your quota" if self.group is None else f"Pool of group {self.group}"

    def misfits(self) -> list[Bar]:
        return [bar for bar in self.bars if not bar.fits]

    def share(self, used: str, limit: str) -> str:
        """``2 of your 4`` or ``2 of the 4 in group physics's pool``."""
        if self.group is None:
            return f"{used} of your {limit}"
        return f"{used} of the {limit} in group {self.group}'s pool"

    def limit_phrase(self, limit: str) -> str:
        if self.group is None:
            return f"your limit is {limit}"
        return f"group {self.group}'s pool is limited to {limit}"

    def limit_name(self, words: list[str]) -> str:
        """``your GPU limit``, ``your GPU and memory limits``, or the pool's."""
        listed = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
        limits = f"{listed} limit{'s' if len(words) > 1 else ''}"
        if self.group is None:
            return f"your {limits}"
        return f"the {limits} of group {self.group}'s pool"


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
) -> Assessment:
    """Bars for every limited resource (all resources with ``show_unlimited``); the holders
    of a resource are looked up only when it does not fit."""
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
            bars.append(
                Bar("gpus", f"{model} GPUs", usage.gpu_models.get(model, 0), request, limit, model)
            )
    misfits = [bar for bar in bars if not bar.fits]
    if misfits:
        everyone = holders()
        for bar in misfits:
            bar.holders = [h for h in everyone if h.amount(bar.key, bar.model) > 0]
    return Assessment(group, bars)


def misfit_sentence(assessment: Assessment, bar: Bar) -> str:
    """``needs 4 GPUs, 2 of your 4 are held by deployments “X” and “Y” (2 GPUs over)``."""
    words = misfit(assessment, bar)
    if words.held:
        names = _names([h.name for h in words.holders]) if words.holders else ""
        middle = f"{words.held} {names}".strip()
    else:
        middle = words.limit
    return f"{words.needs}, {middle} ({words.over})"


def _bare(bar: Bar, amount: float) -> str:
    if bar.key in ("memory", "disk"):
        return format_size(int(amount))
    return str(int(amount) if float(amount).is_integer() else round(amount, 3))


def _names(names: list[str]) -> str:
    quoted = [f"“{n}”" for n in names[:5]]
    if len(names) > 5:
        quoted = [*quoted[:4], f"{len(names) - 4} others"]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
