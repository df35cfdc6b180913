"""Run every benchmark and print its figures: ``python -m bench [--quick]``."""

import sys

from bench import (
    api,
    busy_worker,
    capacity,
    catalogue,
    crowd,
    deployments_page,
    group_page,
    im_deletes,
    leases,
    listing,
    mail,
    page_cpu,
    quotas,
    requests_cost,
    sessions,
    sharing,
    sync,
    translation,
    verdict,
)

if __name__ == "__main__":
    catalogue.main(quick="--quick" in sys.argv)
    sync.main(quick="--quick" in sys.argv)
    listing.main(quick="--quick" in sys.argv)
    quotas.main(quick="--quick" in sys.argv)
    deployments_page.main(quick="--quick" in sys.argv)
    sessions.main(quick="--quick" in sys.argv)
    mail.main(quick="--quick" in sys.argv)
    api.main(quick="--quick" in sys.argv)
    leases.main(quick="--quick" in sys.argv)
    translation.main(quick="--quick" in sys.argv)
    requests_cost.main(quick="--quick" in sys.argv)
    page_cpu.main(quick="--quick" in sys.argv)
    crowd.main(quick="--quick" in sys.argv)
    im_deletes.main(quick="--quick" in sys.argv)
    capacity.main(quick="--quick" in sys.argv)
    verdict.main(quick="--quick" in sys.argv)
    busy_worker.main(quick="--quick" in sys.argv)
    sharing.main(quick="--quick" in sys.argv)
    group_page.main(quick="--quick" in sys.argv)
