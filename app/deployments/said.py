"""What a backend says of a deployment, made fit to keep and to show: the one owner of that rule.

Whatever backend it is, its reasons, outputs and logs pass through here before the portal keeps
or shows them: the credentials it was called with are masked (``base.masked``, with
``Backend.credentials``), and each text is bounded. A bounded copy is what is stored, and it
says that it was cut, so that one answer of several megabytes cannot make every view of My
deployments as large (the list renders each row's outputs).

A cut output is kept as ``{CUT: <characters given>, "text": <the first OUTPUT_MAX>}``: data,
worded when a page shows it (``cut_of``). A reason is cut with an ellipsis; a log keeps its end,
where what went wrong is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from app.backends.base import RemoteState, masked

# Characters of one output kept: more than any address, password, key or token needs.
OUTPUT_MAX = 4096
# Characters of all of a deployment's outputs kept: what one row of My deployments may carry.
OUTPUTS_MAX = 16384
# Characters of a backend's reason kept (the page shows it whole under "What it said").
REASON_MAX = 2000
# Characters of a log shown: its last ones.
LOG_MAX = 262144
# The key marking a cut output (no backend output is an object with this key).
CUT = "portal_cut"


def state(said: RemoteState, credentials=()) -> RemoteState:
    """``said`` with its reason and outputs masked with ``credentials`` and bounded."""
    reason_text = None if said.reason is None else reason(said.reason, credentials)
    return replace(said, reason=reason_text, outputs=outputs(said.outputs, credentials))


def reason(text: str, credentials=()) -> str:
    """A backend's reason, masked and cut to REASON_MAX characters (ending "…" when cut)."""
    text = masked(str(text), credentials)
    return text if len(text) <= REASON_MAX else text[: REASON_MAX - 1].rstrip() + "…"


def outputs(values: dict[str, Any] | None, credentials=()) -> dict[str, Any]:
    """Outputs masked and bounded: each to OUTPUT_MAX characters, all together to OUTPUTS_MAX
    (those past it kept cut to nothing). An output already cut is kept as it is."""
    kept, room = {}, OUTPUTS_MAX
    for name, value in (values or {}).items():
        if cut_of(value) is not None:
            kept[name] = value
            room -= len(value["text"])
            continue
        value = _masked_value(value, credentials)
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        limit = max(0, min(OUTPUT_MAX, room))
        if len(text) <= limit:
            kept[name], room = value, room - len(text)
        else:
            kept[name], room = {CUT: len(text), "text": text[:limit]}, room - limit
    return kept


def _masked_value(value: Any, credentials) -> Any:
    """``value`` with credentials masked in every string it holds (its structure kept)."""
    if not credentials:
        return value
    if isinstance(value, str):
        return masked(value, credentials)
    if isinstance(value, list):
        return [_masked_value(item, credentials) for item in value]
    if isinstance(value, dict):
        return {key: _masked_value(item, credentials) for key, item in value.items()}
    return value


def cut_of(value: Any) -> int | None:
    """How many characters a cut output had (None: ``value`` was kept whole)."""
    if isinstance(value, dict) and set(value) == {CUT, "text"} and isinstance(value[CUT], int):
        return value[CUT]
    return None


@dataclass(frozen=True)
class Log:
    """A log as shown: its ``text`` (the last LOG_MAX characters), and ``length``, how many
    characters the backend gave when more than were kept (else None)."""

    text: str
    length: int | None = None


def log(text: str | None, credentials=()) -> Log:
    """A backend's log, masked, keeping its last LOG_MAX characters."""
    text = masked(text or "", credentials)
    if len(text) <= LOG_MAX:
        return Log(text)
    return Log(text[-LOG_MAX:], len(text))
