"""Admins on several hosts saving the same template at the same moment: every edit is kept,
as its own revision, and none is lost to a clash of revision numbers."""

from app.catalogue import operations
from tests.catalogue import save_worker
from tests.conftest import TEST_CONFIG
from tests.processes import race

PROCESSES, THREADS = 2, 4
TEMPLATE = """tosca_definitions_version: tosca_simple_yaml_1_0
description: EDIT
topology_template:
  node_templates:
    vm:
      type: tosca.nodes.Compute
"""


def test_simultaneous_saves_of_one_template_all_become_revisions(make_app, database_url, tmp_path):
    app = make_app(SQLALCHEMY_DATABASE_URI=database_url)
    with app.app_context():
        operations.save_revision("shared-vm", TEMPLATE, "", "admin", create=True)
    config = {**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": database_url}
    arguments = (config, str(tmp_path / "instance"), "shared-vm", TEMPLATE, THREADS)
    outcomes = race(
        save_worker.run,
        [arguments] * PROCESSES,
        parties=PROCESSES * THREADS,
        outcomes=PROCESSES * THREADS,
        method="spawn",
    )
    assert sorted(outcomes, key=str) == list(range(2, 2 + PROCESSES * THREADS)), outcomes
    with app.app_context():
        texts = [r.tosca_text for r in operations.get_template("shared-vm").revisions]
        assert len(set(texts)) == 1 + PROCESSES * THREADS  # every admin's own edit
