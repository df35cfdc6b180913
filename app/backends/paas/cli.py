"""``flask orchestrator``: tools around the PaaS orchestrator (today its emulator, ``emulate``).

``python -m app.backends.paas.cli`` runs ``emulate`` without the portal's configuration.
"""

import click

from app.backends.paas.emulator.cli import emulate

orchestrator_cli = click.Group("orchestrator", help="Tools around the PaaS orchestrator.")
orchestrator_cli.add_command(emulate)


if __name__ == "__main__":
    emulate(prog_name="python -m app.backends.paas.cli")
