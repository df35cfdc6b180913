"""How a waiting request reads: its place and line, when what it waits for is due back, until
when it may wait; on My deployments, on its page and in the API."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from flask_babel import gettext as _

from app import formatting
from app.formatting import machine_time
from app.lines import places
from app.lines.wording import ordinal


@dataclass
class Place:
    """A waiting request's place: ``position`` in ``line`` (its key), the line in words, and
    the times: ``due_back`` (None: no estimate) and ``expires_at``."""

    position: int
    line: str
    line_words: str
    waiting_since: datetime
    expires_at: datetime
    due_back: datetime | None
    # A "free at a site" line: the estimate is only when the portal's own holders end.
    at_sites: bool = False

    @property
    def sentence(self) -> str:
        """``2nd for A100 GPUs in group gpu-users; what it needs is due back by about 14:00``."""
        place = _(
            "%(place)s in line for %(line)s",
            place=ordinal(self.position),
            line=self.line_words,
        )
        if self.at_sites:
            if self.due_back is None:
                return _("%(place)s; the sites do not say when room comes back.", place=place)
            return _(
                "%(place)s; the portal's own deployments holding them end by about "
                "%(when)s, which may make room (the sites' other users are not known).",
                place=place,
                when=formatting.when(self.due_back),
            )
        if self.due_back is None:
            return _(
                "%(place)s; what holds them has no end set, so no estimate can be given.",
                place=place,
            )
        return _(
            "%(place)s; what it needs is due back by about %(when)s.",
            place=place,
            when=formatting.when(self.due_back),
        )

    @property
    def until(self) -> str:
        return _("It waits until %(when)s at the longest.", when=formatting.when(self.expires_at))

    def data(self) -> dict:
        """The place for the API."""
        return {
            "position": self.position,
            "line": self.line,
            "line_words": self.line_words,
            "waiting_since": machine_time(self.waiting_since),
            "expires_at": machine_time(self.expires_at),
            "due_back_at": machine_time(self.due_back) if self.due_back else None,
        }


def place_of(entry) -> Place:
    position = places.position(entry)
    line = places.Line.from_key(entry.line)
    return Place(
        position=position,
        line=entry.line,
        line_words=line.words(),
        waiting_since=entry.enqueued_at,
        expires_at=entry.expires_at,
        due_back=places.due_back(entry, position),
        at_sites=line.scope == places.SITE,
    )


def load(deployments) -> dict[int, Place]:
    """The place of each waiting one of ``deployments``."""
    waiting = [d.id for d in deployments if d.status == "WAITING"]
    return {key: place_of(entry) for key, entry in places.waiting_of(waiting).items()}
