"""``flask sites ...`` (the sites the portal knows) and ``flask capacity ...`` (what they
have free, and reading the sources now)."""

from __future__ import annotations

from contextlib import contextmanager

import click
from flask.cli import AppGroup

from app.backends import registry
from app.capacity import operations, refresh, snapshot
from app.capacity.sites import all_sites
from app.capacity.verdicts import GIB
from app.clock import utcnow
from app.errors import PortalError
from app.formatting import size

sites_cli = AppGroup("sites", help="List, add, change and remove the sites deployments go to.")
capacity_cli = AppGroup("capacity", help="What the sites have free, and reading it now.")


@contextmanager
def _in_words():
    try:
        yield
    except PortalError as error:
        raise click.ClickException(error.message) from None


@sites_cli.command("list")
def list_sites() -> None:
    """Every known site: name, backend and placement."""
    found = all_sites()
    if not found:
        click.echo("No site is known yet; add one with `flask sites add`.")
    for site in found:
        click.echo(f"{site.name:<24} {site.backend:<6} {site.placement or '-'}")


@sites_cli.command("add")
@click.argument("name")
@click.option(
    "--backend", required=True, help=f"The backend reaching it: {', '.join(registry.NAMES)}."
)
@click.option(
    "--placement",
    default="",
    help="What the backend needs to send a deployment there: the orchestrator's cloud "
    "provider or service id (paas), the cloud id of an IM_CLOUDS line (im).",
)
@click.option("--if-missing", is_flag=True, help="Keep a site of that name as it is.")
def add(name: str, backend: str, placement: str, if_missing: bool) -> None:
    """Record the site NAME."""
    if if_missing and any(site.name == name for site in all_sites()):
        click.echo(f"Site {name} is already known; left as it is.")
        return
    with _in_words():
        site = operations.add_site(name, backend, placement)
    click.echo(f"Site {site.name} added ({site.backend}, placement {site.placement or '-'}).")


@sites_cli.command("edit")
@click.argument("name")
@click.option("--name", "new_name", help="A new name for it.")
@click.option("--backend", help="The backend reaching it.")
@click.option("--placement", help="What the backend needs to send a deployment there.")
def edit(name: str, new_name: str | None, backend: str | None, placement: str | None) -> None:
    """Change the site NAME."""
    if new_name is None and backend is None and placement is None:
        raise click.UsageError("Nothing to change: give --name, --backend or --placement.")
    with _in_words():
        site = operations.edit_site(name, new_name=new_name, backend=backend, placement=placement)
    click.echo(f"Site {site.name}: {site.backend}, placement {site.placement or '-'}.")


@sites_cli.command("remove")
@click.argument("name")
def remove(name: str) -> None:
    """Forget the site NAME (deployments that went there keep its name)."""
    with _in_words():
        operations.remove_site(name)
    click.echo(f"Site {name} removed.")


@capacity_cli.command("refresh")
@click.option("--all", "everything", is_flag=True, help="Read every source, due or not.")
def refresh_now(everything: bool) -> None:
    """Read the capacity sources that are due (what the sync worker does each pass). Exits
    with 1 when every source read failed."""
    result = refresh.refresh_due(everything=everything)
    click.echo(result)
    for failure in result.failures:
        click.echo(f"  failed: {failure}", err=True)
    if result.all_failed:
        raise click.ClickException("Every capacity source read failed; see above.")


@capacity_cli.command("show")
def show() -> None:
    """What each site had free when last read, and how old that is."""
    found = snapshot.current()
    if not found:
        click.echo("No site's capacity has been read yet.")
    for free in found:
        gpus = ", ".join(f"{n} {model or 'GPU of unknown model'}" for model, n in free.gpus.items())
        gpus = gpus or ("none" if free.gpus_known else "not told")
        state = " [maintenance]" if free.maintenance else ""
        stale = " [stale]" if snapshot.is_stale(free) else ""
        click.echo(
            f"{free.site}{state}{stale}: {_number(free.cores)} cores, "
            f"{_size(free.memory_gib)} memory, {_size(free.disk_gib)} disk, "
            f"{_number(free.instances)} instances; GPUs: {gpus} "
            f"({free.source}, {int(snapshot.age_seconds(free))} s old)"
        )
        if free.problem:
            click.echo(f"  last refresh failed: {free.problem}")
    sources = refresh.source_overview()
    if sources:
        click.echo("Sources:")
    for source in sources:
        where = f"{source.kind} {source.url or registry.kind(source.kind).address_setting}" + (
            f" ({source.site})" if source.site else ""
        )
        if source.read_at is not None:
            read = f"last usable read {int((utcnow() - source.read_at).total_seconds())} s ago"
        else:
            read = "no usable read yet" if source.tried else "not read yet"
        click.echo(f"  {where}: {read}")
        if source.problem:
            click.echo(f"    last failure: {source.problem}")


def _number(value) -> str:
    return "?" if value is None else f"{value:g}"


def _size(gib) -> str:
    """GiB as the quotas show sizes (``app.formatting.size``): "640 GiB", not "640.0"."""
    if gib is None:
        return "?"
    return size(gib * GIB) if gib else "0"
