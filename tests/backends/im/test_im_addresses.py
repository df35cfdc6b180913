"""Which address a ready IM deployment without an address among its outputs is given, read
from its machines' RADL as IM 2.0 answers it (the shape seen at a real IM, see
test_im_backend)."""

from app.backends.im.addresses import holds_an_address, machine_addresses

FRONT = [
    {"class": "network", "id": "public", "outbound": "yes"},
    {"class": "network", "id": "private", "outbound": "no"},
    {
        "class": "system",
        "id": "front-end",
        "net_interface.0.connection": "private",
        "net_interface.0.ip": "10.0.0.5",
        "net_interface.1.connection": "public",
        "net_interface.1.ip": "192.0.2.10",
        "disk.0.os.credentials.password": "never-kept",
    },
]
WORKER = [
    {"class": "network", "id": "private", "outbound": "no"},
    {
        "class": "system",
        "id": "wn",
        "net_interface.0.connection": "private",
        "net_interface.0.ip": "10.0.0.6",
    },
]


def test_the_public_address_is_chosen_and_a_private_one_only_when_there_is_no_other():
    found = machine_addresses([FRONT, WORKER])

    assert found == {"front_end_address": "192.0.2.10", "wn_address": "10.0.0.6"}
    assert "never-kept" not in repr(found)


def test_a_machine_with_no_address_yet_or_an_unreadable_one_adds_nothing():
    pending = [{"class": "system", "id": "node", "net_interface.0.ip": "not an address"}]

    assert machine_addresses([pending, []]) == {}


def test_outputs_that_already_say_where_to_reach_it_are_left_alone():
    assert holds_an_address({"ip": "10.0.0.1"})
    assert holds_an_address({"url": "https://notebook.example.org/"})
    assert holds_an_address({"login": "cloudadm@192.0.2.10"})
    assert holds_an_address({"v6": "2001:db8::1"})
    assert not holds_an_address({"cpus_asked": 2, "note": "ready", "nothing": None})
