"""Where one feature lets others plug in, each place declared once, in this module.

An extension point has a name, the signature of what plugs in, and a docstring that says when
it is used and what a plug must not do. Features fill points at start-up
(``POINT.add(app, value)``, from their ``init_*``), and the owner of a point reads what was
plugged in (``POINT.each()`` for every value in the order added, ``POINT.one()`` where at most
one may plug in). Values are kept on the Flask application, so two apps in one process (the
tests) never see each other's plugs.

Nothing here imports a feature: a point's signature names its types as strings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

from flask import Flask, current_app

if TYPE_CHECKING:
    from app.worker import Duty

T = TypeVar("T")


class ExtensionPoint(Generic[T]):
    """One place where features plug in values of type ``T``."""

    def __init__(self, name: str, doc: str, *, single: bool = False) -> None:
        self.name = name
        self.__doc__ = doc
        self.single = single

    def __repr__(self) -> str:
        return f"<extension point {self.name}>"

    def add(self, app: Flask, value: T) -> None:
        """Plug ``value`` in, at start-up."""
        plugged = app.extensions.setdefault(self, [])
        if self.single and plugged:
            raise RuntimeError(f"The extension point {self.name} takes one value, not two.")
        plugged.append(value)

    def each(self, app: Flask | None = None) -> tuple[T, ...]:
        """Every value plugged in, in the order added (none: an empty tuple)."""
        return tuple((app or current_app).extensions.get(self, ()))

    def one(self, app: Flask | None = None) -> T | None:
        """The value plugged into a single point, or None."""
        plugged = self.each(app)
        return plugged[0] if plugged else None


BACKGROUND_DUTIES: ExtensionPoint[Duty] = ExtensionPoint(
    "background duties",
    """Work the worker does in the background, one ``app.worker.Duty`` per feature duty (the
    sync of deployments, the end of leases, the capacity refresh, admission from the line, the
    mail outbox), each with its name, its interval, its time budget per pass and the rows it
    claims. Filled from the features' ``init_*``; run by ``flask worker`` (and the older
    ``flask deployments sync --loop`` and ``flask notifications send --loop``), each duty in a
    thread of its own.

    A duty's pass commits its own work and claims its rows through ``app.claims`` (several
    workers may run it at once, on several hosts). It must not rely on another duty having run
    before it, and should stop taking more rows once ``app.worker.out_of_time()`` says so.""",
)
