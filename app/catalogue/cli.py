"""``flask catalogue import|export|validate``: keep tosca-catalog/ and the database in step."""

import sys
from pathlib import Path

import click
from flask import current_app
from flask.cli import AppGroup

SIDECAR_SUFFIX = ".portal.yaml"
catalogue_cli = AppGroup("catalogue", help="Keep tosca-catalog/ and the database in step.")


def _folder(folder: str | None) -> Path:
    return Path(folder or current_app.config["CATALOGUE_DIR"])


@catalogue_cli.command("import")
@click.argument("folder", required=False)
def import_command(folder):
    """Load templates from FOLDER (default: tosca-catalog/) as new revisions where changed."""
    # Imported here: the validator is heavy, and web workers never need it at start-up.
    from app.catalogue.operations import import_folder

    for slug, outcome in import_folder(_folder(folder)):
        click.echo(f"{slug}: {outcome}")


@catalogue_cli.command("export")
@click.argument("folder", required=False)
def export_command(folder):
    """Write each template's latest revision to FOLDER (default: tosca-catalog/)."""
    from app.catalogue.operations import export_folder

    names = export_folder(_folder(folder))
    click.echo(f"Wrote {len(names)} files to {_folder(folder)}")


@catalogue_cli.command("validate")
@click.argument("paths", nargs=-1)
def validate_command(paths):
    """Validate template files (default: every template in tosca-catalog/) without storing them.

    Exits with status 1 when any has errors.
    """
    from app.catalogue.operations import parse

    files = [Path(p) for p in paths] or sorted(
        p for p in _folder(None).glob("*.y*ml") if not p.name.endswith(SIDECAR_SUFFIX)
    )
    failed = 0
    for path in files:
        sidecar = path.with_name(path.stem + SIDECAR_SUFFIX)
        parsed = parse(
            path.stem.lower(),
            path.read_text(encoding="utf-8"),
            sidecar.read_text(encoding="utf-8") if sidecar.exists() else "",
        )
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
