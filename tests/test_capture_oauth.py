"""SASL/OAUTHBEARER for a capture: OIDC client credentials (KIP-768) against a token endpoint
served on 127.0.0.1, and Amazon MSK IAM tokens signed by AWS's own library (signing is
local: no AWS endpoint is reached)."""

import base64
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

pytest.importorskip("kafka")

from kafka.net.sasl.oauth import AbstractTokenProvider  # noqa: E402

from policylint.capture import CaptureError  # noqa: E402
from policylint.capture.client import read_properties, settings  # noqa: E402
from policylint.capture.oauth import ClientCredentials, MskIam, msk_region  # noqa: E402

OIDC = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler"
MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"


@pytest.fixture
def endpoint():
    """A token endpoint that grants client credentials to ('ops', 's3cr3t') only, and
    records every request it was sent."""
    seen = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"])).decode()
            seen.append((self.headers["Authorization"], urllib.parse.parse_qs(body)))
            good = self.headers["Authorization"] == \
                "Basic " + base64.b64encode(b"ops:s3cr3t").decode()
            answer = json.dumps({"access_token": f"tok{len(seen)}", "token_type": "bearer",
                                 "expires_in": 3600} if good else {"error": "invalid_client"})
            self.send_response(200 if good else 401)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(answer.encode())

        def log_message(self, *_):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/oauth2/token", seen
    server.shutdown()


def oidc_settings(tmp_path, url, secret="s3cr3t", extra=""):
    path = tmp_path / "client.properties"
    path.write_text("security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\n"
                    f"sasl.login.callback.handler.class={OIDC}\n"
                    f"sasl.oauthbearer.token.endpoint.url={url}\n"
                    f'sasl.jaas.config={MODULE} required clientId="ops" \\\n'
                    f'    clientSecret="{secret}" scope="kafka" extension_logicalCluster="lkc-1";\n'
                    + extra)
    return settings(read_properties(str(path)))


def test_oidc_client_credentials_as_kip_768_names_them(tmp_path, endpoint):
    url, seen = endpoint
    got = oidc_settings(tmp_path, url, extra="sasl.login.read.timeout.ms=5000\n")
    provider = got["sasl_oauth_token_provider"]
    assert isinstance(provider, AbstractTokenProvider)
    assert got["sasl_mechanism"] == "OAUTHBEARER" and "sasl_plain_password" not in got
    assert provider.token() == "tok1" and provider.token() == "tok1"  # kept until it expires
    assert provider.extensions() == {"logicalCluster": "lkc-1"} and provider.timeout == 5
    auth, form = seen[0]
    assert len(seen) == 1 and form == {"grant_type": ["client_credentials"], "scope": ["kafka"]}


def test_a_token_about_to_expire_is_fetched_again(endpoint):
    url, seen = endpoint
    provider = ClientCredentials(url, "ops", "s3cr3t")
    provider.token()
    provider._until = 0  # as if REFRESH_MARGIN before expiry had come
    assert provider.token() == "tok2" and len(seen) == 2


def test_a_refused_secret_is_one_line_without_the_secret(tmp_path, endpoint):
    url, _ = endpoint
    provider = oidc_settings(tmp_path, url, secret="hunter2")["sasl_oauth_token_provider"]
    with pytest.raises(CaptureError) as err:
        provider.token()
    assert "HTTP 401" in str(err.value) and "'ops'" in str(err.value)
    assert "hunter2" not in str(err.value) and "\n" not in str(err.value)


def test_an_unreachable_endpoint_and_a_token_file(tmp_path):
    with pytest.raises(CaptureError, match="gave no token"):
        ClientCredentials("http://127.0.0.1:1/token", "ops", "x", timeout=2).token()
    (tmp_path / "token").write_text("eyJhbGciOi.eyJzdWIi.c2ln\n")
    assert ClientCredentials(f"file://{tmp_path}/token", "", "").token() == \
        "eyJhbGciOi.eyJzdWIi.c2ln"
    with pytest.raises(CaptureError, match="token file .*No such file"):
        ClientCredentials(f"file://{tmp_path}/none", "", "").token()


@pytest.mark.parametrize("text,reason", [
    ("sasl.mechanism=OAUTHBEARER\n", "needs sasl.jaas.config with OAuthBearerLoginModule"),
    (f"sasl.mechanism=OAUTHBEARER\nsasl.jaas.config={MODULE} required;\n",
     "sasl.login.callback.handler.class set to"),
    (f"sasl.mechanism=OAUTHBEARER\nsasl.login.callback.handler.class={OIDC}\n"
     f"sasl.jaas.config={MODULE} required;\n", "need sasl.oauthbearer.token.endpoint.url"),
    (f"sasl.mechanism=OAUTHBEARER\nsasl.login.callback.handler.class={OIDC}\n"
     "sasl.oauthbearer.token.endpoint.url=https://idp/token\n"
     f'sasl.jaas.config={MODULE} required clientSecret="hunter2";\n', "clientId and clientSecret"),
    (f"sasl.mechanism=PLAIN\nsasl.jaas.config={MODULE} required;\n",
     "OAuthBearerLoginModule does not log in with sasl.mechanism=PLAIN"),
])
def test_oauthbearer_settings_that_cannot_work_are_named(tmp_path, text, reason):
    path = tmp_path / "client.properties"
    path.write_text(text)
    with pytest.raises(CaptureError) as err:
        settings(read_properties(str(path)))
    assert reason in str(err.value) and "hunter2" not in str(err.value)


MSK = "b-1.prod.ab12cd.c3.kafka.eu-west-1.amazonaws.com:9098"


def test_msk_iam_through_awss_signer(tmp_path, monkeypatch):
    """Amazon's documented client properties for IAM over OAUTHBEARER; the token is AWS's
    presigned kafka-cluster:Connect URL for the region the broker address names."""
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLEEXAMPLE00")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMIEXAMPLEKEY")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    path = tmp_path / "client.properties"
    path.write_text(
        "security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\n"
        "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
        " required;\n"
        "sasl.login.callback.handler.class="
        "software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler\n"
        "sasl.client.callback.handler.class="
        "software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler\n")
    provider = settings(read_properties(str(path)), MSK)["sasl_oauth_token_provider"]
    assert isinstance(provider, MskIam) and provider.region == "eu-west-1"
    token = provider.token()
    url = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    query = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)
    assert url.startswith("https://kafka.eu-west-1.amazonaws.com/")
    assert query["Action"] == ["kafka-cluster:Connect"]
    assert query["X-Amz-Credential"][0].startswith("AKIAEXAMPLEEXAMPLE00/")
    assert "eu-west-1/kafka-cluster/aws4_request" in query["X-Amz-Credential"][0]
    assert provider.token() == token  # kept until shortly before it expires


def test_msk_region_from_the_environment_or_the_broker_address(monkeypatch):
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    assert msk_region("boot-x.c2.kafka-serverless.us-east-2.amazonaws.com:9098") == "us-east-2"
    with pytest.raises(CaptureError, match="set AWS_REGION"):
        msk_region("localhost:9092")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-south-1")
    assert msk_region("localhost:9092") == "ap-south-1"
