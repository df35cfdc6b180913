"""Keeping the deployments' record in step with the backends, without anyone waiting: the
sync duty's listing (``listing``) and polling (``polling``), their pass (``passes``), the
orchestrator's callback (``callbacks``) and ``flask deployments sync`` (``cli``). It reads and
writes the record of ``app/deployments/``, a floor below, and asks backends through
``app.deployments.remote``."""
