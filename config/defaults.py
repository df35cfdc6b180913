"""The portal's committed defaults.

Every setting the portal reads is listed here with its default and what it means. Operators
override them, in this order (later wins):

1. ``instance/portal.cfg`` (written by ``python -m app.instance``, which ``make run`` calls, with
   a random secret key);
2. the Python file named by the ``PORTAL_SETTINGS`` environment variable;
3. environment variables ``PORTAL_<NAME>``; values are parsed as JSON when they can be
   (``PORTAL_LOCAL_LOGIN_ENABLED=false``, ``PORTAL_LDAP={"url": ...}``), else taken as strings.

The README's configuration reference is generated from this file's comments (the comment block
above each setting, under its ``# --- Section ---`` heading): after a change, run
``python -m app.config_reference``; a test fails while the README is out of date.
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

# --- Language and time ----------------------------------------------------------------------------

# The language of people who chose none and whose browser asks for none the portal speaks:
# "en" (English) or "it" (Italiano). Each person can choose their own in the navigation bar.
DEFAULT_LOCALE = "en"

# The time zone dates and times are shown in to people who chose none on their Account page
# (an IANA name such as "Europe/Rome").
DEFAULT_TIMEZONE = "UTC"

# --- Sessions and cookies -----------------------------------------------------------------------

# Minutes of inactivity after which a login session expires.
SESSION_LIFETIME_MINUTES = 8 * 60

# Hours after which a login session ends however active it is; the person logs in again.
SESSION_ABSOLUTE_LIFETIME_HOURS = 7 * 24

# A session's "last seen" time is written, and an unchanged session's cookie signed anew, at
# most once per this many seconds.
SESSION_TOUCH_SECONDS = 60

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

# The fewest characters a local account's password may have, whether an operator sets it with
# `flask users ...` or the person changes it on their Account page.
PASSWORD_MIN_LENGTH = 12

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
#   "connect_timeout": 5, "receive_timeout": 10 # seconds, to connect and for each read
#   "deadline": 20                              # seconds for a whole login (binds, searches)
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
#   "timeout": 10                               # seconds to connect, and to answer; a whole
#                                               # answer (at most 1 MB) within twice that
# }
OIDC_PROVIDERS = []

# Refresh an access token when it expires within this many seconds.
OIDC_REFRESH_MARGIN_SECONDS = 120

# --- Roles --------------------------------------------------------------------------------------

# Groups (from LDAP or the OIDC groups claim) that grant a role. Roles granted with
# `flask users grant` add to these. Everyone who can log in has the role "user".
ROLE_GROUPS = {"admin": [], "operator": []}

# Groups whose managers are the members of other groups, read at each login as ROLE_GROUPS
# is: a group's name, then the groups whose members manage it. A manager sees the group's
# deployments and may extend or delete them, move or remove its requests in line, and set its
# members' limits and budgets inside its own; operators name more managers with
# `flask groups managers add GROUP USERNAME`.
# {"physics": ["physics-pi"]}
GROUP_MANAGER_GROUPS = {}

# --- Catalogue ----------------------------------------------------------------------------------

# The folder that seeds the catalogue on a fresh install (`flask catalogue import`).
CATALOGUE_DIR = ""  # empty: tosca-catalog/ beside the application

# The shipped copies of the INDIGO TOSCA types (described by versions.yaml there). They are
# registered as type libraries by `flask catalogue import`, and used to validate until any
# library is registered; templates are sent to the orchestrator with their imports untouched.
TOSCA_TYPES_DIR = ""  # empty: tosca-catalog/types/

# The most uncompressed type-file text an uploaded type library archive may hold, in bytes.
TYPE_LIBRARY_MAX_BYTES = 8 * 1024 * 1024

# The longest value a launch form accepts, in characters, for any input kind, and per kind
# where another maximum suits better (kinds: string, text (a string in a text area: a Helm
# values file, a cloud-init script, a kubeconfig; 64 KiB is OpenStack's user-data limit),
# password, ssh-key, version, timestamp, scalar-unit, list, map, yaml, ports, json,
# credential). Numbers are bounded by INPUT_MAX_DIGITS. Each maximum is stated in the form
# and refused in words on the server; a template's own default is never refused for length.
INPUT_MAX_LENGTH = 4096
INPUT_MAX_LENGTHS = {
    "string": 4096,
    "text": 65536,
    "password": 256,
    "version": 64,
    "timestamp": 64,
    "scalar-unit": 64,
    "ssh-key": 16384,
    "list": 16384,
    "map": 16384,
    "ports": 16384,
    "json": 16384,
    "yaml": 65536,
}
# Digits a whole number may have (far below Python's own limit, which gives a cryptic message).
INPUT_MAX_DIGITS = 30
# Characters the comment of an SSH public key may have ("user@host" or a short note).
SSH_KEY_COMMENT_MAX = 256

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

# --- Backends -----------------------------------------------------------------------------------

# The backend that deploys a catalogue template whose admin chose none (on its page, or with
# `backend:` in its sidecar): "paas" (the INDIGO PaaS Orchestrator) or "im" (the Infrastructure
# Manager). The portal refuses to start with any other name.
DEFAULT_BACKEND = "paas"

# --- Orchestrator -------------------------------------------------------------------------------

# Base URL of the INDIGO PaaS Orchestrator. "demo" uses the built-in emulator, for trying the
# portal without one: it deploys nothing real, and the pages say so (not those of templates and
# deployments on the Infrastructure Manager, which is real). Empty: none configured; the portal
# then refuses to start, except in DEVELOPMENT mode where it uses the demo.
ORCHESTRATOR_URL = ""

# Seconds to wait for the orchestrator to connect and answer: a (connect, read) pair or one
# number for both. The whole answer must arrive within their sum (an answer sent a byte at a
# time is given up then) and be at most 16 MB.
ORCHESTRATOR_TIMEOUT = (5, 30)

# The demo orchestrator makes a new deployment ready after this many status checks
# or this many seconds, whichever comes first, so that the whole cycle can be watched.
ORCHESTRATOR_DEMO_COMPLETE_AFTER_POLLS = 3
ORCHESTRATOR_DEMO_COMPLETE_AFTER_SECONDS = 20

# --- Infrastructure Manager ---------------------------------------------------------------------

# Base URL of the Infrastructure Manager's REST API (IM 2.0), the second place deployments can
# be made. Empty: none configured.
IM_URL = ""

# Seconds to wait for the Infrastructure Manager to connect and answer: a (connect, read) pair
# or one number for both. The whole answer must arrive within their sum and be at most 16 MB.
IM_TIMEOUT = (5, 30)

# IM's auth lines for the clouds it deploys to, one per cloud, sent with every call after the
# caller's own line: a list of strings, or one string with a line per cloud. They hold site
# credentials: they are never logged or shown.
# ["id = site; type = OpenStack; host = https://keystone.example.org:5000; ..."]
IM_CLOUDS = []

# The portal's own identity at IM, used for people who sign in locally or through LDAP (people
# who sign in through an OIDC provider call IM with their access token).
IM_USERNAME = ""
IM_PASSWORD = ""

# --- Deployment pages ---------------------------------------------------------------------------

# Deployments per page of the My deployments list.
DEPLOYMENTS_PAGE_SIZE = 25

# Seconds between two refreshes of a page showing a deployment in progress. The refresh reads
# the portal's database only; the sync worker and callbacks keep that current.
DEPLOYMENTS_POLL_SECONDS = 5

# --- API and access tokens ----------------------------------------------------------------------

# The longest lifetime, in days, a personal access token may be given.
API_TOKEN_MAX_DAYS = 365

# Deployments per page of the API's list when the caller names no size, and the most it may ask.
API_PAGE_SIZE = 25
API_PAGE_SIZE_MAX = 200

# Hours during which a repeated Idempotency-Key returns the first answer instead of acting again.
API_IDEMPOTENCY_HOURS = 24

# A client address whose tokens the API refused this many times within the window is refused
# before its token is looked at, until the window has passed (429 with Retry-After).
API_MAX_FAILURES_PER_ADDRESS = 30
API_THROTTLE_WINDOW_SECONDS = 5 * 60

# Calls a minute, for the whole site, to an identity provider's userinfo endpoint about access
# tokens the portal cannot read itself; a token it vouches for gives its call back; one address
# may spend a twentieth a minute, and a quarter is kept for addresses with no failed check that
# minute; answers are kept a minute per token, refusals for the API window.
API_PROVIDER_CHECKS_PER_MINUTE = 120

# Audience an identity provider's access token must name to be accepted by the API (as the
# orchestrator's own clients send them); empty: the provider's client_id.
API_OIDC_AUDIENCE = ""

# --- Quotas -------------------------------------------------------------------------------------

# What happens to a launch whose cost cannot be computed from its template (a node sized only by
# an unknown flavour, a size known only once deployed): "refuse" refuses it for anyone with a
# finite limit (on themselves or on the group pool charged), and lets people without limits
# through; "allow" lets everyone through, charging what could be counted.
QUOTA_UNCOUNTABLE_POLICY = "refuse"

# Sizes of the flavours (instance types) templates may name in `instance_type`, so that nodes
# sized by flavour can be counted. A mapping of flavour name to sizes, e.g.
# {"g5.large": {"cores": 4, "memory": "16 GB", "disk": "80 GB", "gpus": 1, "gpu_model": "A10"}}.
# Any key may be left out (counted as nothing). A template may also state the sizes of the
# flavours it names in its TOSCA metadata (`quota_flavours: "g5.large: 4 cores, 16 GB, 1 A10G
# GPU"`, see app/quotas/flavours.py); the sizes given here win over a template's.
QUOTA_FLAVOURS = {}

# Rows per page of the operators' lists of people: the quota list, and the usage page's tables
# of people and of groups (ranked by use).
QUOTA_USERS_PAGE_SIZE = 50

# --- Launching and keeping deployments current --------------------------------------------------

# The portal's own address as the orchestrator reaches it, e.g. "https://portal.example.org";
# callback URLs are built on it. Empty: the address of the request that launched (fine when
# no proxy rewrites it); launches from the command line then send no callback.
PORTAL_BASE_URL = ""

# When to send `userGroup` (the group a deployment is charged to) with a create: "always"
# (INFN Cloud's fork refuses creates without one; people with no group cannot launch),
# "never", or "when-member" (only when the person belongs to a group).
ORCHESTRATOR_USER_GROUP = "when-member"

# The identity the portal calls the orchestrator with for local and LDAP accounts (people who
# log in through an identity provider use their own token). None: such people cannot launch,
# and are told so. {"token": "..."} is a static token (tests); for production a client-
# credentials grant: {"issuer": "https://iam.example.org/", "client_id": "...",
# "client_secret": "...", "scope": "openid profile offline_access"}. The portal then keeps
# track itself of who owns which deployment.
ORCHESTRATOR_SERVICE_IDENTITY = None

# Steering options sent with every create (None: the orchestrator's default).
# keepLastAttempt keeps the resources of a failed last attempt, for debugging (they count
# against quotas); timeoutMins bounds the whole deployment, providerTimeoutMins each site
# tried, maxProvidersRetry how many sites are tried.
ORCHESTRATOR_KEEP_LAST_ATTEMPT = False
ORCHESTRATOR_TIMEOUT_MINS = 720
ORCHESTRATOR_PROVIDER_TIMEOUT_MINS = 240
ORCHESTRATOR_MAX_PROVIDERS_RETRY = 3

# (connect, read) seconds for the calls a person waits for: delete, reset, log, resources,
# template; the whole answer within their sum. Launches use ORCHESTRATOR_TIMEOUT.
ORCHESTRATOR_ACTION_TIMEOUT = (3, 10)

# Launches one person may start per minute; 0 for no limit.
LAUNCHES_PER_MINUTE = 5

# The worker's sync duty (`flask worker`). Deployments in progress are checked every
# DEPLOYMENTS_SYNC_INTERVAL_SECONDS; after failed checks the wait doubles each time, up to
# DEPLOYMENTS_SYNC_MAX_BACKOFF_SECONDS. Each identity's deployments are listed at the
# orchestrator every DEPLOYMENTS_SYNC_LIST_SECONDS (to adopt ones made elsewhere and notice
# vanished ones). At most DEPLOYMENTS_SYNC_CONCURRENCY calls run at once; a worker claims that
# many rows per turn (at most DEPLOYMENTS_SYNC_BATCH), so that several workers share the due
# rows, each claim lasting DEPLOYMENTS_SYNC_LEASE_SECONDS. The sync, leases, capacity and line
# duties each look for due work every DEPLOYMENTS_SYNC_TICK_SECONDS.
DEPLOYMENTS_SYNC_INTERVAL_SECONDS = 15
DEPLOYMENTS_SYNC_MAX_BACKOFF_SECONDS = 600
DEPLOYMENTS_SYNC_LIST_SECONDS = 300
DEPLOYMENTS_SYNC_CONCURRENCY = 16
DEPLOYMENTS_SYNC_BATCH = 200
DEPLOYMENTS_SYNC_LEASE_SECONDS = 120
DEPLOYMENTS_SYNC_TICK_SECONDS = 5

# A launch whose answer was lost is matched with the orchestrator's record by the sync worker;
# with no match after this many seconds it is marked "not launched". A launch still waiting
# for its answer after DEPLOYMENTS_SUBMITTING_STALE_SECONDS is taken as interrupted.
DEPLOYMENTS_UNCONFIRMED_GRACE_SECONDS = 300
DEPLOYMENTS_SUBMITTING_STALE_SECONDS = 120

# --- Notifications and e-mail -------------------------------------------------------------------

# The SMTP server notification mails go through. Empty: no e-mail at all; notifications are
# shown in the portal only (the menu in the navigation bar and its page). When set,
# MAIL_DEFAULT_SENDER and PORTAL_BASE_URL must be set too (mails link to the portal). Check the
# settings with `flask notifications send-test ADDRESS`.
MAIL_SERVER = ""
MAIL_PORT = 25

# STARTTLS after connecting (usually port 587), or TLS from the first byte (usually port 465);
# not both.
MAIL_USE_TLS = False
MAIL_USE_SSL = False

# The login at the mail server; empty for none.
MAIL_USERNAME = ""
MAIL_PASSWORD = ""

# The From of every mail, e.g. "Research Cloud Portal <cloud@example.org>".
MAIL_DEFAULT_SENDER = ""

# Seconds to wait for the mail server at each step of the conversation before the attempt
# counts as failed (and is retried).
MAIL_TIMEOUT = 30

# Seconds one mail's whole conversation (connecting, TLS, login, sending) may take: a server
# that answers a byte now and then is given up at this time, and the mail retried later.
MAIL_DEADLINE = 60

# The worker's mail duty (`flask worker`, which `make run` starts) looks for due mails every
# NOTIFICATIONS_SEND_TICK_SECONDS and sends up to NOTIFICATIONS_SEND_BATCH per pass, each claimed
# for NOTIFICATIONS_CLAIM_SECONDS (other workers skip it meanwhile; keep it well above the
# batch's sending time). A failed attempt is retried after NOTIFICATIONS_RETRY_SECONDS, the
# wait doubling each time up to NOTIFICATIONS_RETRY_MAX_SECONDS; after NOTIFICATIONS_MAX_ATTEMPTS
# attempts the mail is given up and listed for operators under Notifications -> Undelivered
# mail.
NOTIFICATIONS_SEND_TICK_SECONDS = 5
NOTIFICATIONS_SEND_BATCH = 50
NOTIFICATIONS_CLAIM_SECONDS = 600
NOTIFICATIONS_RETRY_SECONDS = 60
NOTIFICATIONS_RETRY_MAX_SECONDS = 3600
NOTIFICATIONS_MAX_ATTEMPTS = 8
# --- Leases ---------------------------------------------------------------------------------------

# The expiry pass of the sync worker claims due leases in batches of this many rows. A delete
# at expiry the orchestrator did not take is tried again after LEASES_DELETE_RETRY_MINUTES
# (the deployment is listed as stuck in deleting meanwhile). Lease policies themselves are set
# in the browser or with `flask leases set`, not here.
LEASES_BATCH = 200
LEASES_DELETE_RETRY_MINUTES = 15

# A file holding a number of seconds that every process naming it adds to the system clock
# (see app/clock.py), so that tests and demos move time for several processes at once. Never
# set it in production. Empty: the system clock.
CLOCK_OFFSET_FILE = ""
# --- Capacity -------------------------------------------------------------------------------------

# Where the portal reads what each site has free, as a JSON list (env PORTAL_CAPACITY_SOURCES)
# of objects, each with "kind" ("fedreg": a Federation Registry read with the service
# identity's token, "im": the Infrastructure Manager's quotas of every IM site, or
# "cluster-stats": statistics in the shape of AI4OS PAPI's stats/cluster), "url", and for
# "cluster-stats" the "site" its numbers describe; optional "timeout" (seconds to answer; to
# connect, at most 5; the whole answer, at most 16 MB, within both added up) and for "fedreg"
# "user_group" and "idp_endpoint". Empty: no capacity is known.
CAPACITY_SOURCES = []
# The sync worker reads each source again this many seconds after its last read (failed or not).
CAPACITY_REFRESH_SECONDS = 120
# A site's numbers older than this many minutes (on the portal's clock) are stale: verdicts
# that lean on them say "may not fit", never refuse.
CAPACITY_STALE_MINUTES = 15
# GPU model names a source reports that the naming rule (app/capacity/gpu_names.py) cannot
# turn into the names quotas and templates use, as a JSON map from the reported name to the
# portal's ("NVIDIA RTX A6000": "A6000"). Matched without regard to case.
GPU_MODEL_NAMES = {}

# --- Waiting in line --------------------------------------------------------------------------

# A launch that does not fit only because running deployments hold the resources it needs (the
# group's pool or the person's own limit) may wait in line instead of being refused (README,
# "Waiting in line"); False turns the offer off. A request waits at most LINE_MAX_WAIT (a
# duration written as leases write them: 90m, 8h, 3d), then it is dropped with a notice.
LINE_ENABLED = True
LINE_MAX_WAIT = "3d"
# The fair-share rule: each GPU-hour a person's deployments held in the last
# LINE_FAIR_SHARE_WINDOW moves their new request back by LINE_FAIR_SHARE_MINUTES_PER_GPU_HOUR
# minutes in its line, never by more than LINE_FAIR_SHARE_MAX_DELAY (the ageing bound: no
# request waits behind one that arrived longer than that after it). False: first come, first
# served.
LINE_FAIR_SHARE = True
LINE_FAIR_SHARE_WINDOW = "7d"
LINE_FAIR_SHARE_MINUTES_PER_GPU_HOUR = 1
LINE_FAIR_SHARE_MAX_DELAY = "4h"
# The admission pass of the sync worker starts at most this many waiting requests per pass.
LINE_ADMIT_BATCH = 50

# --- Metrics ------------------------------------------------------------------------------------

# Bearer token that opens /metrics (Prometheus format) to clients other than this host; they
# send "Authorization: Bearer <token>". Empty means loopback clients only. Behind a reverse proxy
# on the same host, set PROXY_FIX, or every client would look local.
METRICS_TOKEN = ""
