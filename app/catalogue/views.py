"""The catalogue as researchers see it: cards to browse and search (each card leads to its
launch form, which belongs to ``app.launch``)."""

from pathlib import Path

from flask import (
    Blueprint,
    current_app,
    render_template,
    request,
    send_from_directory,
)
from flask_login import current_user, login_required

from app.bounds import page_number
from app.catalogue.loader import Entry, catalogue

bp = Blueprint("catalogue", __name__, url_prefix="/catalogue")


def filter_entries(entries: list[Entry], query: str, tag: str) -> list[Entry]:
    """Entries whose name, description or tags contain every word of ``query``, with ``tag``.

    Both the reader's language and the default one count: a name often stays in English.
    """
    words = query.lower().split()
    shown = []
    for entry in entries:
        parsed, stored = entry.parsed, entry.template
        if tag and tag not in parsed.tags and tag not in stored.tags:
            continue
        haystack = " ".join(
            [parsed.name, parsed.description, *parsed.tags]
            + [stored.name, stored.description, *stored.tags]
        ).lower()
        if all(word in haystack for word in words):
            shown.append(entry)
    return shown


@bp.route("/")
@login_required
def index():
    entries = catalogue().visible_entries(current_user)
    query, tag = request.args.get("q", "").strip(), request.args.get("tag", "").strip()
    shown = filter_entries(entries, query, tag)
    page = page_number(request.args.get("page"))
    size = current_app.config["CATALOGUE_PAGE_SIZE"]
    context = {
        "entries": shown[(page - 1) * size : page * size],
        "matching": len(shown),
        "remaining": max(len(shown) - page * size, 0),
        "next_page": page + 1,
        "total": len(entries),
        "query": query,
        "tag": tag,
    }
    if request.headers.get("HX-Request"):
        # A search replaces the results; "show more" appends the next cards.
        partial = "catalogue/_card_items.html" if page > 1 else "catalogue/_cards.html"
        return render_template(partial, **context)
    tags = sorted({t for entry in entries for t in entry.parsed.tags})
    return render_template("catalogue/index.html", tags=tags, **context)


@bp.route("/icons/<path:name>")
def icon(name: str):
    return send_from_directory(
        Path(current_app.config["CATALOGUE_DIR"]) / "icons", name, max_age=3600
    )
