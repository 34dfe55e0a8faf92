"""KIP-1324 (client configuration push) for kafka-python 3.0.12, written from the KIP text alone.

Not a fork: the library's own classes are subclassed at the connection layer.

- ``KafkaProducer``, ``KafkaConsumer`` and ``KafkaAdminClient`` here are the library's classes
  with the KIP's client configs added (kafka-python spelling): ``enable_config_push`` (default
  True), ``config_push_allowed_keys`` (comma-separated Java names, or a list; default: the
  client type's default list), ``retry_backoff_max_ms`` (1000) and, for consumer and admin,
  ``default_api_timeout_ms`` (60000), which kafka-python does not have. They hand the library a
  ``kafka_client`` factory (a documented kafka-python extension point) whose connection manager
  carries one :class:`ConfigPush` per client instance.
- ``kafka.net.manager.KafkaConnection`` is replaced by :class:`KIP1324Connection`, a subclass
  whose ``initialize`` runs ApiVersions and SASL as the library does, then the PushConfig
  handshake, then lets the connection's buffered (user) requests go. A connection whose manager
  has no :class:`ConfigPush` (a client made with the library's own classes) behaves exactly as
  stock.

What the handshake does (KIP-1324 "Client Behavior"; readings of the digest's §6 where the KIP
is ambiguous, each marked):
- after ApiVersions (and SASL), if ``enable_config_push`` and the broker advertises PushConfig
  version 0, send one PushConfig with the selected non-sensitive keys; once per client instance,
  not per connection or broker (A8); a reconnect does not repeat a finished handshake;
- keys: ``config_push_allowed_keys`` replaces the default list; it is not sent itself unless
  listed; duplicates are sent once (A13); the KIP's sensitive keys (``sasl.``/``security.``/
  ``ssl.`` prefixes and infixes, ``.class``/``.classes`` suffixes, CLASS and PASSWORD types) and
  keys kafka-python does not define (custom configuration) are dropped with a warning; a null
  value is omitted (A12); if nothing is left, no request is sent;
- ConfigKey is the Java name (the KIP's lists use them), ConfigType the ``ConfigDef.Type``
  ordinal (A2; the older enum on request), ConfigValue rendered like
  ``ConfigDef.convertToString``, IsDefault true iff the user did not set the key (A15);
- the request is kept within ``client.config.max.bytes`` (10240, A4) measured as the request
  body (A3) by dropping entries from the end;
- errors: success completes; a retriable error (``kafka.errors`` ``retriable``; disconnects and
  request timeouts) is retried after ``retry_backoff_ms`` doubling up to ``retry_backoff_max_ms``
  with ±20 % jitter, and not before ``ThrottleTimeMs``; CONFIG_TOO_LARGE (provisional 137),
  INVALID_CONFIG and every other error are logged with the ErrorMessage and not retried;
- deadline (A7): ``default_api_timeout_ms`` (consumer, admin) or ``max_block_ms`` (producer) from
  the handshake's first PushConfig ("the PushConfig RPC specifies a fixed timeout"), for the
  producer extended to ``max_block_ms`` from each ``send()`` that waits ("blocks up to
  max.block.ms", counted from the call); at the deadline the handshake is abandoned, logged, and
  user requests go (best effort: the client keeps working).
"""

import json
import logging
import random
import re
import threading
import time

import kafka
import kafka.errors as Errors
import kafka.net.manager as _manager_mod
from kafka.future import Future
from kafka.net.compat import KafkaNetClient
from kafka.net.connection import KafkaConnection
from kafka.net.manager import KafkaConnectionManager
from kafka.net.selector import NetworkSelector
from kafka.protocol.api_message import ApiMessage

log = logging.getLogger("kip1324")

# PROVISIONAL wire numbers (the KIP gives "apiKey": NEXT and no error code).
PUSH_CONFIG_API_KEY = 95
CONFIG_TOO_LARGE = 137
INVALID_CONFIG = 40
CLIENT_CONFIG_MAX_BYTES = 10240

# org.apache.kafka.common.config.ConfigDef.Type ordinals (the newest KIP text).
BOOLEAN, STRING, INT, SHORT, LONG, DOUBLE, LIST, CLASS, PASSWORD = range(9)
_OLDER_KIP_ENUM = {BOOLEAN: 0, STRING: 1, SHORT: 2, INT: 3, LONG: 4, DOUBLE: 5, LIST: 6}

# Default keys per client type (KIP-1324 newest text). The producer and Streams lists are elided
# in the KIP: empty unless the caller supplies one.
DEFAULT_KEYS = {
    "producer": [],
    "consumer": [
        "auto.offset.reset", "client.id", "enable.auto.commit", "fetch.min.bytes",
        "fetch.max.wait.ms", "group.id", "isolation.level", "max.poll.interval.ms",
        "max.poll.records", "request.timeout.ms", "session.timeout.ms",
    ],
    "admin": ["client.id", "request.timeout.ms", "retries"],
}

# The configuration kafka-python defines, by Java name: (kafka-python name, ConfigDef.Type of the
# Java key). A Java key missing here is not a kafka-python configuration ("custom" to this client).
_COMMON = {
    "bootstrap.servers": ("bootstrap_servers", LIST),
    "client.id": ("client_id", STRING),
    "request.timeout.ms": ("request_timeout_ms", INT),
    "retry.backoff.ms": ("retry_backoff_ms", LONG),
    "retry.backoff.max.ms": ("retry_backoff_max_ms", LONG),
    "reconnect.backoff.ms": ("reconnect_backoff_ms", LONG),
    "reconnect.backoff.max.ms": ("reconnect_backoff_max_ms", LONG),
    "connections.max.idle.ms": ("connections_max_idle_ms", LONG),
    "max.in.flight.requests.per.connection": ("max_in_flight_requests_per_connection", INT),
    "receive.buffer.bytes": ("receive_buffer_bytes", INT),
    "send.buffer.bytes": ("send_buffer_bytes", INT),
    "metadata.max.age.ms": ("metadata_max_age_ms", LONG),
    "client.dns.lookup": ("client_dns_lookup", STRING),
    "metrics.num.samples": ("metrics_num_samples", INT),
    "metrics.sample.window.ms": ("metrics_sample_window_ms", LONG),
    "metric.reporters": ("metric_reporters", LIST),
    "security.protocol": ("security_protocol", STRING),
    "sasl.mechanism": ("sasl_mechanism", STRING),
    "sasl.kerberos.service.name": ("sasl_kerberos_service_name", STRING),
    "ssl.truststore.location": ("ssl_cafile", STRING),
    "ssl.keystore.location": ("ssl_certfile", STRING),
    "ssl.key.password": ("ssl_password", PASSWORD),
    "ssl.cipher.suites": ("ssl_ciphers", LIST),
    "enable.config.push": ("enable_config_push", BOOLEAN),
    "config.push.allowed.keys": ("config_push_allowed_keys", LIST),
}
DEFINITIONS = {
    "producer": {
        **_COMMON,
        "acks": ("acks", STRING),
        "compression.type": ("compression_type", STRING),
        "retries": ("retries", INT),
        "batch.size": ("batch_size", INT),
        "linger.ms": ("linger_ms", LONG),
        "max.block.ms": ("max_block_ms", LONG),
        "max.request.size": ("max_request_size", INT),
        "delivery.timeout.ms": ("delivery_timeout_ms", INT),
        "enable.idempotence": ("enable_idempotence", BOOLEAN),
        "transactional.id": ("transactional_id", STRING),
        "transaction.timeout.ms": ("transaction_timeout_ms", INT),
        "key.serializer": ("key_serializer", CLASS),
        "value.serializer": ("value_serializer", CLASS),
    },
    "consumer": {
        **_COMMON,
        "group.id": ("group_id", STRING),
        "group.instance.id": ("group_instance_id", STRING),
        "client.rack": ("client_rack", STRING),
        "key.deserializer": ("key_deserializer", CLASS),
        "value.deserializer": ("value_deserializer", CLASS),
        "fetch.max.wait.ms": ("fetch_max_wait_ms", INT),
        "fetch.min.bytes": ("fetch_min_bytes", INT),
        "fetch.max.bytes": ("fetch_max_bytes", INT),
        "max.partition.fetch.bytes": ("max_partition_fetch_bytes", INT),
        "auto.offset.reset": ("auto_offset_reset", STRING),
        "enable.auto.commit": ("enable_auto_commit", BOOLEAN),
        "auto.commit.interval.ms": ("auto_commit_interval_ms", INT),
        "check.crcs": ("check_crcs", BOOLEAN),
        "isolation.level": ("isolation_level", STRING),
        "allow.auto.create.topics": ("allow_auto_create_topics", BOOLEAN),
        "max.poll.records": ("max_poll_records", INT),
        "partition.assignment.strategy": ("partition_assignment_strategy", LIST),
        "max.poll.interval.ms": ("max_poll_interval_ms", INT),
        "session.timeout.ms": ("session_timeout_ms", INT),
        "heartbeat.interval.ms": ("heartbeat_interval_ms", INT),
        "exclude.internal.topics": ("exclude_internal_topics", BOOLEAN),
        "default.api.timeout.ms": ("default_api_timeout_ms", INT),
    },
    "admin": {
        **_COMMON,
        "default.api.timeout.ms": ("default_api_timeout_ms", INT),
    },
}

_SENSITIVE_PREFIXES = ("sasl.", "security.", "ssl.")
_SENSITIVE_INFIXES = (".sasl.", ".security.", ".ssl.")
_SENSITIVE_SUFFIXES = (".class", ".classes")


def sensitive_reason(key, config_type):
    """Why the KIP calls ``key`` sensitive (never sent), or None."""
    if key.startswith(_SENSITIVE_PREFIXES):
        return "security-related prefix"
    if any(i in key for i in _SENSITIVE_INFIXES):
        return "security-related infix"
    if key.endswith(_SENSITIVE_SUFFIXES):
        return "class name suffix"
    if config_type is None:
        return "custom configuration (not defined by kafka-python)"
    if config_type == CLASS:
        return "type CLASS"
    if config_type == PASSWORD:
        return "type PASSWORD"
    return None


# Null kafka-python values that Java spells out: compression "none" is None in kafka-python.
_JAVA_NULL_SPELLING = {"compression_type": "none"}


def render(value, config_type, name=None):
    """ConfigValue as ``ConfigDef.convertToString`` writes it; None for a null value."""
    if value is None:
        return _JAVA_NULL_SPELLING.get(name)
    if isinstance(value, bool):
        return "true" if value else "false"
    if config_type == LIST:
        items = value.split(",") if isinstance(value, str) else list(value)
        # kafka-python takes classes in some lists (assignors, reporters): their dotted names
        items = [f"{i.__module__}.{i.__qualname__}" if isinstance(i, type) else str(i).strip()
                 for i in items]
        return ",".join(i for i in items if i)
    if isinstance(value, float) and config_type in (INT, SHORT, LONG):
        return str(int(value))
    return str(value).strip() if isinstance(value, str) else str(value)


def parse_allowed_keys(value):
    """The override list: comma-separated (or a list), trimmed, empty items dropped."""
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    return [i.strip() for i in items if i.strip()]


# --- the PushConfig messages (kafka-python's own JSON-schema message classes) ----------------

_MESSAGES = {}


def push_config_messages(api_key=PUSH_CONFIG_API_KEY):
    """PushConfigRequest/Response classes for ``api_key`` (the schemas in this package)."""
    if api_key in _MESSAGES:
        return _MESSAGES[api_key]

    def patch(_metacls, schema):
        return {**schema, "apiKey": api_key}

    req = type("PushConfigRequest", (ApiMessage,), {"json_patch": staticmethod(patch)},
               load_json=__name__)
    resp = type("PushConfigResponse", (ApiMessage,), {"json_patch": staticmethod(patch)},
                load_json=__name__)
    _MESSAGES[api_key] = (req, resp)
    return req, resp


def request_body_size(request):
    """Bytes of the request after its header (what ``client.config.max.bytes`` measures, A3)."""
    request.with_header(correlation_id=0, client_id="")
    framed = request.encode(framed=True, header=True)
    header = request.encode_header(flexible=True)
    return len(framed) - 4 - len(header)


# --- one handshake per client instance --------------------------------------------------------


class ConfigPush:
    """The handshake state of one client instance, shared by all its connections."""

    def __init__(self, client_type, configs, user_keys, *, enabled=True, allowed_keys=None,
                 default_keys=None, numbering="config_def_type", api_key=PUSH_CONFIG_API_KEY,
                 config_too_large=CONFIG_TOO_LARGE, max_bytes=CLIENT_CONFIG_MAX_BYTES,
                 retry_backoff_ms=100, retry_backoff_max_ms=1000, deadline_ms=60000,
                 request_timeout_ms=30000, request_timeout="disconnect",
                 size_measure="request_body"):
        self.client_type = client_type
        self.configs = configs
        self.user_keys = set(user_keys)
        self.enabled = enabled
        self.allowed_keys = allowed_keys
        self.default_keys = default_keys
        self.numbering = numbering
        self.api_key = api_key
        self.config_too_large = config_too_large
        self.max_bytes = max_bytes
        self.retry_backoff_ms = retry_backoff_ms
        self.retry_backoff_max_ms = max(retry_backoff_max_ms, 0)
        self.deadline_ms = deadline_ms
        self.request_timeout_ms = request_timeout_ms
        # After a PushConfig times out: "disconnect" (kafka-python's own handling of a request
        # timeout: it closes the connection) or "keep" (retry on the same connection).
        self.request_timeout = request_timeout
        # What the byte budget measures (A3): the request body, or only its Configs array.
        self.size_measure = size_measure
        self.state = "idle" if enabled else "disabled"
        self.attempts = 0
        self.failures = 0
        self.retry_not_before = 0.0
        self.entries = None
        self._request = None
        self.net = None
        # The handshake deadline: deadline_ms after its first PushConfig (the RPC's timeout),
        # later if a producer's waiting send() needs it; None until the handshake starts.
        self._deadline_at = None
        self._hold_until = 0.0  # the latest send() deadline seen before the handshake started
        self._gate = Future()
        self._owner = None  # the connection running the handshake
        self.ready = threading.Event()  # a connection finished its setup (handshake included)
        self.done = threading.Event()  # the handshake is over (any outcome)
        if not enabled:
            self._finish("disabled", "enable.config.push is false: handshake skipped")

    # lifecycle -----------------------------------------------------------------------------

    def attach(self, net):
        """Called by the manager: the client's IO loop, where the deadline timers run."""
        self.net = net

    def prepare(self):
        """Selects the entries once the configuration is complete (they depend on no broker):
        with nothing to send the handshake is skipped now, so no user request waits for it."""
        if self.done.is_set():
            return
        self.entries = self.select()
        if not self.entries:
            self._finish("skipped", "every key is sensitive or null: nothing sent")

    def _sent(self, fut):
        """A PushConfig was just written (on the IO loop): the first one arms the deadline.
        Returns a list that gets the time its answer or failure arrives."""
        if self._deadline_at is None:
            self._deadline_at = max(time.monotonic() + self.deadline_ms / 1000, self._hold_until)
            self.net.call_at(self._deadline_at, self._deadline_passed)
        outcome_at = []
        fut.add_both(lambda _v: outcome_at.append(time.monotonic()))
        return outcome_at

    def note_user_request(self):
        """An application request starts waiting; returns the monotonic time at which it stops
        waiting at the latest (None: at the handshake's end). A producer's send() "blocks up
        to max.block.ms" from its call, and the handshake goes on at least that long."""
        if self.client_type != "producer" or self.done.is_set():
            return None
        until = time.monotonic() + self.deadline_ms / 1000
        if self.net is not None:  # called from the application's thread: hand it over
            try:
                self.net.call_soon_threadsafe(lambda: self._extend(until))
            except RuntimeError:  # the client's IO loop is closed: nothing left to hold
                pass
        else:
            self._hold_until = max(self._hold_until, until)
        return until

    def _extend(self, until):
        if self._deadline_at is None:
            self._hold_until = max(self._hold_until, until)
        elif until > self._deadline_at:
            self._deadline_at = until
            self.net.call_at(until, self._deadline_passed)

    def user_request_gate(self):
        """A predicate: may an application request arriving now proceed?"""
        until = self.note_user_request()
        return lambda: self.released() or (until is not None and time.monotonic() >= until)

    def _deadline_passed(self):
        if time.monotonic() < self._deadline_at - 0.001:
            return  # extended by a later send(); its own timer is armed
        if self.state == "pending":
            self._finish("abandoned", "deadline of %d ms passed after %d attempt(s)"
                         % (self.deadline_ms, self.attempts), level=logging.ERROR)

    def _finish(self, state, why, level=logging.INFO):
        if self.done.is_set():
            return
        self.state = state
        log.log(level, "KIP-1324 handshake %s: %s", state, why)
        self.done.set()
        if not self._gate.is_done:
            self._gate.success(state)

    def released(self):
        """True once an application request no longer waits for the handshake: it is over
        (completed, rejected, abandoned at the deadline, skipped or disabled), or none has
        started and a connection finished its setup (a broker without PushConfig)."""
        return self.done.is_set() or (self.ready.is_set() and self.state != "pending")

    # entries --------------------------------------------------------------------------------

    def wire_type(self, config_type):
        if self.numbering == "older_kip_enum":
            return _OLDER_KIP_ENUM.get(config_type)
        return config_type

    def select(self):
        """The Configs entries: [(key, value, type, is_default)] after every KIP filter."""
        defs = DEFINITIONS.get(self.client_type, _COMMON)
        if self.allowed_keys is not None:
            keys = self.allowed_keys
        elif self.default_keys is not None:
            keys = self.default_keys
        else:
            keys = DEFAULT_KEYS.get(self.client_type, [])
        entries, seen = [], set()
        for key in keys:
            if key in seen:
                continue
            seen.add(key)
            name, ctype = defs.get(key, (None, None))
            if name is not None and name not in self.configs:
                name, ctype = None, None  # the Java key maps to nothing this client has
            why = sensitive_reason(key, ctype)
            if why is not None:
                log.warning("KIP-1324: config %s is not sent (%s)", key, why)
                continue
            value = render(self.configs.get(name), ctype, name)
            if value is None:
                log.info("KIP-1324: config %s is null, omitted", key)
                continue
            wire = self.wire_type(ctype)
            if wire is None:
                log.warning("KIP-1324: config %s has no ConfigType number, not sent", key)
                continue
            entries.append((key, value, wire, name not in self.user_keys))
        return entries

    def build_request(self):
        """The PushConfigRequest within the byte budget, or None when there is nothing to send."""
        if self.entries is None:
            self.entries = self.select()
        req_cls, _ = push_config_messages(self.api_key)
        entries = list(self.entries)
        while entries:
            req = req_cls(version=0, configs=[
                req_cls.Config(config_key=k, config_value=v, config_type=t, is_default=d)
                for (k, v, t, d) in entries])
            size = request_body_size(req) - (1 if self.size_measure == "configs_array" else 0)
            if size <= self.max_bytes:
                return req
            dropped = entries.pop()
            log.warning("KIP-1324: config %s dropped to fit client.config.max.bytes %d (was %d)",
                        dropped[0], self.max_bytes, size)
        return None

    def backoff_secs(self):
        if self.retry_backoff_max_ms <= self.retry_backoff_ms:
            # No exponential range: exactly retry.backoff.ms, as the Java clients'
            # ExponentialBackoff does (no jitter when its exponent range is 0).
            return self.retry_backoff_ms / 1000
        term = min(self.retry_backoff_ms * 2 ** (self.failures - 1), self.retry_backoff_max_ms)
        return min(term * random.uniform(0.8, 1.2), self.retry_backoff_max_ms) / 1000

    # the handshake on one connection --------------------------------------------------------

    def supported(self, conn):
        bvd = conn.broker_version_data
        versions = getattr(bvd, "api_versions", None) or {}
        lo, hi = versions.get(self.api_key, (None, None))
        return lo is not None and lo <= 0 <= hi

    async def on_connection_ready(self, conn):
        """Runs between ApiVersions/SASL and the connection's first buffered request. While
        another connection runs the handshake, this one waits for its end (or for that
        connection to drop, and then may take the handshake over)."""
        while not self.done.is_set():
            owner = self._owner
            if owner is not None and owner is not conn and not owner.closed:
                await self._wait(owner.close_future)
                continue
            if not self.supported(conn):
                log.info("KIP-1324: %s does not advertise PushConfig v0; no handshake there",
                         conn)
                return
            self._owner = conn
            self.state = "pending"
            try:
                await self._run(conn)
            finally:
                if self._owner is conn:
                    self._owner = None
            return

    async def _sleep_until(self, at):
        f = Future()
        self.net.call_at(at, lambda: f.is_done or f.success(None))
        await self._wait(f)

    async def _wait(self, future):
        """Awaits ``future`` or the end of the handshake, whichever comes first."""
        if future.is_done or self.done.is_set():
            return future
        waiter = Future()

        def wake(_value):
            if not waiter.is_done:
                waiter.success(None)
        future.add_both(wake)
        self._gate.add_both(wake)
        await waiter
        return future

    async def _run(self, conn):
        while not self.done.is_set():
            now = time.monotonic()
            if self.retry_not_before > now:
                await self._sleep_until(min(self.retry_not_before, self._deadline_at))
                if self.done.is_set() or conn.closed:
                    return
            if self._request is None:
                self._request = self.build_request()  # retries send the same configs
            req = self._request
            if req is None:
                self._finish("skipped", "every key is sensitive or null: nothing sent")
                return
            self.attempts += 1
            log.info("KIP-1324: PushConfig attempt %d to %s with %d entries",
                     self.attempts, conn, len(req.configs))
            sent = time.monotonic()
            if self.request_timeout == "keep":
                # The library would close the connection at its request timeout: give it none
                # within the handshake and time the attempt here instead.
                fut = conn._send_request(  # pylint: disable=protected-access
                    req, timeout_at=sent + self.deadline_ms / 1000 + 3600)
                outcome_at = self._sent(fut)
                timer = Future()
                self.net.call_at(sent + self.request_timeout_ms / 1000,
                                 lambda: timer.is_done or timer.success(None))
                fut.add_both(lambda _v: timer.is_done or timer.success(None))
                await self._wait(timer)
                if not fut.is_done and not self.done.is_set():
                    self.failures += 1
                    self.retry_not_before = time.monotonic() + self.backoff_secs()
                    log.warning("KIP-1324: PushConfig attempt %d timed out after %d ms; retrying "
                                "on the same connection after backoff", self.attempts,
                                self.request_timeout_ms)
                    continue
            else:
                fut = conn._send_request(  # pylint: disable=protected-access
                    req, timeout_at=sent + self.request_timeout_ms / 1000)
                outcome_at = self._sent(fut)
                await self._wait(fut)
            if self.done.is_set():
                return  # deadline: abandoned with the request in flight
            # Backoff and throttle count from the moment the answer (or the failure) came, not
            # from when this coroutine got to run again.
            base = outcome_at[0] if outcome_at else time.monotonic()
            if fut.failed():
                self.failures += 1
                self.retry_not_before = base + self.backoff_secs()
                log.warning("KIP-1324: PushConfig attempt %d failed: %r; retrying after backoff",
                            self.attempts, fut.exception)
                if conn.closed:
                    return  # the next connection resumes the handshake after the backoff
                continue
            resp = fut.value
            throttle_ms = getattr(resp, "throttle_time_ms", 0) or 0
            if throttle_ms > 0:
                until = base + throttle_ms / 1000
                conn.pause("kip1324_throttle")
                self.net.call_at(until, lambda: conn.unpause("kip1324_throttle"))
            code = resp.error_code
            if code == 0:
                self._finish("completed", "PushConfig accepted by %s" % conn)
                return
            name = "CONFIG_TOO_LARGE" if code == self.config_too_large else \
                Errors.for_code(code).__name__
            retriable = (code not in (self.config_too_large, INVALID_CONFIG)
                         and Errors.for_code(code).retriable)
            if not retriable:
                self._finish("rejected", "%s (%d): %s" % (name, code, resp.error_message),
                             level=logging.ERROR)
                return
            self.failures += 1
            delay = max(self.backoff_secs(), throttle_ms / 1000)
            self.retry_not_before = base + delay
            log.warning("KIP-1324: PushConfig attempt %d: retriable %s: %s; retry in %d ms",
                        self.attempts, name, resp.error_message, delay * 1000)


# --- the connection layer ----------------------------------------------------------------------


class KIP1324Connection(KafkaConnection):
    """kafka-python's connection with the PushConfig handshake between setup and first use."""

    DEFAULT_CONFIG = {**KafkaConnection.DEFAULT_CONFIG, "kip1324_push": None}

    async def initialize(self, timeout_at=None):
        push = self.config["kip1324_push"]
        if push is None:
            return await super().initialize(timeout_at)
        if timeout_at is None:
            timeout_at = self._timeout_at()
        try:
            await self._get_api_versions(timeout_at)
            if self.sasl_enabled:
                await self._sasl_authenticate(timeout_at)
        except Exception as error:  # noqa: BLE001 - the library's own handling
            self.close(error)
            return None
        try:
            await push.on_connection_ready(self)
        except Exception:  # noqa: BLE001 - best effort: never stop the client
            log.exception("KIP-1324: handshake failed unexpectedly")
        if self.closed:
            return None
        self._init_complete()
        push.ready.set()
        log.info("%s: Connected", self)
        return None


class KIP1324ConnectionManager(KafkaConnectionManager):
    DEFAULT_CONFIG = {**KafkaConnectionManager.DEFAULT_CONFIG, "kip1324_push": None}

    def __init__(self, net, **configs):
        super().__init__(net, **configs)
        if self.config["kip1324_push"] is not None:
            self.config["kip1324_push"].attach(net)


def install():
    """Makes kafka-python's connection manager build :class:`KIP1324Connection` (it builds
    connections by the module-level name ``kafka.net.manager.KafkaConnection``). Idempotent;
    called by this module's client classes; stock clients made afterwards are unaffected (their
    manager carries no ConfigPush)."""
    _manager_mod.KafkaConnection = KIP1324Connection


def kafka_client_factory(push, given=None):
    """A ``kafka_client`` for kafka-python's clients whose connections run ``push``; what
    ``push`` renders is the client's configuration as the library passes it to the factory,
    overridden by ``given`` (the configuration as given, including the KIP's own keys, which
    the library does not take)."""

    def factory(**configs):
        push.configs = {**configs, **(given or {})}
        push.prepare()
        net = NetworkSelector(**configs)
        manager = KIP1324ConnectionManager(net, kip1324_push=push, **configs)
        return KafkaNetClient(net=net, manager=manager, **configs)

    return factory


# --- the client classes ------------------------------------------------------------------------

_KIP_KEYS = ("enable_config_push", "config_push_allowed_keys", "retry_backoff_max_ms",
             "default_api_timeout_ms", "kip1324")


def _make_push(client_type, configs, defaults, deadline_key):
    """Pops the KIP's configs from ``configs`` and builds the instance's ConfigPush."""
    install()
    extra = dict(configs.pop("kip1324", None) or {})
    user_keys = set(configs)
    # Defaults the runner gives (kipcheck's `kipcheck.default.KEY` lines, e.g. a scaled
    # request.timeout.ms): the client runs with them, but they stay defaults (not user-set).
    for name, value in (extra.pop("defaults", None) or {}).items():
        if name not in configs:
            configs[name] = value
            defaults = {**defaults, name: value}
    enabled = configs.pop("enable_config_push", True)
    if isinstance(enabled, str):
        enabled = enabled.strip().lower() != "false"
    allowed = parse_allowed_keys(configs.pop("config_push_allowed_keys", None))
    backoff_max = configs.pop("retry_backoff_max_ms", 1000)
    api_timeout = configs.pop("default_api_timeout_ms", 60000)
    merged = {**defaults, **configs, "enable_config_push": enabled,
              "retry_backoff_max_ms": backoff_max}
    if allowed is not None:
        merged["config_push_allowed_keys"] = allowed
    if client_type != "producer":
        merged["default_api_timeout_ms"] = api_timeout
    deadline = merged[deadline_key] if deadline_key in merged else api_timeout
    push = ConfigPush(
        client_type, merged, user_keys, enabled=enabled, allowed_keys=allowed,
        retry_backoff_ms=merged.get("retry_backoff_ms", 100), retry_backoff_max_ms=backoff_max,
        deadline_ms=deadline, request_timeout_ms=merged.get("request_timeout_ms", 30000),
        **extra)
    # What is rendered: the configuration as given (the user's values over the library's
    # defaults), before kafka-python normalises it (acks "all" becomes -1 in the producer);
    # a value the library fills in later (a generated client_id) comes from the library.
    configs["kafka_client"] = kafka_client_factory(
        push, {k: v for k, v in merged.items() if v is not None and k != "kafka_client"})
    return push


class KafkaProducer(kafka.KafkaProducer):
    """kafka-python's producer with the KIP-1324 handshake (deadline: max_block_ms from the
    client's creation, extended to max_block_ms from each send() that waits for it)."""

    def __init__(self, **configs):
        self.config_push = _make_push("producer", configs, kafka.KafkaProducer.DEFAULT_CONFIG,
                                      "max_block_ms")
        super().__init__(**configs)

    def send(self, *args, **kwargs):  # pylint: disable=arguments-differ
        self.config_push.note_user_request()
        return super().send(*args, **kwargs)


class KafkaConsumer(kafka.KafkaConsumer):
    """kafka-python's consumer with the KIP-1324 handshake (deadline: default_api_timeout_ms)."""

    def __init__(self, *topics, **configs):
        self.config_push = _make_push("consumer", configs, kafka.KafkaConsumer.DEFAULT_CONFIG,
                                      "default_api_timeout_ms")
        super().__init__(*topics, **configs)


class KafkaAdminClient(kafka.KafkaAdminClient):
    """kafka-python's admin client with the KIP-1324 handshake (default_api_timeout_ms)."""

    def __init__(self, **configs):
        self.config_push = _make_push("admin", configs, kafka.KafkaAdminClient.DEFAULT_CONFIG,
                                      "default_api_timeout_ms")
        super().__init__(**configs)


def read_profile(path):
    """The ConfigPush options a kipcheck spec profile (JSON) sets: numbers, lists, budget."""
    with open(path, encoding="utf-8") as f:
        p = json.load(f)
    out = {}
    prov = p.get("provisional") or {}
    if "push_config_api_key" in prov:
        out["api_key"] = int(prov["push_config_api_key"])
    if "config_too_large" in prov:
        out["config_too_large"] = int(prov["config_too_large"])
    if "config_type_numbering" in p:
        out["numbering"] = p["config_type_numbering"]
    defaults = p.get("defaults") or {}
    if "client_config_max_bytes" in defaults:
        out["max_bytes"] = int(defaults["client_config_max_bytes"])
    if "request_timeout" in p:
        out["request_timeout"] = p["request_timeout"]
    if "size_measure" in p:
        out["size_measure"] = p["size_measure"]
    out["default_keys_by_type"] = p.get("default_keys") or {}
    return out


# Lists of Python classes in kafka-python: a properties file's class names cannot fill them.
_PYTHON_OBJECT_LISTS = ("partition_assignment_strategy", "metric_reporters")


_JAAS_PLAIN = re.compile(
    r'^\s*org\.apache\.kafka\.common\.security\.plain\.PlainLoginModule\s+required'
    r'(?P<opts>(?:\s+\w+="[^"]*")*)\s*;\s*$')


def _plain_jaas(text):
    """A Java `sasl.jaas.config` for PLAIN -> (username, password), or None when it is another
    login module or does not name both (kafka-python takes them as two keyword arguments)."""
    m = _JAAS_PLAIN.match(text)
    if m is None:
        return None
    opts = dict(re.findall(r'(\w+)="([^"]*)"', m.group("opts")))
    if "username" not in opts or "password" not in opts:
        return None
    return opts["username"], opts["password"]


def from_properties(client_type, props, library_defaults, with_kip=True):
    """Java-style client properties -> (kafka-python keyword arguments, notes on skipped keys).
    Values are parsed by the Java key's ConfigDef type (trimmed, booleans case-insensitive,
    lists split on commas) as a Java client would parse them; a key kafka-python does not take
    (or whose kafka-python form is not a string, e.g. classes) is skipped with a note."""
    defs = DEFINITIONS[client_type]
    kwargs, notes = {}, []
    kip_names = set(_KIP_KEYS) if with_kip else set()
    for key, raw in props.items():
        if key == "sasl.jaas.config":
            plain = _plain_jaas(raw)
            if plain is None or "sasl_plain_username" not in library_defaults:
                notes.append(f"{key}: only PlainLoginModule's username and password map to kafka-python, skipped")
            else:
                kwargs["sasl_plain_username"], kwargs["sasl_plain_password"] = plain
            continue
        name, ctype = defs.get(key, (None, None))
        if name is None or (name not in library_defaults and name not in kip_names):
            notes.append(f"{key}: not a kafka-python {client_type} configuration, skipped")
            continue
        if ctype in (CLASS, PASSWORD) or name in _PYTHON_OBJECT_LISTS:
            notes.append(f"{key}: kafka-python takes a Python object here, skipped")
            continue
        v = raw.strip()
        try:
            if ctype == BOOLEAN:
                if v.lower() not in ("true", "false"):
                    raise ValueError(v)
                value = v.lower() == "true"
            elif ctype in (INT, SHORT, LONG):
                value = int(v)
            elif ctype == DOUBLE:
                value = float(v)
            elif ctype == LIST:
                value = [i.strip() for i in v.split(",") if i.strip()]
                if name == "config_push_allowed_keys":
                    value = ",".join(value)
            else:
                value = v
        except ValueError:
            notes.append(f"{key}={raw!r}: not a valid {ctype} value, skipped")
            continue
        if name == "acks":
            value = v if v == "all" else int(v)
        elif name == "compression_type" and v == "none":
            value = None
        kwargs[name] = value
    return kwargs, notes


__all__ = [
    "ConfigPush", "from_properties", "install", "KIP1324Connection", "KIP1324ConnectionManager", "KafkaAdminClient",
    "KafkaConsumer", "KafkaProducer", "kafka_client_factory", "push_config_messages",
    "read_profile", "render", "sensitive_reason",
]
