"""Caches that belong to one app: kept in ``app.extensions``, so that two apps in one process
(several workers' tests, a CLI beside a server) never see each other's entries."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from cachetools import LRUCache
from flask import current_app, g, has_app_context

from app.extension_points import StateKey

_KEY = StateKey("caches")
_REMEMBERED = "portal_remembered"
_lock = threading.Lock()


def app_cache(name: str, maxsize: int) -> LRUCache:
    """The current app's cache called ``name`` (created on first use, least recently used
    entries dropped beyond ``maxsize``)."""
    caches = current_app.extensions.setdefault(_KEY, {})
    with _lock:
        if name not in caches:
            caches[name] = LRUCache(maxsize=maxsize)
        return caches[name]


def cached(name: str, maxsize: int, key: Hashable, compute: Callable[[], Any]) -> Any:
    """``compute()``'s value under ``key`` in the current app's cache ``name``; computed once
    while it stays in the cache. Only for values that never change for a given key."""
    cache = app_cache(name, maxsize)
    with _lock:
        if key in cache:
            return cache[key]
    value = compute()
    with _lock:
        cache[key] = value
    return value


def cached_many(
    name: str, maxsize: int, keys: Iterable[Hashable], compute: Callable[[set], dict]
) -> dict:
    """The values of ``keys`` in the current app's cache ``name``; those not in it yet are
    computed together by ``compute(missing_keys)`` (a mapping; a key it leaves out is kept as
    None). Only for values that never change for a given key."""
    cache = app_cache(name, maxsize)
    found, missing = {}, set()
    with _lock:
        for key in keys:
            if key in cache:
                found[key] = cache[key]
            else:
                missing.add(key)
    if missing:
        computed = compute(missing)
        with _lock:
            for key in missing:
                found[key] = cache[key] = computed.get(key)
    return found


@contextmanager
def remembering() -> Iterator[None]:
    """While it lasts, a question asked again through ``remembered`` gets its first answer.

    For a reading that asks the same check twice, such as the launch box, which assesses the
    quotas and the line for itself and again for "could it wait". Only around work that
    writes nothing: an answer kept past a write could be out of date. Nothing is kept beyond
    the block, nor shared with another request.
    """
    if g.get(_REMEMBERED) is not None:  # an outer block already remembers
        yield
        return
    setattr(g, _REMEMBERED, {})
    try:
        yield
    finally:
        g.pop(_REMEMBERED, None)


def remembered(question: str, key: Hashable, compute: Callable[[], Any]) -> Any:
    """``compute()``, or inside ``remembering`` the answer it gave the first time ``question``
    was asked with ``key``."""
    answers = g.get(_REMEMBERED) if has_app_context() else None
    if answers is None:
        return compute()
    if (question, key) not in answers:
        answers[question, key] = compute()
    return answers[question, key]


def value_key(value: Any) -> str:
    """A key for a value made of JSON's types (a charge, a set of parameters): equal values
    give equal keys, whatever the order of their mappings."""
    return json.dumps(value, sort_keys=True, default=repr)
