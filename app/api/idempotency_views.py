"""The ``@idempotent`` decorator: wraps a POST view with the Idempotency-Key rules of
``idempotency`` (claim first, replay the first answer, release on "try again later")."""

from __future__ import annotations

from functools import wraps

from flask import Response, json, request
from werkzeug.exceptions import HTTPException

from app.api import idempotency
from app.api.auth import caller
from app.api.problems import MEDIA_TYPE, Problem
from app.errors import PortalError

# Problem kinds that ask for the same request again later: the key must stay free for it.
_TRY_LATER = {"launch-pending", "rate-limited"}
# Headers of the first answer that a replay repeats.
_KEPT_HEADERS = ("Location", "Retry-After")


def idempotent(view):
    @wraps(view)
    def wrapped(*args, **kwargs):
        key = request.headers.get(idempotency.HEADER)
        if key is None or request.args.get("dry_run", "").lower() in ("1", "true", "yes"):
            return view(*args, **kwargs)  # a dry run changes nothing: nothing to protect
        user_id = caller().user.id
        print_ = idempotency.fingerprint(request.method, request.path, request.get_data())
        claimed = idempotency.claim(user_id, key, print_)
        if isinstance(claimed, idempotency.Replay):
            return _replayed(claimed)
        record_id = claimed.id
        try:
            response = view(*args, **kwargs)
        except Problem as problem:
            response = problem.response()
        except (PortalError, HTTPException) as error:
            from app.api import problem_for

            response = problem_for(error)
        except BaseException:
            idempotency.release(record_id)
            raise
        body = response.get_json(silent=True) or {}
        idempotency.settle(
            record_id,
            response.status_code,
            body,
            {name: response.headers[name] for name in _KEPT_HEADERS if name in response.headers},
            final=_final(response.status_code, body),
        )
        return response

    return wrapped


def _final(status: int, body: dict) -> bool:
    """Whether an answer is the request's outcome, rather than "try again later"."""
    if status == 429 or status >= 500:
        return False
    return str(body.get("type", "")).rsplit("/", 1)[-1] not in _TRY_LATER


def _replayed(replay: idempotency.Replay) -> Response:
    mimetype = "application/json" if replay.status < 400 else MEDIA_TYPE
    response = Response(json.dumps(replay.body), status=replay.status, mimetype=mimetype)
    response.headers.update(replay.headers)
    response.headers["Idempotent-Replayed"] = "true"
    return response
