"""Run every benchmark and print its figures: ``python -m bench [--quick]``."""

import sys

from bench import api, catalogue, deployments_page, leases, mail, quotas, sessions, sync

if __name__ == "__main__":
    catalogue.main(quick="--quick" in sys.argv)
    sync.main(quick="--quick" in sys.argv)
    quotas.main(quick="--quick" in sys.argv)
    deployments_page.main(quick="--quick" in sys.argv)
    sessions.main(quick="--quick" in sys.argv)
    mail.main(quick="--quick" in sys.argv)
    api.main(quick="--quick" in sys.argv)
    leases.main(quick="--quick" in sys.argv)
