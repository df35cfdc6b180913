"""The compiled message catalogues: built from the ``.po`` sources wherever the portal is
installed or started, and checked before a language is offered.

Flask-Babel reads ``translations/<code>/LC_MESSAGES/messages.mo``, which git does not keep.
Installing the package compiles them (``setup.py`` runs ``compile_stale`` from this file, so
this module imports nothing of the portal and nothing but Babel outside the standard library);
``create_app`` compiles again whatever is missing or older than its ``.po``, so a checkout
started without ``make``, or upgraded with new words, serves its words. A language whose
catalogue still cannot be read is not offered: a page never says ``lang="it"`` in English.

``python -m app.catalogues`` compiles the stale catalogues of the checkout (what ``make`` runs).
"""

import logging
import os
import tempfile
from pathlib import Path

SOURCE = "messages.po"
COMPILED = "messages.mo"
# The folder under the instance folder that holds catalogues compiled there, when the installed
# sources cannot be written (a package installed read-only).
INSTANCE_FOLDER = "translations"

log = logging.getLogger(__name__)


class CatalogueError(Exception):
    """A catalogue that cannot be compiled or read; the message names it and says why."""


def sources(root: Path) -> dict[str, Path]:
    """Each language's ``.po`` under ``root``, by language code."""
    return {po.parents[1].name: po for po in sorted(root.glob(f"*/LC_MESSAGES/{SOURCE}"))}


def is_fresh(po: Path, mo: Path) -> bool:
    """Whether ``mo`` exists and was written after ``po`` was last changed."""
    try:
        return mo.stat().st_mtime_ns >= po.stat().st_mtime_ns
    except FileNotFoundError:
        return False


def compile_catalogue(po: Path, mo: Path) -> None:
    """Write ``mo`` from ``po``. The catalogue is written aside and renamed into place, so that
    processes starting together (gunicorn's workers, the sync and mail workers) each either
    read a whole catalogue or compile an identical one.

    Raises CatalogueError when ``po`` cannot be read or parsed, OSError when ``mo`` cannot be
    written.
    """
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    try:
        with po.open("rb") as source:
            catalog = read_po(source, locale=po.parents[1].name, abort_invalid=True)
    except Exception as error:  # Babel raises several kinds for a broken file
        raise CatalogueError(f"{po} cannot be read: {error}") from error
    mo.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(prefix=".messages-", suffix=".mo", dir=mo.parent)
    try:
        with os.fdopen(handle, "wb") as target:
            write_mo(target, catalog)
        os.chmod(partial, 0o644)
        os.replace(partial, mo)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise


def compile_stale(root: Path, target: Path | None = None) -> list[Path]:
    """Compile each ``.po`` under ``root`` whose ``.mo`` (under ``target``, default beside it)
    is missing or older. Returns the catalogues written.

    Raises CatalogueError or OSError for the first one that cannot be compiled.
    """
    written = []
    for code, po in sources(root).items():
        mo = (target or root) / code / "LC_MESSAGES" / COMPILED
        if not is_fresh(po, mo):
            compile_catalogue(po, mo)
            written.append(mo)
    return written


def _writable(root: Path) -> bool:
    return all(os.access(po.parent, os.W_OK) for po in sources(root).values())


def prepare(root: Path, instance_path: Path) -> Path:
    """Make the catalogues of ``root`` current, and return the folder to read them from:
    ``root`` itself, or the instance folder's ``translations/`` when ``root`` is read-only.
    A catalogue that cannot be compiled is logged and left as it is (``readable`` decides)."""
    folder = root if _writable(root) else instance_path / INSTANCE_FOLDER
    for code, po in sources(root).items():
        mo = folder / code / "LC_MESSAGES" / COMPILED
        if is_fresh(po, mo):
            continue
        try:
            compile_catalogue(po, mo)
            log.info("Compiled the %s message catalogue into %s", code, mo)
        except (CatalogueError, OSError) as error:
            log.warning("The %s message catalogue could not be compiled: %s", code, error)
    return folder


def readable(folder: Path, code: str) -> bool:
    """Whether ``folder`` holds a catalogue for ``code`` that loads and translates something.
    Logs a warning saying why when it does not."""
    from babel.support import Translations

    mo = folder / code / "LC_MESSAGES" / COMPILED
    try:
        with mo.open("rb") as file:
            translations = Translations(file)
    except FileNotFoundError:
        log.warning("No %s message catalogue at %s: pages are served in English instead.", code, mo)
        return False
    except Exception as error:  # gettext raises OSError, ValueError or others for a bad file
        log.warning(
            "The %s message catalogue %s cannot be read (%s): pages are served in English instead.",
            code,
            mo,
            error,
        )
        return False
    # The header entry ("") is there even in a catalogue that translates nothing.
    if not any(key for key in translations._catalog if key):
        log.warning(
            "The %s message catalogue %s translates nothing: pages are served in English instead.",
            code,
            mo,
        )
        return False
    return True


def init_catalogues(app, languages) -> frozenset[str]:
    """Compile the app's stale catalogues, point Flask-Babel at them, and return which of
    ``languages`` have one that loads."""
    root = Path(app.config["BABEL_TRANSLATION_DIRECTORIES"])
    folder = prepare(root, Path(app.instance_path))
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = str(folder)
    return frozenset(code for code in languages if readable(folder, code))


if __name__ == "__main__":
    root = Path(__file__).resolve().parent.parent / "translations"
    for written in compile_stale(root):
        print(f"Compiled {written}")
