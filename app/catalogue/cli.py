"""``flask catalogue ...``: keep template folders, type libraries and the database in step."""

import sys
from pathlib import Path

import click
from flask import current_app
from flask.cli import AppGroup

from app import actors
from app.catalogue import operations
from app.catalogue.errors import CatalogueError
from app.catalogue.folders import KEPT, REFUSED, UNREADABLE
from app.errors import PortalError
from app.locks import one_host_at_a_time
from app.text import one_line_option
from app.tosca.yamlsafe import Problem

catalogue_cli = AppGroup("catalogue", help="Keep template folders and the database in step.")
types_cli = AppGroup("types", help="Type libraries that templates import by URL.")
catalogue_cli.add_command(types_cli)


def _folder(folder: str | None) -> Path:
    return Path(folder or current_app.config["CATALOGUE_DIR"])


@catalogue_cli.command("import")
@click.argument("folder", required=False)
@click.option("--force", is_flag=True, help="Let files win over templates edited in the browser.")
def import_command(folder, force):
    """Load the templates under FOLDER (default: tosca-catalog/), sub-folders included.

    Prints one line per file; exits with status 1 only when a file could not be read, or was
    refused (its sidecar names an unknown backend, or one that cannot deploy it).
    """
    root = _folder(folder)
    if not root.is_dir():
        raise click.ClickException(f"{root} is not a folder.")
    with one_host_at_a_time("catalogue import"):
        results = operations.import_folder(root, force=force)
    for result in results:
        click.echo(f"{result.relative} -> {result.slug or '-'}: {result.text}")
    counts = {}
    for result in results:
        counts[result.outcome] = counts.get(result.outcome, 0) + 1
    click.echo(", ".join(f"{n} {kind}" for kind, n in counts.items()) or "No template files.")
    if counts.get(KEPT):
        click.echo("Templates edited in the browser were kept; use --force to overwrite them.")
    if counts.get(UNREADABLE) or counts.get(REFUSED):
        sys.exit(1)


@catalogue_cli.command("export")
@click.argument("folder", required=False)
def export_command(folder):
    """Write each template's latest revision to FOLDER (default: tosca-catalog/)."""
    names = operations.export_folder(_folder(folder))
    click.echo(f"Wrote {len(names)} files to {_folder(folder)}")


@catalogue_cli.command("validate")
@click.argument("paths", nargs=-1)
def validate_command(paths):
    """Validate template files (default: every template in tosca-catalog/) without storing them.

    Exits with status 1 when any has errors.
    """
    if paths:
        files = [(Path(p), Path(p).stem.lower()) for p in paths]
    else:
        types_dir = current_app.config["TOSCA_TYPES_DIR"]
        files = [(f.path, f.slug) for f in operations.walk(_folder(None), exclude=types_dir)]
    libraries = operations.library_set()
    failed = 0
    for path, slug in files:
        sidecar = path.with_name(path.stem + operations.SIDECAR_SUFFIX)
        try:
            text = path.read_text(encoding="utf-8")
            sidecar_text = sidecar.read_text(encoding="utf-8") if sidecar.exists() else ""
        except (OSError, UnicodeDecodeError) as error:
            failed += 1
            click.echo(f"{path}: can't be read ({error})")
            continue
        if "topology_template" not in text:
            continue  # type definitions or settings beside the templates
        try:
            _backend, parsed = operations.parse_and_route(
                None, slug, text, sidecar_text, None, libraries
            )
        except CatalogueError as error:
            parsed = operations.parse(slug, text, sidecar_text, libraries)
            parsed.errors.append(Problem(error.message, source="sidecar"))
        if parsed.errors:
            failed += 1
            click.echo(f"{path}: {len(parsed.errors)} error(s)")
            for problem in parsed.errors:
                click.echo(f"  {problem}")
        else:
            click.echo(f"{path}: valid")
        for warning in parsed.warnings:
            click.echo(f"  warning: {warning}")
    if failed:
        sys.exit(1)


@catalogue_cli.command("revalidate")
def revalidate_command():
    """Validate every template again against the current type libraries, storing the results."""
    for slug, number, was, now in operations.revalidate_all(actors.COMMAND_LINE):
        change = "" if was == now else (" (now valid)" if now else " (now has errors)")
        click.echo(f"{slug} revision {number}: {'valid' if now else 'errors'}{change}")


@types_cli.command("add")
@click.argument("name", callback=one_line_option("NAME"))
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@click.option(
    "--url",
    "patterns",
    multiple=True,
    required=True,
    help="A URL pattern with {path} and optionally {ref}; repeat for several.",
)
@click.option(
    "--version",
    default="",
    callback=one_line_option("--version"),
    help="A note on what version the files are.",
)
@click.option("--replace", is_flag=True, help="Replace the files of an existing library.")
def types_add(name, folder, patterns, version, replace):
    """Register the YAML files under FOLDER as type library NAME, then re-validate."""
    try:
        files = operations.files_from_folder(folder)
        operations.add_library(
            name, files, list(patterns), actors.COMMAND_LINE, version=version, replace=replace
        )
    except CatalogueError as error:
        raise click.ClickException(error.message) from None
    click.echo(f"Stored type library {name}: {len(files)} files.")
    _revalidated()


@types_cli.command("list")
def types_list():
    """The type libraries, the URL patterns they answer for, and the templates using them."""
    used, unresolved = operations.usage()
    libraries = operations.list_libraries()
    if not libraries:
        click.echo("No type library is registered; the shipped copies are used.")
    for library in libraries:
        count = len(library.files)
        files = f"{count} file" if count == 1 else f"{count} files"
        click.echo(f"{library.name} ({files}) {library.version}".rstrip())
        for pattern in library.patterns:
            click.echo(f"  answers for {pattern}")
        click.echo(f"  used by: {', '.join(used.get(library.name, [])) or 'no template'}")
    for slug, urls in unresolved.items():
        click.echo(f"{slug}: unresolved imports: {', '.join(urls)}")


@types_cli.command("remove")
@click.argument("name")
def types_remove(name):
    """Remove type library NAME, then re-validate."""
    try:
        operations.remove_library(name)
    except PortalError as error:
        raise click.ClickException(error.message) from None
    click.echo(f"Removed type library {name}.")
    _revalidated()


def _revalidated() -> None:
    changes = operations.revalidate_all(actors.COMMAND_LINE)
    changed = [c for c in changes if c[2] != c[3]]
    click.echo(f"Re-validated {len(changes)} revisions; {len(changed)} changed validity.")
    for slug, number, _was, now in changed:
        click.echo(f"  {slug} revision {number}: {'now valid' if now else 'now has errors'}")
