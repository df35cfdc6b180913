"""The portal's committed defaults.

Every setting the portal reads is listed here with its default and what it means. Operators
override them, in this order (later wins):

1. ``instance/portal.cfg`` (written by ``flask portal init`` with a random secret key);
2. the Python file named by the ``PORTAL_SETTINGS`` environment variable;
3. environment variables ``PORTAL_<NAME>``; values are parsed as JSON when they can be
   (``PORTAL_LOCAL_LOGIN_ENABLED=false``, ``PORTAL_LDAP={"url": ...}``), else taken as strings.

The README's configuration reference is generated from this file's comments; keep them current.
"""

# --- Core ---------------------------------------------------------------------------------------

# Development mode relaxes two production safeguards: the default secret key is accepted and the
# session cookie may travel over plain HTTP. Never enable it on a public host.
DEVELOPMENT = False

# Signs sessions and CSRF tokens and derives the key that encrypts stored OIDC tokens. Outside
# development mode the portal refuses to start while this is the default.
SECRET_KEY = "change-me"

# Key for encrypting identity-provider tokens at rest (a Fernet key, urlsafe base64 of 32 bytes).
# Empty means "derived from SECRET_KEY"; set it to rotate the secret key without losing tokens.
TOKEN_ENCRYPTION_KEY = ""

# SQLAlchemy database URL. Empty means SQLite in the instance folder (instance/portal.sqlite).
# PostgreSQL: "postgresql+psycopg://user:password@host:5432/portal".
SQLALCHEMY_DATABASE_URI = ""

# How many reverse proxies stand in front of the portal and set X-Forwarded-For/-Proto/-Host.
# 0 trusts no such header (the right value when gunicorn is reached directly).
PROXY_FIX = 0

# The portal's name as shown in the navigation bar and page titles.
PORTAL_NAME = "Research Cloud Portal"

# --- Sessions and cookies -----------------------------------------------------------------------

# Minutes of inactivity after which a login session expires.
SESSION_LIFETIME_MINUTES = 8 * 60

# Whether cookies are sent over HTTPS only. None means: yes, unless DEVELOPMENT is on. Cookies
# are HttpOnly always, and SameSite as set here.
SESSION_COOKIE_SECURE = None
SESSION_COOKIE_SAMESITE = "Lax"

# How long a form's CSRF token stays valid, in seconds.
WTF_CSRF_TIME_LIMIT = 4 * 3600

# --- Login throttling ---------------------------------------------------------------------------

# After this many failed logins for one account, or from one address, within the window,
# further attempts are refused until the window has passed.
LOGIN_MAX_FAILURES_PER_ACCOUNT = 5
LOGIN_MAX_FAILURES_PER_ADDRESS = 20
LOGIN_THROTTLE_WINDOW_SECONDS = 15 * 60

# --- Local accounts -----------------------------------------------------------------------------

# Accounts stored in the portal's database, managed with `flask users ...`. Switch off in
# production when every user comes from LDAP or an identity provider.
LOCAL_LOGIN_ENABLED = True

# --- LDAP ---------------------------------------------------------------------------------------

# None disables LDAP login. Otherwise a mapping:
# {
#   "label": "Institute account",               # shown on the login page
#   "url": "ldaps://ldap.example.org:636",      # ldap:// or ldaps://
#   "start_tls": False,                         # upgrade ldap:// with StartTLS
#   "ca_file": "/etc/ssl/certs/ca.pem",         # CA bundle for ldaps/StartTLS (verification is on)
#   "bind_dn": "cn=portal,dc=example,dc=org",   # optional service bind; empty = anonymous search
#   "bind_password": "...",
#   "user_base": "ou=people,dc=example,dc=org",
#   "user_filter": "(&(objectClass=inetOrgPerson)(uid={username}))",  # {username} is escaped
#   "name_attribute": "cn", "email_attribute": "mail", "username_attribute": "uid",
#   "group_base": "ou=groups,dc=example,dc=org",
#   "group_membership": "member",               # "member" (groupOfNames), "uniqueMember"
#                                               # (groupOfUniqueNames), "memberUid" (posixGroup)
#                                               # or "memberOf" (on the user entry)
#   "group_name_attribute": "cn",
#   "connect_timeout": 5, "receive_timeout": 10 # seconds
# }
LDAP = None

# --- OpenID Connect -----------------------------------------------------------------------------

# A list of identity providers; each a mapping:
# {
#   "name": "iam",                              # short id used in URLs
#   "label": "INDIGO IAM",                      # shown on the login button
#   "issuer": "https://iam.example.org/",       # <issuer>/.well-known/openid-configuration
#   "client_id": "...", "client_secret": "...",
#   "scopes": "openid profile email offline_access",  # offline_access: the orchestrator needs it
#   "groups_claim": "groups",                   # or "wlcg.groups", "eduperson_entitlement"
#   "timeout": 10                               # seconds for calls to the provider
# }
OIDC_PROVIDERS = []

# Refresh an access token when it expires within this many seconds.
OIDC_REFRESH_MARGIN_SECONDS = 120

# --- Roles --------------------------------------------------------------------------------------

# Groups (from LDAP or the OIDC groups claim) that grant a role. Roles granted with
# `flask users grant` add to these. Everyone who can log in has the role "user".
ROLE_GROUPS = {"admin": [], "operator": []}

# --- Catalogue ----------------------------------------------------------------------------------

# The folder that seeds the catalogue on a fresh install (`flask catalogue import`).
CATALOGUE_DIR = ""  # empty: tosca-catalog/ beside the application

# Local copies of the TOSCA type definitions that templates import by URL, used only to
# validate; templates are sent to the orchestrator with their imports untouched.
TOSCA_TYPES_DIR = ""  # empty: tosca-catalog/types/

# Limits applied when a template is read.
TEMPLATE_MAX_BYTES = 512 * 1024
TEMPLATE_MAX_DEPTH = 40
TEMPLATE_MAX_ALIASES = 50

# Cards shown at once on the catalogue page; "Show more" loads the next ones. Search and tag
# filters are the way through a large catalogue.
CATALOGUE_PAGE_SIZE = 48

# Request size limits. A form may carry a template and its sidecar at their largest, so the
# form limit is well above TEMPLATE_MAX_BYTES: an over-long template is then refused with the
# template's own message, and the admin's text is kept.
MAX_CONTENT_LENGTH = 4 * 1024 * 1024
MAX_FORM_MEMORY_SIZE = 2 * 1024 * 1024

# Seconds between checks for catalogue changes made by another worker process.
CATALOGUE_RELOAD_SECONDS = 2

# --- Orchestrator -------------------------------------------------------------------------------

# Base URL of the INDIGO PaaS Orchestrator. "demo" uses the built-in emulator, for trying the
# portal without one.
ORCHESTRATOR_URL = "demo"

# Seconds to wait for the orchestrator to connect and answer.
ORCHESTRATOR_TIMEOUT = (5, 30)

# The demo orchestrator moves a new deployment to CREATE_COMPLETE after this many status checks
# or this many seconds, whichever comes first, so that the whole cycle can be watched.
ORCHESTRATOR_DEMO_COMPLETE_AFTER_POLLS = 3
ORCHESTRATOR_DEMO_COMPLETE_AFTER_SECONDS = 20

# --- Deployments --------------------------------------------------------------------------------

# Minimum seconds between two status checks of one deployment with the orchestrator, however
# many pages are open on it. Pages render from the database and never wait for the orchestrator.
DEPLOYMENTS_RECHECK_SECONDS = 2
