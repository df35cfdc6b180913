"""What an emulated deployment looks like once "built": its outputs, its resources, its site.

The template's outputs are evaluated the way the orchestrator would fill them in: ``get_input``
takes what the person typed (or the default), ``get_property`` reads node properties,
``get_attribute`` gives made-up but plausible runtime values (addresses from the documentation
ranges 203.0.113.0/24 and 10.0.0.0/8, the SSH account named in the template, credentials), and
``concat``/``token`` combine them. Everything is derived from the deployment's uuid, so the
same deployment always shows the same values.
"""

from __future__ import annotations

import hashlib
import uuid as uuidlib
from typing import Any

import yaml

from app.backends.paas.emulator.rules import section

_FUNCTIONS = ("get_input", "get_property", "get_attribute", "concat", "token")
_PUBLIC_ATTRIBUTES = ("public_address", "public_ip", "ip", "ip_address", "load_balancer_ips")
# Resource states by deployment status (the orchestrator's Resource.state values).
_STATES = {
    "CREATE_IN_PROGRESS": "CREATING",
    "CREATE_COMPLETE": "STARTED",
    "UPDATE_IN_PROGRESS": "CONFIGURING",
    "UPDATE_COMPLETE": "STARTED",
    "DELETE_IN_PROGRESS": "DELETING",
}
_NAMESPACE = uuidlib.UUID("6b1d6f0e-3a52-4c7e-9d55-0e2f8f1c9a11")


def _digest(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("/".join(parts).encode()).digest()[:4], "big")


def is_compute(node: dict) -> bool:
    kind = str(node.get("type", ""))
    return kind.endswith(".Compute") or kind == "Compute"


class Topology:
    """A submitted template with its parameters, for deployment ``uuid``."""

    def __init__(self, template: str, parameters: dict, uuid: str):
        try:
            tosca = yaml.safe_load(template)
        except yaml.YAMLError:
            tosca = None
        tosca = tosca if isinstance(tosca, dict) else {}
        self.uuid = uuid
        self.nodes = {
            name: node
            for name, node in section(tosca, "node_templates").items()
            if isinstance(node, dict)
        }
        self.output_definitions = section(tosca, "outputs")
        self.inputs = {}
        for name, definition in section(tosca, "inputs").items():
            default = definition.get("default") if isinstance(definition, dict) else None
            self.inputs[name] = parameters.get(name, default)

    # --- what the deployment shows ---------------------------------------------------------

    def outputs(self) -> dict[str, Any]:
        """The template's outputs, evaluated."""
        values = {}
        for name, definition in self.output_definitions.items():
            value = definition.get("value") if isinstance(definition, dict) else definition
            values[str(name)] = self.evaluate(value)
        return values

    def deployment_type(self) -> str:
        kinds = " ".join(str(node.get("type", "")) for node in self.nodes.values())
        for marker, kind in (("Marathon", "MARATHON"), ("Chronos", "CHRONOS"), ("QCG", "QCG")):
            if marker in kinds:
                return kind
        return "OPENSTACK"

    def instances(self) -> list[tuple[str, int]]:
        """(node name, instance index) of every resource: ``count`` of them per compute node."""
        found = []
        for name, node in self.nodes.items():
            count = self._count(node) if is_compute(node) else 1
            found.extend((name, index) for index in range(count))
        return found

    def resources(self, status: str, overrides: dict[str, str], now: str) -> list[dict]:
        """The resource JSON of every node instance, in the state ``status`` implies."""
        state = _STATES.get(status, "ERROR")
        required_by = {name: [] for name in self.nodes}
        for name, node in self.nodes.items():
            for requirement in node.get("requirements") or []:
                for target in requirement.values() if isinstance(requirement, dict) else ():
                    target = target.get("node") if isinstance(target, dict) else target
                    if target in required_by:
                        required_by[target].append(name)
        resources = []
        for name, index in self.instances():
            resource_id = self.resource_id(name, index)
            node = self.nodes[name]
            built = state in ("STARTED", "CONFIGURING", "DELETING")
            resource = {
                "uuid": resource_id,
                "creationTime": now,
                "updateTime": now,
                "state": overrides.get(resource_id, state),
                "toscaNodeType": str(node.get("type", "")),
                "toscaNodeName": name,
                "requiredBy": required_by[name],
                "metadata": {},
            }
            if built and is_compute(node):
                resource["physicalId"] = f"vm-{_digest(self.uuid, name, str(index)):08x}"
                resource["metadata"] = {"public_ip": self._public_ips(name)[index]}
            resources.append(resource)
        return resources

    def resource_id(self, name: str, index: int = 0) -> str:
        """The uuid of instance ``index`` of node ``name`` (Chronos names its jobs after it)."""
        return str(uuidlib.uuid5(_NAMESPACE, f"{self.uuid}/{name}/{index}"))

    def extrainfo(self) -> list[dict]:
        """Per-VM information, as the orchestrator's extrainfo lists it."""
        return [
            {
                "vmId": f"vm-{_digest(self.uuid, name, str(index)):08x}",
                "nodeName": name,
                "publicIp": self._public_ips(name)[index],
                "privateIp": self._private_ips(name)[index],
            }
            for name, index in self.instances()
            if is_compute(self.nodes[name])
        ]

    # --- TOSCA functions -------------------------------------------------------------------

    def evaluate(self, value: Any) -> Any:
        """``value`` with every TOSCA function in it replaced by its emulated result."""
        if isinstance(value, list):
            return [self.evaluate(item) for item in value]
        if not isinstance(value, dict):
            return value
        if len(value) == 1 and next(iter(value)) in _FUNCTIONS:
            function, arguments = next(iter(value.items()))
            return getattr(self, f"_{function}")(arguments)
        return {key: self.evaluate(item) for key, item in value.items()}

    def _get_input(self, arguments: Any) -> Any:
        name, *path = arguments if isinstance(arguments, list) else [arguments]
        return _walk(self.inputs.get(name), path)

    def _get_property(self, arguments: Any) -> Any:
        if not isinstance(arguments, list) or len(arguments) < 2:
            return None
        node = self.nodes.get(arguments[0], {})
        name, *path = arguments[1:]
        properties = node.get("properties") or {}
        if name in properties:
            return _walk(self.evaluate(properties[name]), path)
        capability = (node.get("capabilities") or {}).get(name) or {}
        if path:
            value = (capability.get("properties") or {}).get(path[0])
            return _walk(self.evaluate(value), path[1:])
        return None

    def _get_attribute(self, arguments: Any) -> Any:
        if not isinstance(arguments, list) or len(arguments) < 2:
            return None
        name, attribute, *path = arguments
        node = self.nodes.get(name, {})
        if attribute in _PUBLIC_ATTRIBUTES:
            return _walk(self._public_ips(self._host_of(name)), path)
        if attribute == "private_address":
            return _walk(self._private_ips(self._host_of(name)), path)
        if attribute == "endpoint":
            return _walk(self._endpoint(name), path)
        if attribute == "ansible_output":
            return self._ansible_output(name, path)
        capability = (node.get("capabilities") or {}).get(attribute)
        if isinstance(capability, dict) and path:
            value = self.evaluate((capability.get("properties") or {}).get(path[0]))
            return _walk(value, path[1:], seed=f"{self.uuid}/{name}")
        properties = node.get("properties") or {}
        if attribute in properties:
            return _walk(self.evaluate(properties[attribute]), path)
        return f"{name}-{attribute}"

    def _concat(self, arguments: Any) -> str:
        parts = [self.evaluate(part) for part in arguments or []]
        return "".join("" if part is None else str(part) for part in parts)

    def _token(self, arguments: Any) -> str | None:
        try:
            text, separator, index = (self.evaluate(part) for part in arguments)
            return str(text).split(str(separator))[int(index)]
        except (TypeError, ValueError, IndexError):
            return None

    # --- made-up runtime values ------------------------------------------------------------

    def _count(self, node: dict) -> int:
        scalable = (node.get("capabilities") or {}).get("scalable") or {}
        count = self.evaluate((scalable.get("properties") or {}).get("count", 1))
        try:
            return max(0, int(count))
        except (TypeError, ValueError):
            return 1

    def _host_of(self, name: str) -> str:
        """The compute node ``name`` runs on (itself when it is one)."""
        seen = set()
        while name in self.nodes and not is_compute(self.nodes[name]) and name not in seen:
            seen.add(name)
            hosts = [
                req["host"]
                for req in self.nodes[name].get("requirements") or []
                if isinstance(req, dict) and "host" in req
            ]
            if not hosts:
                break
            name = hosts[0].get("node") if isinstance(hosts[0], dict) else hosts[0]
        return name

    def _public_ips(self, name: str) -> list[str]:
        node = self.nodes.get(name, {})
        base = _digest(self.uuid, name) % 200
        count = max(1, self._count(node)) if is_compute(node) else 1
        return [f"203.0.113.{(base + index) % 250 + 3}" for index in range(count)]

    def _private_ips(self, name: str) -> list[str]:
        node = self.nodes.get(name, {})
        base = _digest(self.uuid, name, "private")
        count = max(1, self._count(node)) if is_compute(node) else 1
        return [f"10.{base % 250}.{base // 250 % 250}.{index + 10}" for index in range(count)]

    def _account(self, name: str) -> str:
        """The SSH account of a compute node: its first os_users entry, else its endpoint
        credential's user, else the orchestrator's usual cloudadm."""
        node = self.nodes.get(self._host_of(name), {})
        users = self.evaluate((node.get("properties") or {}).get("os_users"))
        if isinstance(users, list) and users and isinstance(users[0], dict):
            user = users[0].get("os_user_name")
            if isinstance(user, str) and user:
                return user
        endpoint = (node.get("capabilities") or {}).get("endpoint") or {}
        credential = self.evaluate((endpoint.get("properties") or {}).get("credential"))
        if isinstance(credential, dict) and isinstance(credential.get("user"), str):
            return credential["user"]
        return "cloudadm"

    def _endpoint(self, name: str) -> dict:
        host = self._host_of(name)
        key = hashlib.sha256(f"{self.uuid}/{host}/key".encode()).hexdigest()
        private_key = (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            f"EMULATED-KEY-NOT-USABLE-{key[:48]}\n"
            "-----END OPENSSH PRIVATE KEY-----\n"
        )
        credentials = [
            {"user": self._account(name), "token_type": "private_key", "token": private_key}
        ]
        return {"credential": credentials, "ip_address": self._public_ips(host)[0]}

    def _ansible_output(self, name: str, path: list) -> Any:
        mentions_kube = any("kube" in str(part).lower() for part in path)
        address = self._public_ips(self._host_of(name))[0]
        if mentions_kube:
            return (
                "apiVersion: v1\nkind: Config\nclusters:\n- name: emulated\n  cluster:\n"
                f"    server: https://{address}:6443\ncontexts:\n- name: emulated\n  context:\n"
                "    cluster: emulated\n    user: admin\ncurrent-context: emulated\nusers:\n"
                f"- name: admin\n  user:\n    token: emulated-{self.uuid[:8]}\n"
            )
        return f"Emulated output of {'/'.join(str(part) for part in path)} on {address}"


def _walk(value: Any, path: list, seed: str = "") -> Any:
    """Follow list indexes and mapping keys ``path`` into ``value``. A port's missing
    ``target`` is assigned, as the orchestrator assigns published ports."""
    for step in path:
        in_list = (
            isinstance(value, list) and isinstance(step, int) and -len(value) <= step < len(value)
        )
        if in_list or (isinstance(value, dict) and step in value):
            value = value[step]
        elif isinstance(value, dict) and step == "target":
            value = 30000 + _digest(seed, str(value.get("source"))) % 2700
        else:
            return None
    return value
