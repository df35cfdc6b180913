"""Whether one launch request fits at each site: the one owner of the per-site verdict rule.

A request is sized as the quotas size it: the ``charge`` that ``app.quotas.operations.
charge_for`` makes (and ``Deployment.charge`` stores): ``cores``, ``memory`` and ``disk`` in
bytes, ``gpus`` and ``gpu_models`` ({model: count}; GPUs of no stated model under "any model"),
and ``nodes`` (instances). Nothing here counts a template again.

The rule, per site (``site_verdict``):

- **does not fit**: fresh numbers, no maintenance, no failed read, and some resource the
  request needs has fewer free than it needs;
- **may not fit**: the numbers are stale, the site is in maintenance, its source's last read
  failed, or a number the request needs is unknown (None, or GPUs the source does not tell);
  also when every known number is enough but one of those holds;
- **fits**: every resource the request needs is known free in enough amount, on fresh numbers.

A site whose source tells what each node has free (a cluster: ``SiteFree.nodes``) has no
quota of machines: there the request fits only when each of its machines finds a node with
room for all it needs (``app.capacity.placement``), and the sentence says what one node lacks.
Sites known through quotas are judged on their sums alone.

The quota's verdict comes first (``combined``). A site that "does not fit" is not offered as a
choice; a launch is held back only when every known site "does not fit" (``app.capacity.room``),
otherwise the orchestrator places it where it can.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from flask_babel import gettext as _
from flask_babel import ngettext

from app.backends import registry
from app.capacity.amounts import amount_text, free_text, shortfall_text
from app.capacity.placement import Machine, Shortfall, machines_of, plan
from app.capacity.snapshot import SiteFree, age_seconds, is_stale
from app.formatting import relative

GIB = 2**30
# The quotas' key for GPUs whose model the template leaves to the site.
ANY_GPU_MODEL = "any model"
# The snapshot's key for free GPUs whose model the source does not name.
UNNAMED_MODEL = ""


class Verdict(StrEnum):
    FITS = "fits"
    MAY_NOT_FIT = "may-not-fit"
    DOES_NOT_FIT = "does-not-fit"


# Worst last: the verdict of several findings is the worst of them.
_ORDER = {Verdict.FITS: 0, Verdict.MAY_NOT_FIT: 1, Verdict.DOES_NOT_FIT: 2}


@dataclass(frozen=True)
class Need:
    """One resource the request needs: ``key`` "gpus" (of ``model``, None for any model),
    "cores", "memory" or "disk" (bytes), or "instances"."""

    key: str
    amount: float
    model: str | None = None


@dataclass(frozen=True)
class Finding:
    """What a site's snapshot says of one need: ``free`` None when it does not tell."""

    need: Need
    free: float | None

    @property
    def short(self) -> bool:
        return self.free is not None and self.free + 1e-9 < self.need.amount

    @property
    def unknown(self) -> bool:
        return self.free is None


@dataclass(frozen=True)
class SiteVerdict:
    """The verdict of one site for one request, with what it leans on.

    ``binding`` is the finding that decides it (the first short resource, or the first unknown
    one), ``reason`` why the numbers may not hold ("stale", "maintenance", "problem"), or None;
    ``shortfall`` what no node of a cluster has room for, when that decides it.
    """

    site: str
    verdict: Verdict
    free: SiteFree
    age_seconds: float
    binding: Finding | None = None
    reason: str | None = None
    shortfall: Shortfall | None = None

    @property
    def source(self) -> str:
        return self.free.source

    @property
    def read_at(self) -> datetime:
        return self.free.read_at

    @property
    def offered(self) -> bool:
        """Whether the person may pick this site: it fits, or it may."""
        return self.verdict is not Verdict.DOES_NOT_FIT

    def binding_text(self) -> str:
        """The constraint in words, "needs 2 A100 GPUs, 1 free at RECAS-BARI", or what makes
        the numbers doubtful, or "" when it fits."""
        return binding_text(self)

    def verdict_text(self) -> str:
        return verdict_text(self.verdict)

    def source_text(self) -> str:
        return source_text(self.source)

    def age_text(self, now: datetime | None = None) -> str:
        """ "read 3 minutes ago"."""
        return _("read %(ago)s", ago=relative(self.read_at, now))


def needs_of(charge: Mapping) -> list[Need]:
    """The resources a request needs, from its quota charge (see the module's docstring)."""
    needs = []
    models = {
        model: count
        for model, count in (charge.get("gpu_models") or {}).items()
        if model != ANY_GPU_MODEL and count
    }
    for model, count in sorted(models.items()):
        needs.append(Need("gpus", float(count), model))
    total_gpus = float(charge.get("gpus") or 0)
    if total_gpus > sum(models.values()):
        needs.append(Need("gpus", total_gpus))
    for key, charged in (("cores", "cores"), ("memory", "memory"), ("disk", "disk")):
        if charge.get(charged):
            needs.append(Need(key, float(charge[charged])))
    if charge.get("nodes"):
        needs.append(Need("instances", float(charge["nodes"])))
    return needs


def free_for(free: SiteFree, need: Need) -> float | None:
    """How much of ``need`` the snapshot says is free (memory and disk in bytes), or None."""
    if need.key == "gpus":
        if not free.gpus_known:
            return None
        if need.model is None:
            # GPUs of any model: all free GPUs count (those asked by model are checked apart).
            return float(sum(free.gpus.values()))
        wanted = need.model.casefold()
        return float(sum(count for model, count in free.gpus.items() if model.casefold() == wanted))
    if need.key == "cores":
        return None if free.cores is None else float(free.cores)
    if need.key == "memory":
        return None if free.memory_gib is None else free.memory_gib * GIB
    if need.key == "disk":
        return None if free.disk_gib is None else free.disk_gib * GIB
    return None if free.instances is None else float(free.instances)


def site_verdict(
    needs: Iterable[Need],
    free: SiteFree,
    now: datetime | None = None,
    *,
    counted: bool = True,
    machines: Sequence[Machine] | None = None,
) -> SiteVerdict:
    """The verdict of one site for ``needs`` (``needs_of``). ``counted`` False says part of
    the request could not be counted: then it "may not fit" at best. ``machines``
    (``placement.machines_of``) are planned onto the site's nodes when it tells them."""
    if free.nodes is not None:
        # A cluster has no quota of machines: its nodes decide (below).
        needs = [need for need in needs if need.key != "instances"]
    findings = [Finding(need, free_for(free, need)) for need in needs]
    short = next((f for f in findings if f.short), None)
    unknown = next((f for f in findings if f.unknown), None)
    age = age_seconds(free, now)
    reason = None
    if free.maintenance:
        reason = "maintenance"
    elif free.problem:
        reason = "problem"
    elif is_stale(free, now):
        reason = "stale"
    elif not counted:
        reason = "uncounted"
    if short is not None:
        verdict = Verdict.MAY_NOT_FIT if reason else Verdict.DOES_NOT_FIT
        return SiteVerdict(free.site, verdict, free, age, short, reason)
    shortfall = plan(machines, free.nodes) if free.nodes is not None and machines else None
    if shortfall is not None:
        verdict = Verdict.MAY_NOT_FIT if reason else Verdict.DOES_NOT_FIT
        return SiteVerdict(free.site, verdict, free, age, None, reason, shortfall)
    if reason or unknown is not None:
        return SiteVerdict(free.site, Verdict.MAY_NOT_FIT, free, age, unknown, reason)
    return SiteVerdict(free.site, Verdict.FITS, free, age)


def site_verdicts(
    charge: Mapping, frees: Iterable[SiteFree], now: datetime | None = None
) -> list[SiteVerdict]:
    """Every site's verdict for the request ``charge``, fitting sites first, then by name."""
    needs, machines = needs_of(charge), machines_of(charge)
    counted = not charge.get("uncounted")
    found = [site_verdict(needs, free, now, counted=counted, machines=machines) for free in frees]
    return sorted(found, key=lambda v: (_ORDER[v.verdict], v.site.casefold()))


@dataclass(frozen=True)
class Summary:
    """The request's one verdict: the quota's (which alone may refuse) and the sites'.

    ``verdict`` is "does not fit" only when the quota refuses; otherwise "fits" when the
    chosen site fits (or, with no choice, any site does, or no site is known at all) and
    "may not fit" when not. ``launchable`` is whether Launch is on.
    """

    verdict: Verdict
    launchable: bool
    quota_fits: bool
    sites: list[SiteVerdict]
    chosen: SiteVerdict | None = None

    def headline(self) -> str:
        return headline(self)


def combined(quota_fits: bool, sites: list[SiteVerdict], chosen: str | None = None) -> Summary:
    """One verdict from the quota's (the existing fit check) and the sites' (``site_verdicts``);
    ``chosen`` is the site the person picked, if any."""
    picked = next((v for v in sites if v.site == chosen), None) if chosen else None
    if not quota_fits:
        verdict = Verdict.DOES_NOT_FIT
    elif picked is not None:
        verdict = Verdict.FITS if picked.verdict is Verdict.FITS else Verdict.MAY_NOT_FIT
    elif not sites or any(v.verdict is Verdict.FITS for v in sites):
        verdict = Verdict.FITS
    else:
        verdict = Verdict.MAY_NOT_FIT
    return Summary(verdict, quota_fits, quota_fits, sites, picked)


# --- Words -----------------------------------------------------------------------------------


def verdict_text(verdict: Verdict) -> str:
    return {
        Verdict.FITS: _("fits"),
        Verdict.MAY_NOT_FIT: _("may not fit"),
        Verdict.DOES_NOT_FIT: _("does not fit"),
    }[verdict]


def binding_text(verdict: SiteVerdict) -> str:
    """See ``SiteVerdict.binding_text``."""
    site, finding = verdict.site, verdict.binding
    if verdict.reason == "maintenance":
        lead = _("%(site)s is in maintenance", site=site)
    elif verdict.reason == "problem":
        lead = _("%(site)s could not be read lately", site=site)
    elif verdict.reason == "stale":
        lead = _("the numbers of %(site)s are old", site=site)
    elif verdict.reason == "uncounted":
        lead = _("part of the request could not be counted")
    else:
        lead = ""
    if verdict.shortfall is not None:
        said = shortfall_text(verdict.shortfall, site)
        return _("%(reason)s; %(finding)s", reason=lead, finding=said) if lead else said
    if finding is None:
        return lead
    needs = amount_text(finding.need.key, finding.need.model, finding.need.amount)
    if finding.unknown:
        said = _("needs %(needs)s, %(site)s does not say how many are free", needs=needs, site=site)
    elif finding.free:
        said = _(
            "needs %(needs)s, %(free)s free at %(site)s",
            needs=needs,
            free=free_text(finding.need.key, finding.free),
            site=site,
        )
    else:
        said = _("needs %(needs)s, none free at %(site)s", needs=needs, site=site)
    return _("%(reason)s; %(finding)s", reason=lead, finding=said) if lead else said


def headline(summary: Summary) -> str:
    """The one sentence over the list of sites."""
    if not summary.sites:
        return ""
    fitting = sum(1 for v in summary.sites if v.verdict is Verdict.FITS)
    if not summary.quota_fits:
        return _("The sites do not matter until the request fits your quota.")
    if summary.chosen is not None:
        if summary.chosen.verdict is Verdict.FITS:
            return _("Fits your quota, and %(site)s has room for it.", site=summary.chosen.site)
        return _(
            "Fits your quota, but %(site)s may not have room for it; it may fail there.",
            site=summary.chosen.site,
        )
    if fitting:
        return ngettext(
            "Fits your quota, and %(num)d of %(total)d sites has room for it.",
            "Fits your quota, and %(num)d of %(total)d sites have room for it.",
            fitting,
            total=len(summary.sites),
        )
    if all(v.verdict is Verdict.DOES_NOT_FIT for v in summary.sites):
        # Every site's fresh numbers say no: the launch is held for that (app.capacity.room),
        # so nothing here may promise that it could still be placed.
        return _("Fits your quota, but no known site has room for it now.")
    return _(
        "Fits your quota, but no site is known to have room for it now; it may still be "
        "placed somewhere, or it may fail."
    )


def source_text(source: str) -> str:
    """A source's kind as people read it."""
    words = {
        "fedreg": _("Federation Registry"),
        "cluster-stats": _("cluster statistics"),
    }
    if registry.known(source) and registry.words(source).quotas:
        return str(registry.words(source).quotas)
    return words.get(source, source)
