"""LDAP login: find the person in the institute directory, check their password, read their groups.

The settings (``LDAP`` in config/defaults.py) are a mapping; every key may be left out:

=====================  ==========================================================================
url                    ``ldap://localhost``; ``ldaps://host:636`` for TLS from the start
start_tls              False; upgrade an ``ldap://`` connection with StartTLS
ca_file                "" (the system's CAs); certificates are always verified, TLS 1.2 or later
bind_dn                "" (anonymous search); with ``bind_password``, the service account
user_base              "" (the directory's root)
user_filter            ``(<username_attribute>={username})``; ``{username}`` is escaped
username_attribute     ``uid``; its stored value becomes the identity's subject and username
name_attribute         ``cn``
email_attribute        ``mail``
group_membership       ``member`` (groupOfNames), ``uniqueMember`` (groupOfUniqueNames),
                       ``memberUid`` (posixGroup) or ``memberOf`` (on the person's entry)
group_base             "" (no group lookup, except with ``memberOf``)
group_name_attribute   ``cn``
connect_timeout        5 seconds
receive_timeout        10 seconds (whole seconds; fractions round up), for each read
deadline               20 seconds for the whole login (binds and searches together): a
                       directory that answers a byte now and then is given up at this time
=====================  ==========================================================================
"""

import logging
import math
import ssl
import warnings

from flask_babel import gettext as _

from app import deadlines
from app.auth.errors import DirectoryUnavailable, LoginFailed
from app.auth.identity import Identity
from app.errors import ConfigurationError

with warnings.catch_warnings():
    # ldap3 2.9 imports names that pyasn1 0.6 deprecated; harmless, and not ours to fix.
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"ldap3\.")
    from ldap3 import BASE, NONE, SUBTREE, Connection, Server, Tls
    from ldap3.core.exceptions import LDAPException
    from ldap3.utils.conv import escape_filter_chars
    from ldap3.utils.dn import parse_dn

PROVIDER = "ldap"
DEFAULTS = {
    "url": "ldap://localhost",
    "start_tls": False,
    "ca_file": "",
    "bind_dn": "",
    "bind_password": "",
    "user_base": "",
    "user_filter": "",
    "username_attribute": "uid",
    "name_attribute": "cn",
    "email_attribute": "mail",
    "group_membership": "member",
    "group_base": "",
    "group_name_attribute": "cn",
    "connect_timeout": 5,
    "receive_timeout": 10,
    "deadline": 20,
}
# How a group names its members: by the person's DN, or by their uid.
_MEMBER_BY_DN = {"member", "uniqueMember"}
GROUP_MEMBERSHIPS = (*sorted(_MEMBER_BY_DN), "memberUid", "memberOf")
# Result codes (RFC 4511) that say the server, not the person, is the problem.
_SERVER_TROUBLE = {51, 52, 80}  # busy, unavailable, other
_FOUND_SOME = {0, 4}  # success, sizeLimitExceeded (more entries than asked for)

log = logging.getLogger(__name__)


class _VerifiedTls(Tls):
    """ldap3's Tls, but with the standard library checking the host name during the handshake.

    ldap3 switches the context's own check off and calls ``ssl.match_hostname``, which is
    deprecated and gone from Python 3.12.
    """

    def wrap_socket(self, connection, do_handshake=False):
        context = ssl.create_default_context(cafile=self.ca_certs_file)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        connection.socket = context.wrap_socket(
            connection.socket,
            server_hostname=connection.server.host,
            do_handshake_on_connect=do_handshake,
        )


def check_settings(settings: dict | None) -> None:
    """Refuse, at start-up, settings that could only fail at someone's login.

    Raises ConfigurationError.
    """
    if not settings:
        return
    strategy = settings.get("group_membership") or DEFAULTS["group_membership"]
    if strategy not in GROUP_MEMBERSHIPS:
        raise ConfigurationError(
            f"LDAP: group_membership is {strategy!r}; use one of {', '.join(GROUP_MEMBERSHIPS)}."
        )


def authenticate(settings: dict, username: str, password: str) -> Identity:
    """Check ``username`` and ``password`` against the directory and return who they are.

    Raises LoginFailed (one message for every reason) when the password is empty or wrong, or
    the search finds no entry or several; DirectoryUnavailable when the server cannot be reached,
    does not answer in time, fails TLS verification or refuses the service account.
    """
    config = DEFAULTS | {key: value for key, value in (settings or {}).items() if value is not None}
    # A simple bind with an empty password is an unauthenticated bind, which "succeeds".
    if not username or not password:
        raise LoginFailed()
    with deadlines.within(float(config["deadline"])) as deadline:
        try:
            server = Server(
                config["url"],
                get_info=NONE,
                connect_timeout=config["connect_timeout"],
                tls=_VerifiedTls(
                    validate=ssl.CERT_REQUIRED, ca_certs_file=config["ca_file"] or None
                ),
            )
            directory = _connect(server, config, config["bind_dn"] or None, config["bind_password"])
            try:
                if not directory.bound:
                    raise _unavailable("the service bind was refused: %s", directory.result)
                entry = _find_user(directory, config, username)
                stored = _values(entry, config["username_attribute"])
                # The stored spelling, so that "Ada" and "ada" are one person with one record.
                subject = next(
                    (v for v in stored if v.casefold() == username.casefold()), stored[0]
                )
                _check_password(server, config, entry["dn"], password)
                groups = _groups(directory, config, entry, subject)
            finally:
                _close(directory)
        except Exception as error:
            # Whatever the ended socket made of the conversation (a closed connection, an
            # empty answer read as a refusal), it was the deadline.
            if deadline.expired:
                raise _too_slow(deadline.seconds) from None
            if isinstance(error, LDAPException | OSError):
                raise _unavailable("%s: %s", type(error).__name__, error) from None
            if _raised_by_ldap3(error):
                # ldap3 decodes what the server sent without checking it is LDAP: a web server
                # on the directory's port ends in a KeyError deep in its decoder.
                raise _unavailable(
                    "not an LDAP answer from %s (%s: %s)",
                    config["url"],
                    type(error).__name__,
                    error,
                ) from None
            raise
    return Identity(
        provider=PROVIDER,
        subject=subject,
        username=subject,
        display_name=_value(entry, config["name_attribute"]),
        email=_value(entry, config["email_attribute"]),
        groups=groups,
    )


def _raised_by_ldap3(error: BaseException) -> bool:
    """Whether ``error`` was raised inside ldap3's own code (its innermost frame), rather than
    in the portal's reading of what ldap3 returned."""
    trace = error.__traceback__
    if trace is None:
        return False
    while trace.tb_next is not None:
        trace = trace.tb_next
    module = trace.tb_frame.f_globals.get("__name__", "")
    return module == "ldap3" or module.startswith("ldap3.")


def _unavailable(detail: str, *args) -> DirectoryUnavailable:
    log.warning("LDAP login impossible: " + detail, *args)
    return DirectoryUnavailable(
        _("The institute directory is not answering right now. Try again in a few minutes.")
    )


def _too_slow(seconds: float) -> DirectoryUnavailable:
    log.warning("LDAP login given up: no complete answer within %g s", seconds)
    return DirectoryUnavailable(
        _(
            "The institute directory did not finish checking your login within %(seconds)s "
            "seconds. Try again in a few minutes.",
            seconds=format(seconds, "g"),
        )
    )


def _connect(server: Server, config: dict, dn: str | None, password: str | None) -> Connection:
    """Open a connection, upgrade it with StartTLS when configured, and bind (check ``bound``)."""
    conn = Connection(
        server,
        user=dn,
        password=password if dn else None,
        # ldap3 packs this into SO_RCVTIMEO as whole seconds and fails on a float.
        receive_timeout=max(1, math.ceil(float(config["receive_timeout"]))),
        raise_exceptions=False,
        auto_referrals=False,  # a referral could send the password to another server
        read_only=True,
    )
    # Ended at the login's deadline, whatever it waits for (the socket of the moment: StartTLS
    # replaces it).
    deadlines.watch(lambda: conn.socket)
    try:
        conn.open()
        if config["start_tls"] and not server.ssl:
            conn.start_tls()
        conn.bind()
    except BaseException:
        _close(conn)
        raise
    return conn


def _close(conn: Connection) -> None:
    try:
        conn.unbind()
    except (LDAPException, OSError):
        pass
    finally:
        # ldap3 leaves the socket open when opening the connection fails.
        if conn.socket is not None:
            conn.socket.close()


def _search(conn: Connection, base: str, search_filter: str, attributes, scope=SUBTREE, limit=0):
    """The entries found; noSuchObject counts as none, other failures as an unusable directory."""
    conn.search(base, search_filter, scope, attributes=attributes, size_limit=limit)
    code = conn.result["result"]
    if code == 32:  # noSuchObject: a misspelt base, or a dangling memberOf value
        log.warning("LDAP entry %r does not exist", base)
        return []
    if code not in _FOUND_SOME:
        raise _unavailable("search of %r for %s failed: %s", base, search_filter, conn.result)
    return [item for item in conn.response or () if item["type"] == "searchResEntry"]


def _find_user(conn: Connection, config: dict, username: str) -> dict:
    name_attribute = config["username_attribute"]
    template = config["user_filter"] or f"({name_attribute}={{username}})"
    search_filter = template.replace("{username}", escape_filter_chars(username))
    attributes = [name_attribute, config["name_attribute"], config["email_attribute"]]
    if config["group_membership"] == "memberOf":
        attributes.append("memberOf")  # operational in OpenLDAP: only sent when asked for
    # Two are enough to tell "exactly one" from "several".
    found = _search(conn, config["user_base"], search_filter, attributes, limit=2)
    if len(found) != 1 or not _values(found[0], name_attribute):
        if len(found) > 1:
            log.warning("LDAP filter %s matches several entries; refusing the login", search_filter)
        raise LoginFailed()
    return found[0]


def _check_password(server: Server, config: dict, dn: str, password: str) -> None:
    # A fresh connection: the search connection keeps its own (service or anonymous) identity.
    conn = _connect(server, config, dn, password)
    try:
        if conn.bound:
            return
        if conn.result["result"] in _SERVER_TROUBLE:
            raise _unavailable("bind as %s failed: %s", dn, conn.result)
        log.info("LDAP bind as %s refused: %s", dn, conn.result["description"])
        raise LoginFailed()
    finally:
        _close(conn)


def _groups(conn: Connection, config: dict, entry: dict, uid: str) -> tuple[str, ...]:
    strategy, name_attribute = config["group_membership"], config["group_name_attribute"]
    if strategy == "memberOf":
        names = [_group_name(conn, dn, name_attribute) for dn in _values(entry, "memberOf")]
    elif strategy in GROUP_MEMBERSHIPS:
        if not config["group_base"]:
            return ()
        member = entry["dn"] if strategy in _MEMBER_BY_DN else uid
        search_filter = f"({strategy}={escape_filter_chars(member)})"
        found = _search(conn, config["group_base"], search_filter, [name_attribute])
        names = [_value(group, name_attribute) for group in found]
    else:
        raise _unavailable("unknown group_membership %r", strategy)
    return tuple(sorted({name for name in names if name}))


def _group_name(conn: Connection, dn: str, name_attribute: str) -> str:
    """The group's name: its RDN value when that is the name attribute, else read from it."""
    attribute, value, _separator = parse_dn(dn)[0]
    # Escaped values (commas, non-ASCII) are left for the server to decode.
    if attribute.lower() == name_attribute.lower() and "\\" not in value:
        return value
    found = _search(conn, dn, "(objectClass=*)", [name_attribute], scope=BASE)
    return _value(found[0], name_attribute) if found else ""


def _values(entry: dict, attribute: str) -> list[str]:
    return [v.decode("utf-8", "replace") for v in entry["raw_attributes"].get(attribute, ())]


def _value(entry: dict, attribute: str) -> str:
    values = _values(entry, attribute)
    return values[0] if values else ""
