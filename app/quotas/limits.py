"""Which limits apply to whom: a user's own, their groups' member defaults, the site default.

For each resource (and each GPU model) the first level that sets it wins: the user's own
limit, then their groups' member defaults, then the site default; nothing set anywhere means
unlimited. When several of the user's groups set the same resource, the most generous wins
(unlimited beats any number): membership of a group is meant to grant, never to restrict.
A group pool's limits are its own row alone and bind the deployments charged to the group.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from flask_babel import gettext as _
from sqlalchemy import and_, bindparam, or_, select

from app.quotas.models import GROUP, LIMIT_KEYS, MEMBER, SITE, USER, QuotaLimit
from app.quotas.usage_reading import read


@dataclass
class Limits:
    """Limits in force: ``values[key]`` is a number or None (unlimited); ``sources`` says
    where each came from ("own limit", "group physics", "site default")."""

    values: dict[str, float | None] = field(default_factory=dict)
    gpu_models: dict[str, float | None] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)

    def get(self, key: str) -> float | None:
        return self.values.get(key)

    @property
    def any_finite(self) -> bool:
        """Whether anything at all is limited."""
        return any(v is not None for v in [*self.values.values(), *self.gpu_models.values()])


def _more_generous(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else max(a, b)


def combine(
    user: Mapping | None,
    groups: Iterable[tuple[str, Mapping]],
    site: Mapping | None,
    own_label: str | None = None,
) -> Limits:
    """The limits in force from the three levels' limit sets (see the module's rule)."""
    result = Limits()
    groups = list(groups)
    # Each source's words, translated once for all the keys it sets.
    labels: dict = {}

    def label(source, words):
        if source not in labels:
            labels[source] = words()
        return labels[source]

    def pick(key_of) -> tuple[bool, float | None, str]:
        own = key_of(user or {})
        if own[0]:
            return True, own[1], own_label or label("own", lambda: _("own limit"))
        found, value, names = False, None, []
        for name, limits in groups:
            present, limit = key_of(limits)
            if present:
                value = limit if not found else _more_generous(value, limit)
                found = True
                names.append(name)
        if found:
            shown = ", ".join(sorted(names))
            return True, value, label(("group", shown), lambda: _("group %(names)s", names=shown))
        present, limit = key_of(site or {})
        # Named only when it applies: the line's pass combines a thousand people's limits.
        return present, limit, label("site", lambda: _("site default")) if present else ""

    for key in LIMIT_KEYS:
        present, value, source = pick(lambda limits, k=key: (k in limits, limits.get(k)))
        result.values[key] = value if present else None
        if present:
            result.sources[key] = source
    models = set()
    for limits in [user or {}, site or {}, *(g for _name, g in groups)]:
        models.update((limits.get("gpu_models") or {}).keys())
    for model in sorted(models):

        def model_of(limits, m=model):
            per_model = limits.get("gpu_models") or {}
            return m in per_model, per_model.get(m)

        present, value, source = pick(model_of)
        if present:
            result.gpu_models[model] = value
            result.sources[f"gpu:{model}"] = source
    return result


def rows_for(keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], dict]:
    """The limit sets stored for ``(scope, subject)`` keys, by key (missing ones left out)."""
    keys = list(keys)
    if not keys:
        return {}
    # One list of subjects per scope: a list of a thousand (scope, subject) pairs costs the
    # database far more to plan than a few plain lists.
    subjects: dict[str, list[str]] = {}
    for scope, subject in keys:
        subjects.setdefault(scope, []).append(subject)
    scopes = tuple(subjects)
    values = {f"subjects{n}": subjects[scope] for n, scope in enumerate(scopes)}
    rows = read(_limits_statement(scopes), values)
    return {(scope, subject): limits or {} for scope, subject, limits in rows}


@lru_cache(maxsize=64)
def _limits_statement(scopes: tuple[str, ...]):
    """The query of ``rows_for`` for these scopes, their subjects left as parameters
    ("subjects0", "subjects1"...): built once, as every page that shows a quota asks it."""
    return select(QuotaLimit.scope, QuotaLimit.subject, QuotaLimit.limits).where(
        or_(
            *(
                and_(
                    QuotaLimit.scope == scope,
                    QuotaLimit.subject.in_(bindparam(f"subjects{n}", expanding=True)),
                )
                for n, scope in enumerate(scopes)
            )
        )
    )


def own_keys(user) -> list[tuple[str, str]]:
    """The keys of the limit sets ``limits_for`` combines for ``user``: a caller reading
    other sets too asks ``rows_for`` once for all, and hands the rows on as ``stored``."""
    groups = [str(g) for g in (user.groups or [])]
    return [(USER, str(user.id)), (SITE, ""), *((MEMBER, g) for g in groups)]


def limits_for(user, stored: Mapping[tuple[str, str], dict] | None = None) -> Limits:
    """The limits in force for ``user``'s own usage; ``stored``: the rows of ``own_keys``
    already read (``rows_for``), else they are read here."""
    if stored is None:
        stored = rows_for(own_keys(user))
    groups = [str(g) for g in (user.groups or [])]
    return combine(
        stored.get((USER, str(user.id))),
        [(g, stored[(MEMBER, g)]) for g in groups if (MEMBER, g) in stored],
        stored.get((SITE, "")),
    )


def pool_limits(group_name: str, stored: Mapping[tuple[str, str], dict] | None = None) -> Limits:
    """The limits of ``group_name``'s own pool (unset means unlimited); ``stored``: the rows
    already read, holding the pool's key when it has a row, else it is read here."""
    key = (GROUP, group_name)
    if stored is None:
        stored = rows_for([key])
    limits = stored.get(key, {})
    return combine(limits, [], None, own_label=_("pool of group %(group)s", group=group_name))


def limits_for_many(users) -> dict[int, Limits]:
    """``limits_for`` of each of ``users`` (by id), read in one query. People with no limit of
    their own share one result per set of groups (the line's pass asks this of a thousand
    people, most of whom differ only in who they are); treat the results as read-only."""
    users = list(users)
    groups = sorted({str(g) for user in users for g in (user.groups or [])})
    keys = [(SITE, ""), *((USER, str(u.id)) for u in users), *((MEMBER, g) for g in groups)]
    stored = rows_for(keys)
    site = stored.get((SITE, ""))
    shared: dict[tuple[str, ...], Limits] = {}
    found = {}
    for user in users:
        member_of = tuple(sorted({str(g) for g in user.groups or [] if (MEMBER, str(g)) in stored}))
        own = stored.get((USER, str(user.id)))
        if own is None and member_of in shared:
            found[user.id] = shared[member_of]
            continue
        limits = combine(own, [(g, stored[(MEMBER, g)]) for g in member_of], site)
        if own is None:
            shared[member_of] = limits
        found[user.id] = limits
    return found
