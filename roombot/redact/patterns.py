"""The credential shapes the redactor takes out of provider and harness text: one table.

Each entry is a regex whose group `secret` is the part to hide (the rest, a header name
or a query key, stays, so the card still says what was sent), the letters of the secret
that stay visible (a key's published prefix, which names the key's kind), whether its
last four characters may stay (only for long random keys, where four of forty say which
key it was and are no use to anyone; never for a password), and the public document
that defines the shape.

Why the table is ours, not a scanner's (docs/security.md has the figures): the general
scanners (detect-secrets, gitleaks' rules) are built for source files, find secrets by
keyword and entropy heuristics that fire on request ids and hashes, which would hide the
very ids an on-call engineer quotes to a provider, and give values, not places, so a
marker could not keep a header's name. Provider error text needs few shapes, each known.

Order matters where shapes overlap: a more specific key comes before the general `sk-`
one, so the marker keeps the longer prefix.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Shape:
    name: str  # counted under this name in /metrics
    pattern: str  # group `secret` is hidden; the rest of the match stays as it is
    prefix: str  # a regex: the secret's leading letters that the marker shows (its kind)
    tail: bool  # whether its last four letters are shown (long random keys only)
    source: str  # where the shape is defined
    # Letters every match holds, lower-cased: a text with none of them is not searched
    # for the shape (most error text holds none, and `in` is far cheaper than a regex).
    hints: tuple[str, ...] = ()
    # Its secrets are random tokens: a plain lower-case word in its place ("Bearer
    # google_adc_marker") is a stand-in, not a token. Never so for passwords.
    random: bool = False


# A key's letters; the lookarounds keep a match from starting or ending inside a word.
_B = r"(?<![A-Za-z0-9_-])"
_E = r"(?![A-Za-z0-9_*\u2022\u00d7-])"  # nor before a mask: "sk-proj-****abcd" is masked
# A token's letters taken whole (possessive: never a shorter run), and not a masked one.
_TOKEN = r"[A-Za-z0-9._~+/=-]{8,}+(?![*\u2022\u00d7])"

SHAPES: tuple[Shape, ...] = (
    Shape(
        "private_key_block",
        # The BEGIN line stays, so the card says a private key was there.
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?P<secret>"
        r"(?:(?!-----END)[\s\S]){1,8192}?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|$))",
        "",
        False,
        "https://datatracker.ietf.org/doc/html/rfc7468#section-10",
        ("private key-----",),
    ),
    Shape(
        "anthropic_key",
        _B + r"(?P<secret>sk-ant-(?:api|admin|oat|ort)\d\d-[A-Za-z0-9_-]{16,})" + _E,
        r"sk-ant-[a-z]+\d\d-",
        True,
        "https://docs.anthropic.com/en/api/admin-api/apikeys/get-api-key",
        ("sk-ant-",),
    ),
    Shape(
        "openrouter_key",
        _B + r"(?P<secret>sk-or-v1-[A-Za-z0-9]{16,})" + _E,
        r"sk-or-v1-",
        True,
        "https://openrouter.ai/docs/api-reference/authentication",
        ("sk-or-v1-",),
    ),
    Shape(
        "openai_key",
        # sk-, sk-proj-, sk-svcacct-, sk-admin- and the other providers that copied the shape
        # (DeepSeek, Moonshot, DashScope: sk- and hex): the letters after the last dash.
        _B + r"(?P<secret>sk-(?:(?:proj|svcacct|admin|None|live|test)-)?[A-Za-z0-9_-]{20,})" + _E,
        r"sk-(?:(?:proj|svcacct|admin|None|live|test)-)?",
        True,
        "https://platform.openai.com/docs/api-reference/authentication",
        ("sk-",),
    ),
    Shape(
        "google_api_key",
        _B + r"(?P<secret>AIza[0-9A-Za-z_-]{35})" + _E,
        "AIza",
        True,
        "https://cloud.google.com/docs/authentication/api-keys",
        ("aiza",),
    ),
    Shape(
        "aws_access_key_id",
        r"(?<![A-Z0-9])(?P<secret>(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})(?![A-Z0-9])",
        "A[A-Z]{3}",
        True,
        "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html",
        ("akia", "asia", "abia", "acca"),
    ),
    Shape(
        "github_token",
        _B + r"(?P<secret>(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}))" + _E,
        r"gh[a-z]_|github_pat_",
        True,
        "https://github.blog/engineering/platform-security/"
        "behind-githubs-new-authentication-token-formats/",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    Shape(
        "slack_token",
        _B + r"(?P<secret>xox[abposre]-[A-Za-z0-9-]{10,})" + _E,
        r"xox[a-z]-",
        True,
        "https://api.slack.com/authentication/token-types",
        ("xox",),
    ),
    Shape(
        "slack_webhook",
        r"hooks\.slack\.com/services/(?P<secret>[A-Za-z0-9]+/[A-Za-z0-9]+/[A-Za-z0-9]{16,})",
        "",
        False,
        "https://api.slack.com/messaging/webhooks",
        ("hooks.slack.com/services/",),
    ),
    Shape(
        "groq_key",
        _B + r"(?P<secret>gsk_[A-Za-z0-9]{20,})" + _E,
        "gsk_",
        True,
        "https://console.groq.com/docs/api-keys",
        ("gsk_",),
    ),
    Shape(
        "xai_key",
        _B + r"(?P<secret>xai-[A-Za-z0-9]{20,})" + _E,
        "xai-",
        True,
        "https://docs.x.ai/docs/api-reference#authentication",
        ("xai-",),
    ),
    Shape(
        "huggingface_token",
        _B + r"(?P<secret>hf_[A-Za-z0-9]{30,})" + _E,
        "hf_",
        True,
        "https://huggingface.co/docs/hub/security-tokens",
        ("hf_",),
    ),
    Shape(
        "gitlab_token",
        _B + r"(?P<secret>gl(?:pat|oas|dt|rt|ptt|ft|imt|agent|soat)-[A-Za-z0-9_-]{20,})" + _E,
        r"gl[a-z]+-",
        True,
        "https://docs.gitlab.com/security/tokens/",
        ("gl",),
    ),
    Shape(
        "npm_token",
        _B + r"(?P<secret>npm_[A-Za-z0-9]{36})" + _E,
        "npm_",
        True,
        "https://github.blog/changelog/2021-09-23-npm-has-a-new-access-token-format/",
        ("npm_",),
    ),
    Shape(
        "stripe_key",
        _B + r"(?P<secret>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})" + _E,
        r"[a-z]{2}_[a-z]{4}_",
        True,
        "https://docs.stripe.com/keys",
        ("_live_", "_test_"),
    ),
    Shape(
        "google_oauth_token",
        _B + r"(?P<secret>ya29\.[A-Za-z0-9_-]{20,})" + _E,
        "ya29.",
        True,
        "https://cloud.google.com/docs/authentication/token-types#access",
        ("ya29.",),
    ),
    Shape(
        "telegram_bot_token",
        # In the Bot API's URLs (https://api.telegram.org/bot<token>/getUpdates), which
        # connection errors print whole.
        r"(?<![A-Za-z0-9])bot(?P<secret>\d{5,12}:[A-Za-z0-9_-]{30,})" + _E,
        "",
        False,
        "https://core.telegram.org/bots/api#authorizing-your-bot",
        ("bot",),
    ),
    Shape(
        "databricks_token",
        _B + r"(?P<secret>dapi[0-9a-f]{32}(?:-\d)?)" + _E,
        "dapi",
        True,
        "https://docs.databricks.com/aws/en/dev-tools/auth/pat",
        ("dapi",),
    ),
    Shape(
        "replicate_token",
        _B + r"(?P<secret>r8_[A-Za-z0-9]{30,})" + _E,
        "r8_",
        True,
        "https://replicate.com/docs/topics/security/api-tokens",
        ("r8_",),
    ),
    Shape(
        "perplexity_key",
        _B + r"(?P<secret>pplx-[A-Za-z0-9]{32,})" + _E,
        "pplx-",
        True,
        "https://docs.perplexity.ai/guides/getting-started",
        ("pplx-",),
    ),
    Shape(
        "langsmith_key",
        _B + r"(?P<secret>lsv2_(?:pt|sk)_[A-Za-z0-9_]{30,})" + _E,
        r"lsv2_[a-z]{2}_",
        True,
        "https://docs.smith.langchain.com/administration/how_to_guides/organization_management/"
        "create_account_api_key",
        ("lsv2_",),
    ),
    Shape(
        "jwt",
        # A JSON header is always "eyJ" in base64url; the payload of an encrypted one is not.
        _B + r"(?P<secret>eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.?[A-Za-z0-9_-]*)" + _E,
        "eyJ",
        True,
        "https://datatracker.ietf.org/doc/html/rfc7519#section-3.1",
        ("eyj",),
    ),
    Shape(
        "authorization_header",
        # The header as written in logs, dumps and reprs: `Authorization: Bearer x`,
        # `'authorization': 'Basic x'`, `-H "x-api-key: x"`; the scheme word stays. The
        # value must look like a token, so "token (oauth token removed)" stays as it is.
        r"(?i:(?<![A-Za-z0-9_-])(?:proxy-)?(?:authorization|x-api-key|api-key|x-goog-api-key"
        r"|x-auth-token|x-amz-security-token|ocp-apim-subscription-key)[\"']?\s*[:=]\s*[\"']?"
        r"(?:(?:bearer|token|bot|digest|key)\s+)?)(?P<secret>" + _TOKEN + ")"
        # Basic credentials, also as people write them undecoded: "Basic root:815702".
        r"|(?i:(?<![A-Za-z0-9_-])(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?basic\s+)"
        r"(?P<secret>[^\s\"',;}&]{4,}+(?![*\u2022\u00d7]))",
        "",
        True,
        "https://datatracker.ietf.org/doc/html/rfc9110#section-11.6.2",
        ("authorization", "api-key", "x-auth-token", "security-token", "subscription-key"),
        random=True,
    ),
    Shape(
        "bearer_token",
        r"(?i:(?<![A-Za-z0-9_-])bearer\s+)(?P<secret>[A-Za-z0-9._~+/=-]{12,}+(?![*\u2022\u00d7]))",
        "",
        True,
        "https://datatracker.ietf.org/doc/html/rfc6750#section-2.1",
        ("bearer",),
        random=True,
    ),
    Shape(
        "credential_parameter",
        # A credential in a URL's query or a form body: Google's ?key=, OAuth tokens, and
        # the signatures of presigned URLs (AWS SigV4, GCS V4, Azure SAS).
        r"(?i:(?<=[?&;,\s\\])(?:key|api_key|apikey|api-key|access_token|refresh_token|id_token"
        r"|token|auth|client_secret|password|secret|sig|signature|x-amz-signature"
        r"|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential)\\?=)"
        r"(?P<secret>[^&\s\"'#<>:,;()\[\]{}*]{6,}+(?![*\u2022\u00d7]))",
        "",
        True,
        "https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html",
        ("key", "token", "auth", "secret", "passw", "sig", "cred"),
    ),
    Shape(
        "signature",
        # A request signature as signers' logs and refusals print it: AWS's
        # <SignatureProvided>, botocore's "Signature:" debug line, a SAS "sig:".
        r"(?i:<SignatureProvided>)(?P<secret>[^<]{1,2048})(?=</SignatureProvided>)"
        r"|(?i:(?<![A-Za-z0-9_-])(?:signature|sig)\s*:\s*)(?P<secret>[A-Za-z0-9+/=%_-]{16,})",
        "",
        False,
        "https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-authenticating-requests.html",
        ("sig",),
    ),
    Shape(
        "credential_field",
        # A credential by its field name in JSON, a repr or an env dump: `"api_key": "x"`,
        # `api_key='x'`, `AWS_SECRET_ACCESS_KEY=x`, `password: x`.
        r"(?i:(?<![A-Za-z0-9])[\"']?_?(?:[a-z0-9]+[_-])?(?:api[_-]?key|secret[_-]?access[_-]?key"
        r"|client[_-]?secret|access[_-]?token|refresh[_-]?token|session[_-]?token"
        r"|auth[_-]?token|auth[_-]?cred|private[_-]?key|password|passwd|passphrase"
        # a named service's token or secret: GITHUB_TOKEN=, HF_TOKEN=, webhook_secret:
        r"|(?<=[a-z0-9][_-])(?:token|secret(?:[_-]key)?))"
        r"\\?[\"']?\s*(?:[:=]|->|=>)\s*u?)"
        # A quoted value is taken whole, spaces and all (in JSON inside JSON too, where its
        # quotes are escaped); a bare one up to its end.
        r"(?:\\?\"(?P<secret>[^\"\\\n]{4,256}+)(?=\\?\")|'(?P<secret>[^'\n]{4,256}+)(?=')"
        r"|(?P<secret>[^\s\"',;}&]{6,}+(?![*\u2022\u00d7])))",
        "",
        False,
        "https://12factor.net/config",
        ("key", "secret", "token", "cred", "passw"),
    ),
    Shape(
        "url_password",
        # user:password@ in any URL (a proxy, a database, a git remote), and as clients
        # print a connection without its scheme ("connecting root:pw@localhost:6379").
        r"://[^\s/:@\"'<>]*:(?P<secret>[^\s/@\"'<>]{1,256})(?=@)"
        r"|(?<![A-Za-z0-9_./:@-])[A-Za-z0-9_.-]{1,64}:(?P<secret>[^\s/@:\"'<>]{1,256})"
        r"(?=@[A-Za-z0-9.-]+:\d{2,5}(?!\d))",
        "",
        False,
        "https://datatracker.ietf.org/doc/html/rfc3986#section-3.2.1",
        ("://", "@"),
    ),
)

# Field names whose whole value is a credential wherever it is found in a structured
# error (a body's headers, a report's request): matched case-insensitively.
SECRET_FIELDS: frozenset[str] = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "x-auth-token",
        "ocp-apim-subscription-key",
        "cookie",
        "set-cookie",
        "api_key",
        "apikey",
        "client_secret",
        "access_token",
        "refresh_token",
        "password",
        "aws_secret_access_key",
        "secret_access_key",
    }
)

# A value already masked by whoever printed it is left as it is: one that elides
# ("sk-...a1b2"), says so ("[redacted]"), or stands in for a key ("YOUR_API_KEY",
# "<token>", "$OPENAI_API_KEY"), or whose mask letters are a third of it or more
# ("sk-proj-****abcd"; "AIzaSyB1...xxxxxxxx" with most of the key shown is hidden).
PLACEHOLDER = (
    r"\.{3}|\u2026|\[(?:redacted|snip(?:ped)?|removed|hidden|masked|elided|omitted)\]"
    r"|REDACTED|<[^<>]*>|^[$({<]*[A-Z]+(?:_[A-Z0-9]+)+[})>]*[).,]?$"
    # A word in brackets or stars where the value was: "[secure]", "(protected)", "*REMOVED*".
    r"|^(?:\[\w+\]|\(\w[\w ]*\)|\{\w+\}|\*\w+\*)$"
)
MASK_LETTERS = r"[*\u2022\u00d7#]{2,}|[xX]{3,}"

MARKER = "[redacted]"
