"""A kafka-python admin client configured as Kafka's own tools are: ``--bootstrap-server``
and a ``--command-config`` file of Kafka client properties."""

from __future__ import annotations

import logging
import re
import socket
from typing import Any

from . import CaptureError

#: Kafka client properties and the kafka-python settings they become
_PLAIN = {"client.id": ("client_id", str), "request.timeout.ms": ("request_timeout_ms", int),
          "retry.backoff.ms": ("retry_backoff_ms", int),
          "reconnect.backoff.ms": ("reconnect_backoff_ms", int),
          "reconnect.backoff.max.ms": ("reconnect_backoff_max_ms", int),
          "connections.max.idle.ms": ("connections_max_idle_ms", int),
          "metadata.max.age.ms": ("metadata_max_age_ms", int),
          "security.protocol": ("security_protocol", str),
          "sasl.mechanism": ("sasl_mechanism", str),
          "sasl.kerberos.service.name": ("sasl_kerberos_service_name", str),
          "ssl.key.password": ("ssl_password", str)}
PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "GSSAPI", "OAUTHBEARER", "AWS_MSK_IAM")
#: read by Kafka's tools but with no bearing on an admin read here: accepted, not used
_UNUSED = {"default.api.timeout.ms", "ssl.truststore.password", "ssl.keystore.password",
           "ssl.protocol", "ssl.enabled.protocols", "sasl.login.class", "client.dns.lookup",
           "sasl.client.callback.handler.class", "sasl.login.connect.timeout.ms",
           "sasl.oauthbearer.scope.claim.name", "sasl.oauthbearer.sub.claim.name"}
#: OAUTHBEARER settings, read where the token provider is made (oauth.provider)
_OAUTH = {"sasl.login.callback.handler.class", "sasl.oauthbearer.token.endpoint.url",
          "sasl.login.read.timeout.ms"}
_JAAS = re.compile(r'\s*(\S+)\s+(required|optional|requisite|sufficient)((?:\s+[\w.]+\s*=\s*'
                   r'(?:"(?:[^"\\]|\\.)*"|[^\s;]+))*)\s*;?\s*')
_OPTION = re.compile(r'([\w.]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]+))')


def read_properties(path: str) -> dict[str, str]:
    """A Java properties file: ``key=value`` or ``key: value``, ``#``/``!`` comments, lines
    continued by a final backslash."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CaptureError(f"--command-config {path}: {getattr(exc, 'strerror', None) or exc}")
    out, pending = {}, ""
    for line in lines:
        line = pending + line.lstrip()
        pending = ""
        if not line or line[0] in "#!":
            continue
        if line.endswith("\\") and not line.endswith("\\\\"):
            pending = line[:-1]
            continue
        key, value = _split(line)
        out[key] = value
    return out


def _split(line: str) -> tuple[str, str]:
    match = re.match(r"((?:[^=:\s\\]|\\.)+)\s*[=:]?\s*(.*)", line)
    return (match.group(1), match.group(2)) if match else (line, "")


def settings(properties: dict[str, str], bootstrap: str = "") -> dict[str, Any]:
    """kafka-python settings from Kafka client properties. CaptureError names an unsupported
    property or value (never a value itself: it may be a secret)."""
    out: dict[str, Any] = {}
    unknown = []
    module, options = "", {}
    for key, value in properties.items():
        if key in _PLAIN:
            name, kind = _PLAIN[key]
            try:
                out[name] = kind(value)
            except ValueError:
                raise CaptureError(f"--command-config: {key} must be a number") from None
        elif key == "sasl.jaas.config":
            module, options = _jaas(value)
        elif key in ("ssl.truststore.location", "ssl.keystore.location"):
            out["ssl_cafile" if "truststore" in key else "ssl_certfile"] = value
        elif key in ("ssl.truststore.type", "ssl.keystore.type"):
            if value.upper() != "PEM":
                raise CaptureError(
                    f"--command-config: {key}={value} is not supported: Python reads PEM "
                    "files; convert the store (keytool -exportcert -rfc, or openssl pkcs12) "
                    f"and set {key}=PEM")
        elif key == "ssl.endpoint.identification.algorithm":
            out["ssl_check_hostname"] = value.strip().lower() == "https"
        elif key not in _UNUSED and key not in _OAUTH:
            unknown.append(key)
    if unknown:
        raise CaptureError(f"--command-config: not supported: {', '.join(sorted(unknown))}")
    if out.get("security_protocol", "PLAINTEXT") not in PROTOCOLS:
        raise CaptureError(f"--command-config: security.protocol must be one of "
                           f"{', '.join(PROTOCOLS)}")
    if "sasl_mechanism" in out and out["sasl_mechanism"] not in MECHANISMS:
        raise CaptureError(f"--command-config: sasl.mechanism must be one of "
                           f"{', '.join(MECHANISMS)}")
    out.update(_login(out.get("sasl_mechanism", ""), module, options, properties, bootstrap))
    if "ssl_certfile" in out:
        out["ssl_keyfile"] = out["ssl_certfile"]  # a PEM key store holds the key too
    return out


def _jaas(value: str) -> tuple[str, dict[str, str]]:
    """The login module of a ``sasl.jaas.config`` line and its options."""
    match = _JAAS.fullmatch(value)
    if not match:
        raise CaptureError("--command-config: sasl.jaas.config is not a JAAS login module "
                           "line (LoginModule required username=\"...\" password=\"...\";)")
    module = match.group(1).rsplit(".", 1)[-1]
    if module not in _MODULES:
        raise CaptureError(f"--command-config: sasl.jaas.config: {module} is not supported "
                           f"({', '.join(sorted(_MODULES))} are)")
    return module, {m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
                    for m in _OPTION.finditer(match.group(3))}


#: the JAAS login modules a capture can log in with, and the mechanisms they go with
_MODULES = {"PlainLoginModule": ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"),
            "ScramLoginModule": ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"),
            "OAuthBearerLoginModule": ("OAUTHBEARER",), "IAMLoginModule": ("AWS_MSK_IAM",)}


def _login(mechanism: str, module: str, options: dict[str, str], properties: dict[str, str],
           bootstrap: str) -> dict[str, Any]:
    """kafka-python's settings for the SASL login a JAAS module and a mechanism ask for."""
    if mechanism == "OAUTHBEARER":
        if module != "OAuthBearerLoginModule":
            raise CaptureError("--command-config: sasl.mechanism=OAUTHBEARER needs "
                               "sasl.jaas.config with OAuthBearerLoginModule")
        from .oauth import provider
        return {"sasl_oauth_token_provider": provider(
            properties.get("sasl.login.callback.handler.class", ""), options, properties,
            bootstrap)}
    if module and mechanism and mechanism not in _MODULES[module]:
        raise CaptureError(f"--command-config: sasl.jaas.config: {module} does not log in "
                           f"with sasl.mechanism={mechanism}")
    if module in ("PlainLoginModule", "ScramLoginModule"):
        if "username" not in options or "password" not in options:
            raise CaptureError("--command-config: sasl.jaas.config needs username and password")
        return {"sasl_plain_username": options["username"],
                "sasl_plain_password": options["password"]}
    return {}


def connect(bootstrap: str, properties: dict[str, str], timeout_ms: int,
            verbose: bool = False) -> Any:
    """A connected ``KafkaAdminClient``; CaptureError in one line when no broker answers."""
    from kafka import KafkaAdminClient
    from kafka.errors import KafkaError

    logging.getLogger("kafka").setLevel(logging.DEBUG if verbose else logging.CRITICAL)
    reachable(bootstrap, min(timeout_ms / 1000, PROBE_SECONDS))
    config = {"request_timeout_ms": timeout_ms, "bootstrap_timeout_ms": timeout_ms,
              **settings(properties, bootstrap)}
    if "sasl_oauth_token_provider" in config:  # a token endpoint's refusal, said in one line
        config["sasl_oauth_token_provider"].token()
    try:
        return KafkaAdminClient(bootstrap_servers=bootstrap.split(","),
                                client_id=config.pop("client_id", "policylint"), **config)
    except KafkaError as exc:
        raise CaptureError(explain(exc, bootstrap, timeout_ms)) from None


PROBE_SECONDS = 5.0  # a refused or unresolvable address says so at once, not after --timeout


def reachable(bootstrap: str, seconds: float) -> None:
    """CaptureError at once when no bootstrap address takes a TCP connection: a refused
    port or a name that does not resolve is no reason to wait the whole timeout."""
    reasons = []
    for server in bootstrap.split(","):
        host, _, port = server.strip().rpartition(":")
        try:
            socket.create_connection((host.strip("[]"), int(port)), timeout=seconds).close()
            return
        except OSError as exc:
            reasons.append(f"{server.strip()}: {getattr(exc, 'strerror', None) or exc}")
    raise CaptureError(f"cannot reach the cluster at {bootstrap} ({'; '.join(reasons)}): is "
                       "it up, and is this its listener's address?")


def explain(exc: Exception, bootstrap: str, timeout_ms: int) -> str:
    """One line for a failed read, in an operator's words (no secret: kafka-python's
    messages hold none)."""
    name = type(exc).__name__
    if name in ("NoBrokersAvailable", "KafkaConnectionError", "NodeNotReadyError",
                "KafkaTimeoutError", "RequestTimedOutError"):
        return (f"cannot read the cluster at {bootstrap}: no answer within "
                f"{timeout_ms / 1000:g} s ({name}; is it up, and do --bootstrap-server and "
                "the security settings match its listener?)")
    if "Authorization" in name:
        return (f"access denied by the cluster at {bootstrap} ({name}): the capture needs "
                "Describe on the cluster and its topics, and DescribeConfigs")
    if "Authentication" in name or "Sasl" in name:
        return f"authentication to the cluster at {bootstrap} failed ({name})"
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"reading the cluster at {bootstrap} failed: {name}" + (f": {first}" if first else "")
