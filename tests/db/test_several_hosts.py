"""Several portal hosts set themselves up against one PostgreSQL database at the same moment,
as a site does when it starts its hosts together: every step succeeds on every host, and the
work is done once."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "tosca-catalog"
HOSTS = 3

pytestmark = pytest.mark.postgres


def _on_every_host(tmp_path: Path, database: str, *command: str) -> list[str]:
    """Run ``flask <command>`` as HOSTS separate processes started together; their outputs."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PORTAL_")}
    env |= {
        "PORTAL_SQLALCHEMY_DATABASE_URI": database,
        "PORTAL_ORCHESTRATOR_URL": "demo",
        "PORTAL_SECRET_KEY": "several-hosts-" + "k" * 30,
        "FLASK_APP": "wsgi",
    }
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "flask", *command],
            cwd=ROOT,
            env=env | {"PORTAL_INSTANCE_PATH": str(tmp_path / f"host-{n}")},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for n in range(HOSTS)
    ]
    outputs = [process.communicate(timeout=120)[0] for process in processes]
    for process, output in zip(processes, outputs, strict=True):
        assert process.returncode == 0, output
        assert "Traceback" not in output, output
    return outputs


def test_hosts_migrate_create_the_first_accounts_and_import_the_catalogue_together(
    tmp_path, empty_postgres_url
):
    _on_every_host(tmp_path, empty_postgres_url, "db", "upgrade")
    outputs = _on_every_host(tmp_path, empty_postgres_url, "users", "bootstrap")
    created = [line for out in outputs for line in out.splitlines() if "Created local" in line]
    assert len(created) == 2, outputs  # the admin and the researcher, by one host only
    outputs = _on_every_host(tmp_path, empty_postgres_url, "catalogue", "import")
    imported = [out for out in outputs if "imported" in out.splitlines()[-1]]
    assert len(imported) == 1, outputs  # the others found the same files already there
    engine = create_engine(empty_postgres_url)
    with engine.connect() as connection:
        usernames = connection.scalars(text("SELECT username FROM users ORDER BY username"))
        assert list(usernames) == ["admin", "researcher"]
        slugs = connection.scalars(text("SELECT slug FROM catalogue_templates")).all()
        templates = [f for f in CATALOGUE.glob("*.yaml") if not f.name.endswith(".portal.yaml")]
        assert len(slugs) == len(set(slugs)) == len(templates)
        heads = connection.scalars(text("SELECT version_num FROM alembic_version")).all()
        assert len(heads) == 1
    engine.dispose()
