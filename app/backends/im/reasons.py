"""Why an infrastructure failed, in a sentence for people, read from IM's contextualisation log.

IM's log (``/contmsg``) is long and written for operators; the deployment page keeps it whole
for admins. ``reason`` finds the first failure it recognises and says it plainly; anything
else gets a general sentence rather than a line of the log.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from flask_babel import gettext as _

# A task name is shown to people: cut there.
MAX_TASK = 120


def _task(match: re.Match) -> str:
    name = " ".join(match.group("task").split())
    name = name if len(name) <= MAX_TASK else name[: MAX_TASK - 1] + "…"
    return _("The configuration step “%(task)s” failed.", task=name)


# (pattern, sentence): the first pattern found in the log gives the reason. Order matters:
# IM logs a consequence after its cause ("No master VM found" after the reason none was).
_RULES: list[tuple[re.Pattern, Callable[[re.Match], str]]] = [
    (
        re.compile(r"No correct Master VM found|Check if there a linux VM with Public IP", re.I),
        lambda m: _(
            "No machine with a public address could be reached to configure it: the "
            "deployment needs at least one Linux machine with a public IP address."
        ),
    ),
    (
        re.compile(r"Timeout waiting the VM to get a public IP", re.I),
        lambda m: _("The machines did not receive a public IP address in time."),
    ),
    (
        re.compile(
            r"(SSH active|Error connecting with SSH|SSH[^\n]{0,40}time[d ]?out|"
            r"timed out[^\n]{0,40}SSH|Authentication failed)",
            re.I,
        ),
        lambda m: _("The machines could not be reached over SSH to configure them."),
    ),
    (
        re.compile(r"TASK \[(?P<task>[^\]\n]+)\][^\n]*\n(?:[^\n]*\n){0,6}?[^\n]*fatal:", re.I),
        _task,
    ),
    (
        re.compile(r"Error (?:downloading|installing)[^\n]*(?:ansible|role|galaxy)", re.I),
        lambda m: _("The software needed to configure the machines could not be installed."),
    ),
    (
        re.compile(r"Error launching the VMs|Error launching the VM|Error creating the VM", re.I),
        lambda m: _("The cloud site could not create the machines."),
    ),
    (
        re.compile(r"Max contextualization time|Contextualization process timeout", re.I),
        lambda m: _("Configuring the machines took longer than allowed."),
    ),
]


def reason(log: str) -> str:
    """A short sentence for people saying why the infrastructure whose contextualisation
    ``log`` this is did not become ready."""
    for pattern, sentence in _RULES:
        match = pattern.search(log or "")
        if match:
            return sentence(match)
    return _(
        "The machines were created, but configuring them failed. The deployment's log has "
        "the details."
    )
