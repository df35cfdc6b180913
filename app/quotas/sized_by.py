"""Which launch inputs size which resource, so that a refusal can point at the fields."""

# Size properties (of hosts, containers, flavours and volumes) by the resource they count.
_RESOURCE_OF = {
    "num_cpus": "cores",
    "cpus": "cores",
    "cores": "cores",
    "mem_size": "memory",
    "memory": "memory",
    "disk_size": "disk",
    "disk": "disk",
    "size": "disk",
    "num_gpus": "gpus",
    "gpus": "gpus",
    "gpu_model": "gpus",
}


def inputs_by_resource(read: dict[str, set[str]]) -> dict[str, tuple[str, ...]]:
    """{resource: the inputs it was read from}, from {size property: inputs read for it}: the
    fields to mark when a launch does not fit."""
    found: dict[str, set[str]] = {}
    for prop, names in read.items():
        # A count or a flavour multiplies or sizes everything.
        resources = [_RESOURCE_OF[prop]] if prop in _RESOURCE_OF else []
        if prop in ("count", "instance_type"):
            resources = ["cores", "memory", "disk", "gpus"]
        for resource in resources:
            found.setdefault(resource, set()).update(names)
    return {resource: tuple(sorted(names)) for resource, names in found.items()}
