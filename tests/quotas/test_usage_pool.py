"""A group pool's figure read with each person's count of what they run charged to it: the
same figures as ``usage_of`` of the group, and the counts of the deployments that hold."""

from app.quotas.usage import Usage, pool_and_people, usage_of
from tests.quotas.conftest import charge


def test_the_pool_read_with_the_peoples_counts_is_the_groups_usage(quotas):
    ada, bob = quotas.user(groups=["physics"]), quotas.user(groups=["physics"])
    quotas.hold(
        ada, charge(cores=2, memory=4, gpus=1, gpu_models={"A100": 1}), group_name="physics"
    )
    quotas.hold(ada, charge(cores=1.5, disk=10), group_name="physics")
    quotas.hold(bob, charge(cores=3, gpus=2, gpu_models={"T4": 2}), group_name="physics")
    quotas.hold(bob, charge(cores=8), group_name="biology")
    quotas.hold(bob, charge(cores=8), group_name="physics", status="deleted")
    with quotas.app.app_context():
        pool, people = pool_and_people("physics", ["T4", "A100"])
        assert pool == usage_of(group_name="physics", models=["A100", "T4"])
        assert people == {ada: 2, bob: 1}
        assert (pool.deployments, pool.cores, pool.gpus) == (3, 6.5, 3)
        assert pool.gpu_models == {"A100": 1, "T4": 2}
        assert pool_and_people("physics") == (usage_of(group_name="physics"), people)
        assert pool_and_people("chemistry", ["A100"]) == (Usage(gpu_models={"A100": 0}), {})
