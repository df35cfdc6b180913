"""Amounts of resources in words, for the verdicts' sentences: "2 A100 GPUs", "4 cores",
"8 GB of memory", "1 machine", and what no node of a cluster has room for."""

from __future__ import annotations

from collections.abc import Callable

from flask_babel import gettext as _
from flask_babel import ngettext

from app.capacity.placement import Shortfall
from app.formatting import number, plural_count, size


def amount_text(key: str, model: str | None, amount: float) -> str:
    """``2 A100 GPUs``, ``4 cores``, ``8 GB of memory``, ``1 machine``: ``amount`` of the
    resource ``key`` ("gpus" of ``model``, "cores", "memory", "disk" in bytes, "instances")."""
    if key in ("memory", "disk"):
        shown = size(amount)
        return (
            _("%(size)s of memory", size=shown)
            if key == "memory"
            else _("%(size)s of disk", size=shown)
        )
    shown = int(amount) if float(amount).is_integer() else amount
    text = number(shown)
    count = plural_count(shown)
    if key == "gpus" and model:
        return ngettext(
            "%(amount)s %(model)s GPU",
            "%(amount)s %(model)s GPUs",
            count,
            amount=text,
            model=model,
        )
    words: dict[str, Callable[[], str]] = {
        "gpus": lambda: ngettext("%(amount)s GPU", "%(amount)s GPUs", count, amount=text),
        "cores": lambda: ngettext("%(amount)s core", "%(amount)s cores", count, amount=text),
        "instances": lambda: ngettext(
            "%(amount)s machine", "%(amount)s machines", count, amount=text
        ),
    }
    return words[key]()


def free_text(key: str, amount: float) -> str:
    """A free amount as it follows "needs ...": ``1``, ``8 GB``."""
    if key in ("memory", "disk"):
        return size(amount)
    return number(int(amount) if float(amount).is_integer() else amount)


def shortfall_text(shortfall: Shortfall, site: str) -> str:
    """ "needs 2 A100 GPUs on one node; the most free on one node at RECAS-BARI is 1"."""
    if shortfall.lacking is not None:
        key, model, amount, most = shortfall.lacking
        needs = amount_text(key, model, amount)
        if not most:
            return _(
                "needs %(needs)s on one node; no node at %(site)s has any free",
                needs=needs,
                site=site,
            )
        return _(
            "needs %(needs)s on one node; the most free on one node at %(site)s is %(free)s",
            needs=needs,
            free=free_text(key, most),
            site=site,
        )
    if shortfall.count > 1:
        return ngettext(
            "needs a node with room for each of its %(num)d machine; %(site)s has room for "
            "%(placed)d of them",
            "needs a node with room for each of its %(num)d machines; %(site)s has room for "
            "%(placed)d of them",
            shortfall.count,
            site=site,
            placed=shortfall.placed,
        )
    needs = ", ".join(
        amount_text(key, model, amount) for key, model, amount in shortfall.machine.amounts()
    )
    return _(
        "needs %(needs)s on one node; no node at %(site)s has all of it free",
        needs=needs,
        site=site,
    )
