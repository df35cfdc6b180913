"""The HTML of one row of My deployments, filled in Python from the values ``list_rows`` found.

Drawn by Jinja, a row was thirty placed values, each escaped, wrapped as markup again and
found through the template's attribute lookup: two hundred Python calls a row, half the page
with its fifty rows. Here a row is a few format strings, each value escaped by one
``str.translate`` (the five characters markupsafe escapes, into the same entities), the words
every row shares translated once per page and placed as a template places the portal's own
words (unescaped; the values inside a sentence escaped). templates/deployments/_rows.html
places the rows, and includes between a row's two pieces the panels features lend it.
"""

from __future__ import annotations

from flask import current_app
from flask_babel import get_translations
from markupsafe import Markup

from app.deployments.access import ACCESS_WORDS, CO_OWNER, MANAGER, VIEWER


def escaped(value: str) -> str:
    """``value`` escaped as markupsafe.escape escapes it (& < > ' " as &amp; &lt; &gt; &#39;
    &#34;), as plain text. Five replacements, each a scan in C that finds nothing in most
    values, cost a row's values a seventh of one ``str.translate`` through a table, which
    looks every character up in a dict."""
    return (
        value.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("'", "&#39;")
        .replace('"', "&#34;")
    )


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


# A row up to its status cell's panels, then from there. The panels' templates are drawn
# between the two; a row without panels is the two joined.
HEAD = (
    '<tr id="deployment-{id}" data-status="{status}">\n'
    '<td class="deployment-name"><a id="row-{id}-open" class="fw-semibold text-break" '
    'href="{url}">{name}</a>{mark}<div class="small text-body-secondary">{template}\n'
    "{uuid}</div></td>\n"
    "{owner}"
    '<td data-label="{w_status}"><div><span class="badge status-badge text-bg-{tone}" '
    'title="{meaning}">{spinner}<span>{label}</span></span>\n'
    "{reason}"
)
TAIL = (
    "</div></td>\n"
    '<td data-label="{w_group_site}"><div><div>{group}</div>'
    '<div class="small text-body-secondary">{site}{region}</div></div></td>\n'
    '<td data-label="{w_created}" class="small"><div class="created">{created}</div></td>\n'
    '<td data-label="{w_resources}" class="small"><div>{resources}</div></td>\n'
    '<td data-label="{w_access}" class="deployment-access"><div>\n'
    "{access}</div></td>\n"
    '<td class="text-md-end deployment-actions">{delete}</td>\n'
    "</tr>\n"
)
UUID = (
    ' · <code class="uuid" title="{uuid}">{short}</code> <button type="button" '
    'id="row-{id}-copy-id" class="btn btn-sm btn-outline-secondary js-only copy-icon" '
    'data-copy-value="{uuid}" aria-label="{w_copy_id}" title="{w_copy_id}"{copied_icon}'
)
OWNER = '<td data-label="{w_owner}"><div>{owner}</div></td>'
SPINNER = '<span class="spinner-border spinner-border-sm" aria-hidden="true"></span>'
REASON = '<div class="small text-danger-emphasis reason-snippet" title="{reason}">{cut}</div>'
LINK = (
    '<div class="d-flex gap-1 align-items-center"><a id="row-{id}-link" '
    'class="btn btn-sm btn-primary text-nowrap" href="{href}" target="_blank" '
    'rel="noopener noreferrer">{open}</a> <button type="button" id="row-{id}-copy-link" '
    'class="btn btn-sm btn-outline-secondary js-only copy-icon" data-copy-value="{href}" '
    'aria-label="{copy}" title="{w_copy_address}"{copied_icon}</div>'
)
COPY = (
    '<div class="small mt-1 d-flex align-items-center gap-1 text-nowrap">'
    '<span class="text-body-secondary">{label}</span> <code class="text-truncate">{text}</code> '
    '<button type="button" id="row-{id}-copy-{number}" '
    'class="btn btn-sm btn-outline-secondary js-only copy-icon" data-copy-value="{text}" '
    'aria-label="{action}" title="{w_copy}"{copied_icon}</div>'
)
NOTHING_YET = '<span class="text-body-secondary small">{words}</span>'
DELETE = (
    '<a id="row-{id}-delete" class="btn btn-sm btn-outline-danger" href="{url}" '
    'aria-label="{label}">{w_delete}</a>'
)
MARK = ' <span class="badge text-bg-info shared-mark">{words}</span>'
COPIED_ICON = (
    ' data-copied="{w_copied}"><svg class="bi" aria-hidden="true"><use href="{sprite}"/>'
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
    words["copied_icon"] = COPIED_ICON.format(w_copied=_("Copied"), sprite=text(sprite))
    shared_as = named(_("Shared with you as %(role)s"), "role")
    words["marks"] = {
        VIEWER: MARK.format(words=shared_as(ACCESS_WORDS[VIEWER])),
        CO_OWNER: MARK.format(words=shared_as(ACCESS_WORDS[CO_OWNER])),
        MANAGER: MARK.format(words=_("In a group you manage")),
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
