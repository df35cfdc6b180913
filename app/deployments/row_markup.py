"""The HTML of one row of My deployments, filled in Python from the values ``list_rows`` found.

Drawn by Jinja, a row was thirty placed values, each escaped, wrapped as markup again and
found through the template's attribute lookup: two hundred Python calls a row, half the page
with its fifty rows. Here a row is a few f-strings, each value escaped as markupsafe escapes
it (``escaped``: the five characters, into the same entities), the words
every row shares translated once per page and placed as a template places the portal's own
words (unescaped; the values inside a sentence escaped). templates/deployments/_rows.html
places the rows, and includes between a row's two pieces the panels features lend it.
"""

from __future__ import annotations

from flask import current_app
from flask_babel import get_translations
from markupsafe import Markup, escape

from app.deployments.access import ACCESS_WORDS, CO_OWNER, MANAGER, VIEWER


# ``escaped(value)``: ``value`` (a ``str``) escaped as markupsafe.escape escapes it (& < > ' "
# as &amp; &lt; &gt; &#39; &#34;), as plain text: markupsafe's own C function, without the
# ``Markup`` that ``escape`` wraps around it. A row escapes a dozen values, and five
# ``str.replace`` through a Python function cost each three times as much.
try:
    from markupsafe import _escape_inner as escaped
except ImportError:  # a markupsafe without it: the public way, unwrapped

    def escaped(value: str) -> str:
        return str(escape(value))


def text(value) -> str:
    """``value`` as Jinja places it in an HTML template: markup as it is, the rest as text,
    escaped (None reads "None", as Jinja writes it)."""
    if hasattr(value, "__html__"):
        return value.__html__()
    return escaped(str(value))


def named(sentence: str, key: str):
    """``sentence`` (the portal's words, as a template's ``_()`` gives them, with one
    ``%(key)s``) filled with a value at a time, escaped."""

    def fill(value) -> str:
        return sentence % {key: escaped(str(value))}

    return fill


# A row's pieces, each an f-string in a function: ``str.format`` parsed a piece's text again
# for every row and placed each value through a lookup by name, ten times the time of an
# f-string, which Python compiles into the placing. ``w`` holds the words and pieces every row
# of a page shares (``page_words``); every other value comes escaped (or is markup).


def head(
    w, *, id, status, url, name, mark, template, uuid, owner, tone, meaning, spinner, label, reason
) -> str:
    """A row up to its status cell's panels (``tail`` goes on from there; the panels'
    templates are drawn between the two, and a row without panels is the two joined)."""
    return (
        f'<tr id="deployment-{id}" data-status="{status}">\n'
        f'<td class="deployment-name"><a id="row-{id}-open" class="fw-semibold text-break" '
        f'href="{url}">{name}</a>{mark}<div class="small text-body-secondary">{template}\n'
        f"{uuid}</div></td>\n"
        f"{owner}"
        f'<td data-label="{w["w_status"]}"><div><span class="badge status-badge '
        f'text-bg-{tone}" title="{meaning}">{spinner}<span>{label}</span></span>\n'
        f"{reason}"
    )


def tail(w, *, group, site, region, created, resources, access, delete) -> str:
    return (
        "</div></td>\n"
        f'<td data-label="{w["w_group_site"]}"><div><div>{group}</div>'
        f'<div class="small text-body-secondary">{site}{region}</div></div></td>\n'
        f'<td data-label="{w["w_created"]}" class="small"><div class="created">{created}</div>'
        "</td>\n"
        f'<td data-label="{w["w_resources"]}" class="small"><div>{resources}</div></td>\n'
        f'<td data-label="{w["w_access"]}" class="deployment-access"><div>\n'
        f"{access}</div></td>\n"
        f'<td class="text-md-end deployment-actions">{delete}</td>\n'
        "</tr>\n"
    )


def uuid_part(w, id, uuid, short) -> str:
    return (
        f' · <code class="uuid" title="{uuid}">{short}</code> <button type="button" '
        f'id="row-{id}-copy-id" class="btn btn-sm btn-outline-secondary js-only copy-icon" '
        f'data-copy-value="{uuid}" aria-label="{w["w_copy_id"]}" title="{w["w_copy_id"]}"'
        f"{w['copied_icon']}"
    )


def owner_cell(w, owner) -> str:
    return f'<td data-label="{w["w_owner"]}"><div>{owner}</div></td>'


SPINNER = '<span class="spinner-border spinner-border-sm" aria-hidden="true"></span>'


def reason_part(reason, cut) -> str:
    return f'<div class="small text-danger-emphasis reason-snippet" title="{reason}">{cut}</div>'


def link_part(w, id, href, open, copy) -> str:
    return (
        f'<div class="d-flex gap-1 align-items-center"><a id="row-{id}-link" '
        f'class="btn btn-sm btn-primary text-nowrap" href="{href}" target="_blank" '
        f'rel="noopener noreferrer">{open}</a> <button type="button" id="row-{id}-copy-link" '
        f'class="btn btn-sm btn-outline-secondary js-only copy-icon" data-copy-value="{href}" '
        f'aria-label="{copy}" title="{w["w_copy_address"]}"{w["copied_icon"]}</div>'
    )


def copy_part(w, id, number, label, text, action) -> str:
    return (
        '<div class="small mt-1 d-flex align-items-center gap-1 text-nowrap">'
        f'<span class="text-body-secondary">{label}</span> '
        f'<code class="text-truncate">{text}</code> '
        f'<button type="button" id="row-{id}-copy-{number}" '
        f'class="btn btn-sm btn-outline-secondary js-only copy-icon" data-copy-value="{text}" '
        f'aria-label="{action}" title="{w["w_copy"]}"{w["copied_icon"]}</div>'
    )


def nothing_yet(words) -> str:
    return f'<span class="text-body-secondary small">{words}</span>'


def delete_part(w, id, url, label) -> str:
    return (
        f'<a id="row-{id}-delete" class="btn btn-sm btn-outline-danger" href="{url}" '
        f'aria-label="{label}">{w["w_delete"]}</a>'
    )


def _mark(words) -> str:
    return f' <span class="badge text-bg-info shared-mark">{words}</span>'


def _copied_icon(w_copied, sprite) -> str:
    return (
        f' data-copied="{w_copied}"><svg class="bi" aria-hidden="true"><use href="{sprite}"/>'
        "</svg></button>"
    )


def translator():
    """``gettext`` for many words of one page: the catalogue of the language being served
    found once (Flask-Babel's ``gettext`` finds it again for each word), each word then
    translated as ``gettext`` translates it without values."""
    return get_translations().ugettext


def page_words() -> dict[str, str]:
    """The words and pieces every row of a page shares, in the reader's language: the
    ``w_*`` placeholders of the formats above, ``copied_icon``, and ``marks`` (the badge of a
    row shared with the viewer, by ``access.marks``'s relation)."""
    _ = translator()
    words = {
        "w_status": _("Status"),
        "w_owner": _("Owner"),
        "w_group_site": _("Group and site"),
        "w_created": _("Created"),
        "w_resources": _("Resources"),
        "w_access": _("Access"),
        "w_copy_id": _("Copy the identifier"),
        "w_copy_address": _("Copy the address"),
        "w_copy": _("Copy"),
        "w_delete": _("Delete"),
        "w_no_group": _("No group"),
        "w_no_site": _("Site not chosen yet"),
        "w_when_ready": _("When ready"),
    }
    # The templates' ``url_for``, which builds each address once per app and mount point.
    url_for = current_app.jinja_env.globals["url_for"]
    sprite = url_for("bootstrap.static", filename="icons/bootstrap-icons.svg") + "#clipboard"
    words["copied_icon"] = _copied_icon(_("Copied"), text(sprite))
    shared_as = named(_("Shared with you as %(role)s"), "role")
    words["marks"] = {
        VIEWER: _mark(shared_as(ACCESS_WORDS[VIEWER])),
        CO_OWNER: _mark(shared_as(ACCESS_WORDS[CO_OWNER])),
        MANAGER: _mark(_("In a group you manage")),
    }
    return words


def joined(pieces: list) -> list:
    """``pieces`` (a row's markup, or a panel's (template, value) to include there) with the
    markup next to each other joined: a page without panels is one piece."""
    found, run = [], []
    for piece in pieces:
        if isinstance(piece, str):
            run.append(piece)
            continue
        if run:
            found.append(Markup("".join(run)))  # noqa: S704 (escaped piece by piece above)
            run = []
        found.append(piece)
    if run:
        found.append(Markup("".join(run)))  # noqa: S704 (escaped piece by piece above)
    return found
