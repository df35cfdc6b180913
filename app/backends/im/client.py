"""One client for the Infrastructure Manager's REST API (IM 2.0).

Every method returns IM's decoded answer or raises one of the errors of ``app.backends.base``;
status codes become errors in ``_raise_for_status`` alone. IM learns who is calling from its
"auth lines" in the ``Authorization`` header (see ``auth_lines``): they hold passwords, tokens
and site credentials, so neither the header nor any part of it is ever logged, shown in an
error, or written into this object's ``repr``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

import requests
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from app import remote
from app.backends import transport
from app.backends.base import (
    BackendError,
    Busy,
    NotAllowed,
    NotFound,
    Refused,
    Unavailable,
    Unreachable,
    masked,
)
from app.backends.im.answers import for_people

log = logging.getLogger(__name__)

Timeout = transport.Timeout
# IM's words for what the transport can do wrong (its errors are the portal's own classes).
ERRORS = transport.TransportErrors(
    unreachable=Unreachable,
    unanswered=Unavailable,
    unanswered_message=_l(
        "The Infrastructure Manager did not answer in time, or the connection dropped."
    ),
    not_called=BackendError,
    not_called_message=_l("The Infrastructure Manager could not be called."),
    unreadable=Unavailable,
    unreadable_message=_l("The Infrastructure Manager's answer could not be read."),
    service=_l("The Infrastructure Manager"),
)

# IM reads its auth lines from one header, separated by these two characters (a backslash and
# an "n"), not by a newline.
LINE_SEPARATOR = "\\n"
# An error message shown to people is cut here: IM's may carry a 12 KB traceback.
MAX_MESSAGE = 500
# Infrastructure ids are UUIDs; anything else would change the path it is put into.
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
# Lines of a Python traceback inside IM's messages (frames and the code under them).
_FRAME = re.compile(r'^\s*(File "?/|File /|Traceback \(most recent call last\))')
_EXCEPTION_LINE = re.compile(r"^\s*[A-Za-z_.]*(Error|Exception)\b.*?:\s*\S")


def _value(text: str, what: str) -> str:
    # A value holding the separators would end its line early and start another of the
    # caller's choosing.
    if not text or any(bad in text for bad in (";", "\n", "\r", LINE_SEPARATOR)):
        raise ValueError(f"The {what} for the Infrastructure Manager is empty or malformed.")
    return text


def auth_lines(
    clouds: Iterable[str],
    *,
    token: str | None = None,
    username: str | None = None,
    password: str | None = None,
) -> list[str]:
    """IM's auth lines: one ``InfrastructureManager`` line, with the caller's OIDC access
    ``token`` or else the portal's ``username`` and ``password``, then the ``clouds`` lines as
    they are (IM_CLOUDS). Raises ValueError when neither identity is given or a value could
    break out of its line."""
    if token:
        identity = f"token = {_value(token, 'access token')}"
    elif username and password:
        identity = (
            f"username = {_value(username, 'user name')}; password = {_value(password, 'password')}"
        )
    else:
        raise ValueError(
            "The Infrastructure Manager needs an access token, or IM_USERNAME and IM_PASSWORD."
        )
    lines = [f"id = im; type = InfrastructureManager; {identity}"]
    for line in clouds:
        if "\n" in line or "\r" in line or LINE_SEPARATOR in line or "type" not in line:
            raise ValueError("Each IM_CLOUDS entry must be one auth line with a type.")
        lines.append(line.strip())
    if len(lines) < 2:
        raise ValueError("IM_CLOUDS names no cloud: the Infrastructure Manager needs at least one.")
    return lines


def cloud_id_of(line: str) -> str | None:
    """The ``id`` of an auth line, or None."""
    for pair in line.split(";"):
        key, _sep, value = pair.partition("=")
        if key.strip() == "id":
            return value.strip()
    return None


def secrets_of(lines: Iterable[str]) -> list[str]:
    """Every value of ``lines`` that is not an id, type or host: what must never be shown."""
    found = []
    for line in lines:
        for pair in line.split(";"):
            key, _sep, value = pair.partition("=")
            if value.strip() and key.strip() not in ("id", "type", "host"):
                found.append(value.strip())
    return [value for value in found if len(value) >= 4]


def trimmed(message: str, secrets: Iterable[str] = ()) -> str:
    """IM's error ``message`` made fit to show: traceback frames dropped, the first line
    kept with the exception line that ends the story, cut to MAX_MESSAGE characters, and
    ``secrets`` masked."""
    message = masked(message, secrets)
    lines, skip_next = [], False
    for line in message.replace("\\n", "\n").splitlines():
        if _FRAME.match(line):
            skip_next = line.lstrip().startswith("File")
            continue
        if skip_next:
            skip_next = False
            continue
        if line.strip():
            lines.append(" ".join(line.split()))
    if not lines:
        return ""
    text = lines[0]
    last = next((line for line in reversed(lines[1:]) if _EXCEPTION_LINE.match(line)), None)
    if last is None and len(lines) > 1 and text.endswith(":"):
        last = lines[-1]
    if last and last not in text:
        text = f"{text} {last}"
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1].rstrip() + "…"


class ImClient:
    """Talks to one IM server at ``base_url`` with one set of auth ``lines``.

    ``timeout`` is seconds, or a (connect, read) pair (IM_TIMEOUT). ``session`` lets tests
    mount a transport. Not shared between threads: make one per thread (``copy``).
    """

    def __init__(
        self,
        base_url: str,
        lines: list[str],
        timeout: Timeout = (5, 30),
        session: requests.Session | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.timeout = transport.timeout_pair(timeout)
        self.session = session or remote.session()
        self._header = LINE_SEPARATOR.join(lines)
        self._secrets = secrets_of(lines)

    @property
    def credentials(self) -> tuple[str, ...]:
        """The values of its auth lines that must never be shown (``secrets_of``)."""
        return tuple(self._secrets)

    def __repr__(self) -> str:
        return f"<ImClient {self.base_url}>"

    def copy(self) -> ImClient:
        """The same client over a session of its own (for another thread)."""
        clone = ImClient(self.base_url, [], self.timeout)
        clone._header, clone._secrets = self._header, self._secrets
        return clone

    def cloud_ids(self) -> list[str]:
        """The ids of the cloud lines this client sends, in order."""
        lines = self._header.split(LINE_SEPARATOR)[1:]
        return [cloud for cloud in (cloud_id_of(line) for line in lines) if cloud]

    def for_cloud(self, cloud_id: str) -> ImClient:
        """The same client sending IM only the cloud line whose ``id`` is ``cloud_id`` (with
        the InfrastructureManager line): IM then deploys there. Raises ValueError when no
        cloud line has that id."""
        lines = self._header.split(LINE_SEPARATOR)
        chosen = [line for line in lines[1:] if cloud_id_of(line) == cloud_id]
        if not chosen:
            raise ValueError(cloud_id)
        clone = self.copy()
        clone._header = LINE_SEPARATOR.join([lines[0], *chosen])
        return clone

    # --- infrastructures ------------------------------------------------------------------

    def create(self, tosca: str) -> str:
        """Submit ``tosca`` (the template, inputs written in) and return the new
        infrastructure's id at once (IM goes on creating it). Raises Refused with IM's reason."""
        response = self._request(
            "POST",
            "/infrastructures",
            params={"async": "1"},
            data=tosca.encode("utf-8"),
            content_type="text/yaml",
        )
        infid = response.headers.get("InfID") or ""
        if not infid:
            uri = self._decode(response).get("uri", "")
            infid = uri.rstrip("/").rsplit("/", 1)[-1] if isinstance(uri, str) else ""
        if not _ID.match(infid):
            raise Unavailable(_("The Infrastructure Manager answered a create without an id."))
        return infid

    def list_ids(self, pattern: str | None = None) -> list[str]:
        """The ids of the caller's infrastructures; ``pattern`` is a regular expression IM may
        match against each template (IM 2.0.0's REST service ignores it: filter again)."""
        params = {"filter": pattern} if pattern else None
        answer = self._json("GET", "/infrastructures", params=params)
        ids = []
        for item in answer.get("uri-list") or []:
            uri = item.get("uri", "") if isinstance(item, dict) else ""
            infid = uri.rstrip("/").rsplit("/", 1)[-1]
            if _ID.match(infid):
                ids.append(infid)
        return ids

    def state(self, infid: str) -> dict:
        """``{"state": ..., "vm_states": {...}}``. Raises NotFound when IM does not know it."""
        return self._json("GET", f"/infrastructures/{_segment(infid)}/state").get("state") or {}

    def outputs(self, infid: str) -> dict:
        return self._json("GET", f"/infrastructures/{_segment(infid)}/outputs").get("outputs") or {}

    def machines(self, infid: str, most: int) -> list[list[dict]]:
        """The RADL (IM's JSON form) of the infrastructure's first ``most`` machines."""
        uris = self._json("GET", f"/infrastructures/{_segment(infid)}").get("uri-list") or []
        found = []
        for item in uris[:most]:
            uri = item.get("uri", "") if isinstance(item, dict) else ""
            vmid = uri.rstrip("/").rsplit("/", 1)[-1]
            if _ID.match(vmid):
                path = f"/infrastructures/{_segment(infid)}/vms/{_segment(vmid)}"
                radl = self._json("GET", path).get("radl")
                radl = radl if isinstance(radl, list) else []
                found.append([item for item in radl if isinstance(item, dict)])
        return found

    def contmsg(self, infid: str) -> str:
        """The contextualisation log, as text."""
        return str(
            self._json("GET", f"/infrastructures/{_segment(infid)}/contmsg").get("contmsg") or ""
        )

    def tosca(self, infid: str) -> str:
        """The template IM keeps for the infrastructure (re-serialised by IM)."""
        return str(
            self._json("GET", f"/infrastructures/{_segment(infid)}/tosca").get("tosca") or ""
        )

    def delete(self, infid: str, *, force: bool = False, wait: bool = True) -> None:
        """Ask IM to destroy the infrastructure: by default IM answers once it is done;
        ``wait=False`` answers at once and IM goes on destroying it."""
        params = {} if wait else {"async": "1"}
        if force:
            params["force"] = "1"
        self._request("DELETE", f"/infrastructures/{_segment(infid)}", params=params or None)

    def quotas(self, cloud_id: str) -> dict:
        """``{"cores": {"used", "limit"}, "ram": ..., ...}`` of the cloud line ``cloud_id``."""
        return self._json("GET", f"/clouds/{_segment(cloud_id)}/quotas").get("quotas") or {}

    def version(self) -> str:
        return self._request("GET", "/version", accept="text/plain").text.strip()

    # --- one door for every call ---------------------------------------------------------

    def _json(self, method: str, path: str, **kwargs) -> dict:
        return self._decode(self._request(method, path, **kwargs))

    def _decode(self, response: requests.Response) -> dict:
        return transport.decoded(response, ERRORS)

    def _request(
        self,
        method: str,
        path: str,
        *,
        accept: str = "application/json",
        content_type: str | None = None,
        **kwargs: Any,
    ) -> requests.Response:
        headers = {"Accept": accept, "Authorization": self._header}
        if content_type:
            headers["Content-Type"] = content_type
        # The auth lines go only to IM_URL: redirects are not followed (``transport.sent``).
        response = transport.sent(
            self.session,
            method,
            self.base_url + path,
            errors=ERRORS,
            headers=headers,
            timeout=self.timeout,
            **kwargs,
        )
        self._raise_for_status(response)
        return response

    def _raise_for_status(self, response: requests.Response) -> None:
        """The one place where IM's status codes become the portal's errors."""
        status = response.status_code
        if 200 <= status < 300:
            return
        said = self._message(response)
        if said:
            # IM's own words stay with the operators (and admins, as ``detail``); people get
            # a sentence. A 404 is an everyday answer once an infrastructure is deleted.
            level = logging.INFO if status == 404 else logging.WARNING
            log.log(level, "The Infrastructure Manager answered %s: %s", status, said)
        message = for_people(said) if said else None
        error: BackendError
        if status == 400:
            error = Refused(message, status_code=status)
        elif status in (401, 403):
            error = NotAllowed(message, status_code=status)
        elif status == 404:
            error = NotFound(message, status_code=status)
        elif status == 409:
            error = Busy(message, status_code=status)
        elif status >= 500:
            error = Unavailable(status_code=status)
        elif 300 <= status < 400:
            error = BackendError(
                _("The Infrastructure Manager sent the call elsewhere; check IM_URL."),
                status_code=status,
            )
        else:
            error = BackendError(message, status_code=status)
        error.detail = said or None
        raise error

    def _message(self, response: requests.Response) -> str:
        try:
            answer = response.json()
            text = answer.get("message", "") if isinstance(answer, dict) else ""
        except ValueError:
            text = response.text if "html" not in response.headers.get("Content-Type", "") else ""
        return trimmed(str(text or ""), self._secrets)

    def close(self) -> None:
        self.session.close()


def _segment(value: str) -> str:
    if not _ID.match(value or ""):
        raise NotFound()
    return quote(value, safe="")
