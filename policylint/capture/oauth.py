"""SASL/OAUTHBEARER tokens for a capture, got as Kafka's own clients get them from a
``--command-config`` file:

- OIDC client credentials (KIP-768): ``sasl.oauthbearer.token.endpoint.url`` and the
  ``clientId``/``clientSecret``/``scope`` of ``OAuthBearerLoginModule``'s JAAS options;
  a ``file:`` endpoint URL names a file holding a token, as Kafka reads one.
- Amazon MSK IAM: ``IAMOAuthBearerLoginCallbackHandler`` as the login callback handler; the
  token is signed by AWS's own library (``aws-msk-iam-sasl-signer-python``, in the
  ``capture`` extra), imported only then.

A provider fetches a token when kafka-python first asks and keeps it until shortly before
it expires. Errors are one line and never show a secret."""

from __future__ import annotations

import base64
import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Optional

from kafka.net.sasl.oauth import AbstractTokenProvider

from . import CaptureError

#: the login callback handlers of Kafka's OIDC support (3.1-3.3 and 3.4+) and of AWS's library
OIDC_HANDLERS = ("org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
                 "org.apache.kafka.common.security.oauthbearer.secured."
                 "OAuthBearerLoginCallbackHandler")
MSK_IAM_HANDLER = "software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler"
_MSK_HOST = re.compile(r"\.kafka(?:-serverless)?\.([a-z]{2}(?:-[a-z]+)+-\d)\.amazonaws\.com")
REFRESH_MARGIN = 60.0  # seconds before expiry at which a new token is fetched


class _Cached(AbstractTokenProvider):
    """A token kept until ``REFRESH_MARGIN`` before it expires; ``fetch`` gets a new one
    as ``(token, seconds it lives or None)``."""

    def __init__(self, extensions: Optional[dict[str, str]] = None):
        super().__init__()
        self._token, self._until, self._extensions = "", 0.0, extensions or {}

    def token(self) -> str:
        if not self._token or time.monotonic() >= self._until:
            self._token, lifetime = self.fetch()
            self._until = time.monotonic() + max((lifetime or 3600) - REFRESH_MARGIN, 0)
        return self._token

    def extensions(self) -> dict[str, str]:
        return self._extensions

    def fetch(self) -> tuple[str, Optional[float]]:  # pragma: no cover - abstract
        raise NotImplementedError


class ClientCredentials(_Cached):
    """OAuth 2 client credentials grant against an OIDC token endpoint, as Kafka's
    ``HttpAccessTokenRetriever`` asks for a token: HTTP Basic with the client's id and
    secret, ``grant_type=client_credentials`` and the scope if one is set."""

    def __init__(self, endpoint: str, client_id: str, secret: str, scope: str = "",
                 timeout: float = 10.0, extensions: Optional[dict[str, str]] = None):
        super().__init__(extensions)
        self.endpoint, self.client_id, self._secret = endpoint, client_id, secret
        self.scope, self.timeout = scope, timeout

    def fetch(self) -> tuple[str, Optional[float]]:
        if self.endpoint.startswith("file:"):
            return _token_file(urllib.parse.urlparse(self.endpoint).path), None
        form = {"grant_type": "client_credentials", **({"scope": self.scope} if self.scope else {})}
        basic = base64.b64encode(f"{self.client_id}:{self._secret}".encode()).decode()
        request = urllib.request.Request(
            self.endpoint, data=urllib.parse.urlencode(form).encode(), method="POST",
            headers={"Authorization": f"Basic {basic}", "Accept": "application/json",
                     "Content-Type": "application/x-www-form-urlencoded"})
        where = f"the token endpoint {self.endpoint}"
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = json.loads(response.read(1 << 20))
        except urllib.error.HTTPError as exc:
            raise CaptureError(f"{where} refused the client credentials of client "
                               f"{self.client_id!r}: HTTP {exc.code} {exc.reason}") from None
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise CaptureError(f"{where} gave no token: {reason}") from None
        token = body.get("access_token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not token:
            raise CaptureError(f"{where} answered without an access_token")
        lifetime = body.get("expires_in")
        return token, lifetime if isinstance(lifetime, (int, float)) else None


def _token_file(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            token = f.read().strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise CaptureError(f"token file {path}: {getattr(exc, 'strerror', None) or exc}") \
            from None
    if not token:
        raise CaptureError(f"token file {path} is empty")
    return token


class MskIam(_Cached):
    """An Amazon MSK IAM token: a presigned ``kafka-cluster:Connect`` request, signed with
    the default AWS credentials, a profile's or a role's, by AWS's own signer."""

    def __init__(self, region: str, profile: str = "", role_arn: str = "",
                 session_name: str = ""):
        super().__init__()
        self.region, self.profile = region, profile
        self.role_arn, self.session_name = role_arn, session_name

    def fetch(self) -> tuple[str, Optional[float]]:
        try:
            from aws_msk_iam_sasl_signer import MSKAuthTokenProvider as signer
        except ImportError:
            raise CaptureError("Amazon MSK IAM needs AWS's signer: "
                               "pip install 'policylint[capture]'") from None
        try:
            if self.role_arn:
                token, expiry_ms = signer.generate_auth_token_from_role_arn(
                    self.region, self.role_arn, self.session_name or None)
            elif self.profile:
                token, expiry_ms = signer.generate_auth_token_from_profile(
                    self.region, self.profile)
            else:
                token, expiry_ms = signer.generate_auth_token(self.region)
        except Exception as exc:  # botocore's errors have no common base worth importing
            raise CaptureError(f"Amazon MSK IAM: no token for region {self.region}: "
                               f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                               ) from None
        return token, expiry_ms / 1000 - time.time()


def provider(handler: str, options: dict[str, str], properties: dict[str, str],
             bootstrap: str) -> AbstractTokenProvider:
    """The token provider a ``--command-config`` names by its login callback handler and the
    JAAS options of ``OAuthBearerLoginModule``."""
    if handler == MSK_IAM_HANDLER:
        return MskIam(msk_region(bootstrap), options.get("awsProfileName", ""),
                      options.get("awsRoleArn", ""), options.get("awsRoleSessionName", ""))
    if handler not in OIDC_HANDLERS:
        raise CaptureError("--command-config: sasl.mechanism=OAUTHBEARER needs "
                           "sasl.login.callback.handler.class set to Kafka's "
                           "OAuthBearerLoginCallbackHandler (OIDC client credentials) or "
                           f"{MSK_IAM_HANDLER} (Amazon MSK IAM)")
    endpoint = properties.get("sasl.oauthbearer.token.endpoint.url", "")
    if not endpoint:
        raise CaptureError("--command-config: OIDC client credentials need "
                           "sasl.oauthbearer.token.endpoint.url")
    if not endpoint.startswith("file:") and not ("clientId" in options
                                                 and "clientSecret" in options):
        raise CaptureError("--command-config: sasl.jaas.config needs clientId and clientSecret "
                           "for the token endpoint")
    timeout = properties.get("sasl.login.read.timeout.ms", "10000")
    try:
        seconds = int(timeout) / 1000
    except ValueError:
        raise CaptureError("--command-config: sasl.login.read.timeout.ms must be a number") \
            from None
    extensions = {key[len("extension_"):]: value for key, value in options.items()
                  if key.startswith("extension_")}
    return ClientCredentials(endpoint, options.get("clientId", ""),
                             options.get("clientSecret", ""), options.get("scope", ""),
                             seconds, extensions)


def msk_region(bootstrap: str) -> str:
    """The AWS region of an MSK cluster: ``AWS_REGION``/``AWS_DEFAULT_REGION``, or the one
    its broker addresses name (``b-1.x.kafka.eu-west-1.amazonaws.com``)."""
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if region:
        return region
    match = _MSK_HOST.search(bootstrap.lower())
    if not match:
        raise CaptureError("Amazon MSK IAM: set AWS_REGION, or give a broker address of the "
                           "form b-1.<cluster>.kafka.<region>.amazonaws.com")
    return match.group(1)
