"""Cause phrases and exception classes: the words that name a failure's cause, wherever they are.

Once a text is known to be a failure (a JSON-RPC error, a failed attempt, a
report, a rejected prompt, an exit, a hub's failure string), the phrases below
are searched anywhere in it, word-bounded and case-insensitive, top to bottom:
the first that holds decides. They are never used to decide whether an
*answer* is an error posing as one (answers.py keeps whole-message forms).

Precedence, for the engine (engine.py): a provider's own rule that joins a code
to a sentence > a cause phrase (this table) > a provider's code or type alone >
a code or gRPC status name found loosely in the text > an exception class name
(EXCEPTIONS, below) > the HTTP status alone > words that a request was malformed
(WEAK) > single cause words, counted per kind (WORDS, at the end).

Within this table the order is the design's distinctions, written down:
  - a safety block is a refusal, whatever the status;
  - a window of a day, a month or a plan is quota, a window of a minute or a
    second is rate_limit, and only then do bare "quota" and "rate limit" decide;
  - a prompt over the window is context_exhausted, not bad_request;
  - a model that does not exist is bad_request, before any "no access" reads as auth;
  - "overloaded", 5xx words: provider_unavailable; a connect timeout cannot reach the
    provider (provider_unavailable), any other timeout gave up waiting (timeout);
  - a node that went away, then timeouts, then cancellations, then a process that
    exited, then an endpoint that could not be reached; generic request errors last.

Every rule names the corpus entry (train split) it was written from.
"""

from __future__ import annotations

from cards import Kind
from roombot.normalise.rules import Rule, rule

__all__ = ["CAUSES", "EXCEPTIONS", "WEAK", "WORDS"]

K = Kind


# A gap within one sentence is written `[^.\n]`; it also crosses a dot inside a word, since
# host names, versions and file names (api.anthropic.com, gpt-4.1, config.json) sit inside
# the sentences that name a cause. A dot before a space or the end still ends a sentence.
_GAP_AS_WRITTEN = "[^.\\n]"
_GAP = "(?:[^.\\n]|\\.(?=\\w))"


def any_of(*phrases: str) -> str:
    """One pattern from its alternatives (the engine splits them again, one search each)."""
    return "|".join(phrases).replace(_GAP_AS_WRITTEN, _GAP)


# What an agent runs on, or reaches it through ("offline" alone says node_offline anyway).
_MACHINE = (
    r"\b(?:runtime|node|worker|daemon|machine|runner|device|environment|workspace|sandbox|"
    r"container|host agent|agents?|remote|desktop|gateway|hub|owner|rpc|codespace|relay|vm|wsl|"
    r"devcontainer|pod)"
)


def each_word(*words: str) -> str:
    """One alternative per word, each word-bounded (causes.WORDS counts them apiece); a CJK
    word as it is, since its script writes no spaces for a word boundary to find."""
    return any_of(*(r"\b" + w + r"\b" if w.isascii() else w for w in words))


CAUSES: tuple[Rule, ...] = (
    # --- refusal: a safety block, whatever the status -------------------------------------------
    rule(
        K.REFUSAL,
        "anthropic/output-blocked-policy",
        message=any_of(
            r"\bcontent[ _-]?(?:management[ _-])?polic(?:y|ies)\b",
            r"\bcontent[ _-]?filter",
            r"\busage polic(?:y|ies)\b",
            r"\bacceptable use polic",
            r"\bsafety (?:system|filters?|settings|polic(?:y|ies)|reasons?|block\w*|concerns?|"
            r"guidelines|checks?)\b",
            r"\bblocked\b[^.\n]{0,40}?\b(?:safety|content|polic(?:y|ies)|moderation|guardrails?)\b",
            # a prompt or an answer blocked (a request "blocked" may be a proxy's or a WAF's)
            r"\b(?:prompt|response|output|content|candidate)s? (?:was |were |has been |is )?"
            r"blocked\b",
            r"\bblock_?reason\b",
            r"\b(?:flagged|moderated) (?:by|as|for)\b",
            r"\bmoderation\b",
            r"\bguardrails?\b",
            r"\b(?:jailbreak\w*|prompt injection)\b",
            r"\bresponsible ?ai\b",
            r"\bviolat\w* (?:of )?(?:our|the|its) (?:\w+ ){0,2}(?:polic(?:y|ies)|terms|guidelines)",
            r"prohibited[ _]?content",
            r"(?-i:\b(?:BLOCKLIST|SPII|IMAGE_SAFETY|RECITATION|SAFETY)\b)",
            r"\bstop_?reason\W{1,4}refusal\b",
            r"\bfinish[ _]?reason\W{1,4}(?:3|4|safety|recitation|other|prohibited_content|"
            r"blocklist|spii)\b",
            r"\brefusal\b",
            r"\bdeclined to (?:respond|answer)\b",
            r"\binappropriate (?:\w+ )?content\b",
            r"\b(?:output|input|content|prompt) blocklist\b",
            r"\bcontent exists risk\b",
            r"\bsafety classifier\b",
            r"\bsensitive content (?:was )?(?:detected|found|blocked)\b",
            r"\bsensitive[ _]words?\b",  # an OpenAI-compatible relay's word filter
            r"\bpublic_error_unsafe_generation\b",  # Google's reason for a blocked generation
            r"\bnew_sensitive\b",
            r"\bmatched public code\b",
            "\u654f\u611f\u5185\u5bb9",  # "sensitive content"
            "\u4e0d\u5408\u89c4",  # "non-compliant (content)"
            "\u5185\u5bb9\u5b89\u5168",  # "content safety"
            "\u88ab\u8fc7\u6ee4",  # "was filtered"
            r"\bdata[ _]?inspection[ _]?failed\b",
            "\u8d1f\u8d23\u4efb AI",  # "responsible AI" (a filter's name, in Chinese)
        ),
    ),
    # --- windows: a day, a month, a plan is quota; a minute or a second is rate_limit -----------
    rule(
        K.QUOTA,
        "groq/tokens-per-day",
        message=any_of(
            r"\b(?:per[ _-](?:day|month|week)|perday|permonth|daily|monthly|weekly)\b[^.\n]{0,40}?"
            r"\b(?:limit|quota|cap|allowance|allocation|usage|requests|tokens|credits)",
            r"\b(?:limit|quota|cap|allowance|allocation|usage|requests|tokens|credits)\b[^.\n]{0,40}?"
            r"\b(?:per[ _-](?:day|month|week)|perday|permonth|daily|monthly|weekly)\b",
            r"PerDay",
            r"PerMonth",
            r"per_day",
            r"(?-i:\b(?:RPD|TPD)\b)",
            r"\blimit(?:_value)?: ?0\b",
            r"quota_limit_value\W+value\W+0\b",
            r"free[ _-]models[ _-]per[ _-]day",
            r"\b(?:reached|exceeded|used up) for (?:this|the current) (?:day|month|week)\b",
        ),
    ),
    rule(
        K.RATE_LIMIT,
        "openai/rate-limit-tpm",
        message=any_of(
            r"\b(?:requests|tokens|calls|queries|input tokens|output tokens)\s+per\s+(?:minute|"
            r"min|second|sec)\b",
            r"\bper[ _-](?:minute|second)\b[^.\n]{0,30}?\b(?:limit|quota|rate)",
            r"(?-i:\b(?:RPM|TPM|RPS|ITPM|OTPM)\b)",
            r"PerMinute",
            r"per_minute",
            r"PerSecond",
            r"\btemporarily (?:limiting|throttl\w+|rate[ -]limit\w*)",
        ),
    ),
    # Gemini CLI's own judgement of a 429 it saw whole (classifyGoogleError): it appends
    # "Suggested retry after Ns." and retries when the delay is at most 300 s.
    rule(
        K.RATE_LIMIT,
        "gemini-cli/suggested-retry-after-1s",
        message=any_of(r"\bsuggested retry after (?:\d{1,2}|[12]\d\d|300)(?:\.\d+)?s\b"),
    ),
    # A rate limit that says come back in ten minutes or more is a window that retrying
    # will not beat (Azure's "retry after 86400 seconds"). The converse does not hold: a
    # spent daily quota may still say "retry in 27s" (Gemini's free tier does).
    rule(
        K.QUOTA,
        "wild/openai/azure-429-token-rate-limit-retry-86400s",
        message=any_of(
            r"\brate[ _-]?limit\w*",
            r"\btoo ?many ?requests\b",  # also the CamelCase of a status name
            r"\bthrottl\w+",
        ),
        min_retry=600,
    ),
    # --- an output cap asked for above the model's is the request's fault, not the window's ----
    rule(
        K.BAD_REQUEST,
        "wild/harvest4_providers/bedrock-gateway-max-tokens-exceeds-model-limit-2048",
        message=any_of(r"\bmax(?:imum)? tokens you requested\b"),
    ),
    # --- context_exhausted: a prompt over the window, not a bad request -------------------------
    rule(
        K.CONTEXT_EXHAUSTED,
        "text/prompt-is-too-long",
        message=any_of(
            r"\bcontext[ _-]?(?:length|window|size|limit)s?\b[^.\n]{0,60}?\b(?:exceed\w*|"
            r"overflow\w*|too (?:long|large|small)|reached|full|is \d[\d,]* tokens)",
            r"\b(?:exceed\w*|overflow\w*|larger than|longer than|greater than|more than|beyond|"
            r"too (?:long|large) (?:for|to fit)|too long to fit)\b[^.\n]{0,50}?\bcontext\b"
            r"(?! cancel| deadline)",  # Go's "context deadline exceeded (... context cancellation"
            r"\bmaximum context length\b",
            # a serving engine's own limit on prompt plus output (llama.cpp, vLLM, TabbyAPI,
            # TensorRT-LLM, LMDeploy): the same window under its engine's name
            r"\b(?:maximum (?:supported )?sequence length|max_seq_len|session_len|max_num_tokens)\b"
            r"[^\n]{0,40}?\b(?:exceed\w*|is (?:just )?\d|of \d|\(\d)",
            r"\b(?:prompt|request|input) length\b[^.\n]{0,60}?\b(?:should not|must not|cannot) "
            r"exceed\b",
            r"\b(?:prompt|request|input) length [\d.]+(?: \+ [\d.]+)? is (?:greater|larger|more) "
            r"than\b",
            r"\bprompt_limit\b",
            "\u8f93\u5165\u5185\u5bb9\u8fc7\u957f",  # "the input is too long"
            r"\bcontext[_ ]length[_ ]exceeded",
            r"\bcontext[ _-]?overflow",
            r"(?:\b|_)context_window_exceeded\b",  # also model_context_window_exceeded
            r"\bcontext (?:is |was )?too (?:long|large)\b",
            # llama.cpp, when the part of a prompt it must keep is the window or more
            r"\bn_keep\b[^.\n]{0,30}?\bn_ctx\b",
            # a server that cut the prompt to fit its window ("input truncated | n_ctx=2048")
            r"\b(?:input|prompt|context) (?:was |has been |is )?truncated\b",
            r"\b(?:prompt|input|conversation|messages?)(?: tokens?)?(?: is| are| was)? too long\b",
            r"\b(?:input|prompt)(?: token)? length (?:is )?too long\b",
            r"\b(?:input )?text (?:is )?too long for\b",
            "\u4e0a\u4e0b\u6587\u6ea2\u51fa",  # "context overflow"
            "\u4e0a\u4e0b\u6587\u8fc7\u957f",  # "context too long"
            r"\btoo many input tokens\b",
            r"\btoken count\b[^.\n]{0,40}?\bexceeds?\b",
            r"\bout of room\b[^.\n]{0,40}?\bcontext\b",
            r"\bmaximum (?:prompt|input) length\b",
            r"\breduce the length of the messages\b",
            r"\bmust (?:have|be) (?:less|fewer) than [\d,]+ (?:input )?tokens\b",
            r"\bavailable context (?:size|window)\b",
            r"\bcontext (?:the )?overflows\b",
            r"\b(?:larger|bigger) context (?:length|window|size)\b",
            r"\btokens?\b[^.\n]{0,30}?\bexceeds? (?:the )?(?:model'?s? )?(?:maximum|max|limit|"
            r"context|allowed)\b",
            r"\bexceeds? (?:the )?(?:maximum )?token limit\b",
            # in the past tense only of what was sent: "response ... exceeded" is max_tokens
            r"\b(?:request|prompt|input|messages?)\b[^.\n]{0,20}?\bexceeded (?:the )?(?:maximum )?"
            r"token limit\b",
            r"\byou requested [\d,]+ tokens\b",
            r"\btokens\W{1,3}\+\W{1,3}max_new_tokens\b",
            r"\brequested [\d,]+ tokens\b[^.\n]{0,40}?\bmax\b",
            r"\btokens per request\b",
            r"\bsubmitted (?:was |is )?too long\b",
            r"\bsession token limit\b",
            r"\b(?:prompt|input) token limit\b",
            r"\b(?:prompt|input|conversation) (?:is |was )?too large\b",
            r"\b(?:input|prompt)\b[^.\n]{0,40}?\bexceeds? (?:the )?(?:maximum|max|limit)\b",
            r"\binput length\b[^\n]{0,40}?\b(?:should be|must be|exceed\w*|range|limit)\b",
            r"\bcontext limit\b",
        ),
    ),
    # A budget of steps or of thinking is the turn's limit, not money (before the quota words).
    rule(
        K.MAX_TOKENS,
        "wild/harnesses2/hermes-iteration-budget-reached-90",
        message=any_of(
            # used up, not merely named ("set only one of thinking budget and ...")
            r"\b(?:iteration|step|turn|thinking|reasoning) budget\b[^.\n]{0,20}?\b(?:reached|"
            r"exceeded|exhausted|used up|ran out|hit)\b",
            r"\b(?:reached|exceeded|exhausted|hit) (?:the |its |your )?(?:iteration|step|turn|"
            r"thinking|reasoning) budget\b",
        ),
    ),
    # --- quota: credits, billing, budgets, plans ------------------------------------------------
    rule(
        K.QUOTA,
        "text/credit-balance-too-low",
        message=any_of(
            r"\binsufficient[ _](?:quota|balance|credits?|funds)\b",
            r"\binsufficient_\w+_quota\b",  # one-api's insufficient_user_quota
            r"\bquota (?:is )?not enough\b",
            r"\bcredit balance\b",
            # Copilot's monthly allowance of premium requests, and the overages past it
            r"\bpremium requests?\b[^.\n]{0,20}?\b(?:limit|quota|allowance)\b",
            r"\boverages?\b",
            r"\bcredits? (?:exhausted|depleted|ran out|(?:are|have been) (?:used up|exhausted|"
            r"depleted))",
            r"\b(?:out of|no remaining|insufficient|not enough|run out of|ran out of|add|add more|"
            r"requires more) (?:\w+ )?credits?\b",
            r"\bprepayment credits\b",
            r"\bbalance (?:is )?(?:insufficient|too low|not enough|exhausted|negative)\b",
            r"\btop[ -]?up\b",
            r"\brecharge\b",
            r"\bgood standing\b",
            r"\b(?:do|does|did) not have enough (?:\w+ )?(?:credits?|quota|balance|funds)\b",
            r"\b(?:do|does|did)(?: not|n'?t) have any (?:credits?|balance|funds)\b",
            r"\bend of (?:\w+ )?quota\b",
            r"\b(?:buy|purchase|add) (?:more )?(?:credits|funds)\b",
            r"\barrear\w*",
            # insufficient balance, in arrears, recharge (Chinese providers' own words)
            "\u4f59\u989d\u4e0d\u8db3",
            "\u6b20\u8d39",
            "\u5145\u503c",
            "\u7528\u91cf\u4e0a\u9650",  # usage cap
            "\u989d\u5ea6\u4e0d\u8db3",  # "quota insufficient"
            r"\bbilling\b",
            r"\bpayment required\b",
            r"\bspend(?:ing)? (?:limit|cap)\b",
            r"\bbudget\b[^.\n]{0,30}?\b(?:exceed\w*|limit|cap|reached|spent)\b",
            r"\bexceed\w* (?:your |the )?(?:\w+ )?budget\b",
        ),
    ),
    rule(
        K.QUOTA,
        "wild/openai/codex-usage-limit-upgrade-pro",
        message=any_of(
            r"\bexceed\w* (?:your|the|its|their) (?:\w+ ){0,2}quota\b",
            r"\b(?:used up|exhausted) (?:your|the|its|their) (?:\w+ ){0,3}(?:allocation|quota|"
            r"credits|allowance)\b",
            r"\bnot enough (?:\w+ )?(?:quota|credits?|balance|funds)\b",
            r"\bquota limit (?:exceeded|reached|hit)\b",
            r"\bsubscription\b[^.\n]{0,30}?\b(?:expired|inactive|ended|required|limit)\b",
            r"\btrial (?:has )?(?:expired|ended)\b",
            r"\btrial (?:request |usage |message |token )?limits?\b",  # a trial's allowance
            r"(?:\b|_)quota[ _](?:exceeded|exhausted|reached|depleted|used up)\b",
            r"\bexhausted (?:your|the|its|their) (?:\w+ ){0,2}"
            r"(?:quota|capacity|credits|allowance|usage)\b",
            r"\bquota will reset\b",
            r"\bout of quota\b",
            r"\binsufficient_quota\b",
            r"\busage limits?\b",
            r"\busage cap\b",
            r"\btoday'?s (?:limit|quota|usage)\b",
            r"\bhours? limit\b",
            r"\bsession limit\b",
            r"\b(?:hit|reached) your (?!rate|per[ -])(?:[\w-]+ ){0,2}limits?\b",
            r"\b(?:have |has )?reached the limit\b",
            r"\bout of (?:extra )?usage\b",
            r"\bextra[ -]usage\b",
            r"\busage (?:exceeded|exhausted)\b",
            r"\bplan(?:'s)? (?:limit|quota)s?\b",
            r"\bupgrade (?:to|your) (?:\w+ ){0,2}(?:plan|plus|pro|max)\b",
            r"/upgrade\b",
            r"\blimit reached\b[^\n]{0,40}?\bresets?\b",
            r"\bkey limit exceeded\b",
            r"\bfree tier\b[^.\n]{0,40}?\b(?:limit|exceed\w*|exhaust\w*)",
        ),
    ),
    # --- a service out of capacity is an overload, even as RESOURCE_EXHAUSTED (Vertex) ---------
    rule(
        K.PROVIDER_UNAVAILABLE,
        "wild/harvest10_gateways/vertex-java-resource-exhausted-out-of-capacity",
        message=any_of(
            r"\b(?:temporarily )?out of capacity\b",
            r"\bno capacity available\b",
            r"(?-i:\bMODEL_CAPACITY_EXHAUSTED\b)",
        ),
    ),
    # --- rate_limit: only now do the bare words decide ------------------------------------------
    rule(
        K.RATE_LIMIT,
        "anthropic/rate-limit-account-subscription",
        message=any_of(
            r"\brate[ _-]?limit\w*",
            r"\btoo ?many ?requests\b",  # also the CamelCase of a status name
            r"\bthrottl\w+",
            r"\bslow down\b",
            r"\b(?:please back off|back off and (?:try|retry))\b",  # not "back off for 120 s"
            "\u8fc7\u4e8e\u9891\u7e41",  # "too frequent"
            r"\bwait before (?:trying|retrying)\b",
            r"\b(?:reduce|lower) (?:your |the )?request rate\b",
            r"\btoo many (?:concurrent |parallel |simultaneous )?(?:requests|connections|calls)\b",
            r"\brequest limit\b",
            r"\bconcurren\w* (?:request )?limit",
            r"\bspeed[ -]limited\b",
            r"\bresource (?:has been )?exhausted\b",
        ),
    ),
    # --- bad_request that must not read as auth: a model that is not there, a size too big ------
    rule(
        K.BAD_REQUEST,
        "openai/model-not-found",
        message=any_of(
            r"\b(?:unknown|invalid|unsupported|nonexistent) model\b",
            r"\bmodel[_ ]not[_ ]found\b",
            r"\bno such model\b",
            r"\b(?:specified |requested )?(?:version|deployment)\b[^.\n]{0,30}?\bdoes not exist\b",
            r"\bmodel\b[^.\n]{0,40}?\bis not provided by\b",
            # a model a platform does not serve (a plan or region says so in other words)
            r"\bmodel\b[^.\n]{0,60}?\bis not available on (?!(?:the |your )?(?:free|current|"
            r"this) )",
            r"\bno endpoints found that support\b",
            r"\binvalid schema\b",
            r"\bfailed to deseriali[sz]e the (?:json |request )?body\b",  # axum's 422 for a body
            r"\bnot a valid model\b",
            r"\bmodel\b[^\n]{0,80}?\b(?:(?:does|may) not exist|not found|is not a valid|"
            r"is not supported (?:when|with|by|for|in)|"
            r"has been (?:deprecated|decommissioned|retired)|is (?:deprecated|decommissioned|"
            r"retired))",
            r"\bmax_(?:output_|completion_)?tokens\b[^.\n]{0,40}?(?:too large|must be|"
            r"should be|exceeds|greater than|is not supported| > )",
            r"\b(?:size|length)\b[^\n]{0,30}?\bexceeds? (?:the )?(?:api |maximum |max )?limit\b",
            r"\b(?:string|value|field|name|description) (?:is )?too long\b",
            r"\bcannot be (?:greater|larger|more|less|smaller|longer|shorter) than\b",
        ),
    ),
    # --- a request the model's chat template or build cannot take: the request's fault, though
    # llama.cpp and Ollama send it as a 500 server_error
    rule(
        K.BAD_REQUEST,
        "wild/harvest16_infra/picoclaw-llm-500-jinja-role-alternation",
        message=any_of(
            r"\broles must alternate\b",
            r"\b(?:image|audio|vision|multimodal) input (?:is )?not supported\b",
            r"\brequires (?:the )?--jinja\b",
        ),
    ),
    # --- a connection that never opened (TLS, a dial): the words of a login are only the stage --
    rule(
        K.PROVIDER_UNAVAILABLE,
        "wild/harvest_lifecycle/gemini-cli-signin-tls-socket-disconnected",
        message=any_of(
            r"\bbefore (?:a )?secure TLS connection\b",
            r"<title>just a moment\.\.\.</title>",  # Cloudflare's challenge page, not the API
            r"\bdial tcp\b[^\n]{0,60}?\bi/o timeout\b",  # Go's words for a connect that timed out
            r"\bhandshake (?:failed|failure)\b",
            r"\bcertificate verify failed\b",
            r"\bself[- ]signed certificate\b",
            r"\bunable to (?:get (?:local )?issuer|verify the first) certificate\b",
            # node's TLS error codes
            r"\b(?:cert_has_expired|unable_to_verify_leaf_signature|depth_zero_self_signed_cert|"
            r"self_signed_cert_in_chain|unable_to_get_issuer_cert_locally|err_tls_cert_altname_invalid)\b",
        ),
    ),
    # --- auth -----------------------------------------------------------------------------------
    rule(
        K.AUTH,
        "openai/incorrect-api-key-message",
        message=any_of(
            # a request signed with the wrong secret (providers that sign, not send, a key)
            r"\binvalid (?:request )?signature\b",
            r"\bsignature\b[^.\n]{0,20}?\b(?:mismatch|does not match|verification failed)\b",
            r"\b(?:invalid|incorrect|missing|expired|revoked|bad|wrong|disabled|malformed)\b"
            r"[^.\n]{0,12}?\b(?:api[ _-]keys?|apikeys?)\b",
            r"\bno (?:api[ _-]keys?|apikeys?)\b",
            r"(?:\b|_)(?:api[ _-]keys?|apikeys?)(?:\b|_)[^.\n]{0,20}?"
            r"\b(?:not valid|invalid|expired|"
            r"missing|required|not found|not provided|is not set|not set|revoked|disabled|"
            r"must be set|must be provided)\b",
            r"\bAPI_KEY_(?:INVALID|EXPIRED)\b",
            r"\binvalid_api_key\b",  # OpenAI's code, as a log line writes it (error_code=...)
            r"\b(?:not_authed|invalid_auth)\b",  # Slack's codes for a bot token it refused
            r"\bunauthori[sz]ed\b",
            r"\b(?:user|account) is disabled\b",
            r"\bhas not been used in project\b",
            r"\bnot supported when using\b[^.\n]{0,40}?\baccount\b",
            r"\bunauthenticated\b",
            r"\bnot authenticated\b",
            r"\bauthenticat\w*\b[^.\n]{0,20}?\b(?:failed|required|error|invalid)\b",
            r"\bfailed to (?:authenticate|sign in|log ?in)\b",
            r"\bfailed to refresh (?:\w+ ){0,2}(?:token|credentials?|session|login|auth\w*)s?\b",
            r"\brequires? (?:\w+ ){0,2}authentication\b",
            r"\bauth(?:entication)? method\b",
            r"\b(?:invalid|expired|revoked|missing)\b[^.\n]{0,12}?\b(?:access |auth |oauth |"
            r"bearer |refresh |session |security )?tokens?\b",
            r"\btokens?\b[^.\n]{0,20}?\b(?:has expired|expired|(?:was |been )?revoked|is invalid|"
            r"was already used|could not be refreshed)\b",
            # a file the OS would not open (EACCES, errno 13) is no credential's fault
            r"\bpermission[ _]denied\b(?<!eacces: permission denied)"
            r"(?<!errno 13\] permission denied)(?!,? (?:open|mkdir|scandir|unlink|rename|access|"
            r"lstat|stat|chmod|copyfile|symlink|rmdir|spawn)\b| ?\(os error 13\))",
            r"\baccess (?:is )?denied\b",
            r"\bforbidden\b",
            r"\b(?:do|does|did)(?: not|n'?t) have (?:permission|access)\b",
            r"\bno permission\b",
            r"\bno (?:team|user|key|project|organization|account) has access\b",
            r"\bcheck (?:the |your )?api[ _-]?key\b",
            r"(?-i:\bVALIDATION_REQUIRED\b)",
            r"\bvalidation required to continue\b",
            r"\bnot (?:authorized|permitted|allowed) to (?:access|use)\b",
            r"\binsufficient permissions?\b",
            r"\bplease (?:run /login|log ?in|sign in|re-?authenticate|authenticate)\b",
            r"/login\b",
            r"\bnot logged in\b",
            r"\blog ?in (?:is )?required\b",
            r"\b(?:sign|log) ?in again\b",
            r"\bauthorization code\b",
            r"\boauth\b[^.\n]{0,30}?\b(?:expired|revoked|invalid|failed|error)\b",
            r"\b(?:country|region|territory|location)\b[^.\n]{0,20}?\b(?:not supported|"
            r"does not support)\b",
            r"\bregional restrictions?\b",
            r"\bnot available in (?:your|this) (?:country|region|territory|location)\b",
            r"\b(?:model[ _])?not[ _]entitled\b",
            r"\binvalid ?(?:provider ?)?api ?key\b",  # also the CamelCase of a class or a code
            r"\bno (?:api )?key (?:was )?(?:found|provided|set|configured)\b",
            r"\binvalid[ _-]?(?:credentials|authentication)\b",
            r"\b(?:missing|no|expired|bad) credentials\b",
            r"\b(?:session|access|auth|bearer|refresh) tokens?\b[^.\n]{0,20}?\b(?:not found|"
            r"invalid)\b",
            r"\b(?:session|secret|access) keys?\b[^.\n]{0,12}?\b(?:invalid|expired|missing)\b",
            r"\bdisabled (?:in|for) (?:this|your) account\b",
            "\u6388\u6743\u5931\u8d25",  # "authorization failed"
            "\u9274\u6743\u5931\u8d25",  # "authentication failed"
            "\u8ba4\u8bc1\u5931\u8d25",  # "authentication failed"
            r"\btoken (?:exchange|refresh)\b[^.\n]{0,20}?\bfail",
            r"\bcredentials?\b[^.\n]{0,20}?\b(?:invalid|expired|missing|not found|"
            r"could not be loaded)\b",
            r"\b(?:disabled|suspended|deactivated) (?:organization|account)\b",
            r"\b(?:organization|account) (?:has been |is )?(?:disabled|suspended|deactivated|"
            r"restricted|banned|blocked)\b",
            # "Your User ID (...) temporarily is suspended", "we've locked your account"
            r"\b(?:account|user id)\b[^.\n]{0,60}?\b(?:is |has been |was )?suspended\b",
            r"\blocked (?:your|the) account\b",
            r"\bhas disabled\b[^.\n]{0,40}?\baccess\b",
            r"\baccess (?:has been |was |is )?(?:terminated|revoked|suspended|paused)\b",
            r"\bbearer\b[^.\n]{0,20}?\b(?:missing|invalid|required|expired)\b",
            r"\bsignature\b[^.\n]{0,40}?\b(?:does not match|invalid|expired)\b",
            r"\binvalid[ _-]?(?:authorization|auth)\b",
            r"\b(?:organization|account) must be verified\b",
            r"\bdid not find\b[^.\n]{0,30}?api[ _]?key",
            r"\bpairing required\b",
            r"\bno valid (?:\w+ ){0,3}(?:token|credentials?|api key|session)\b",
            r"\bauth login\b",
            r"\bmissing key inputs argument\b",  # google-genai's client made without a key
        ),
    ),
    # --- max_tokens: the output or the turn limit, not a max_tokens parameter refused -----------
    rule(
        K.MAX_TOKENS,
        "claude-code/output-token-maximum",
        message=any_of(
            r"\boutput token (?:maximum|limit)\b",
            # pydantic-ai's run budget: requests, tokens or tool calls of one run
            r"\busagelimitexceeded\b",
            r"\bexceeded the (?:total_tokens|request|response_tokens|request_tokens|tool_calls)"
            r"_limit\b",
            r"\b(?:max|maximum) (?:output )?tokens?\b[^.\n]{0,30}?\b(?:reached|hit)\b",
            r"\b(?:reached|hit|exceeded|due to) (?:the |its )?max(?:imum)?[ _]"
            r"(?:output[ _])?tokens\b",
            r"\bfinish_?reason\W{1,4}(?:length|max[_-]tokens)\b",
            r"\bstop_?reason\W{1,4}(?:max_tokens|length)\b",
            r"\b(?:response|output|answer)\b[^.\n]{0,20}?\bexceeded (?:the )?(?:maximum|max) "
            r"(?:length|size)\b",
            r"(?-i:\bMAX_TOKENS\b)",
            r"\b(?:response|output|answer) (?:was )?(?:truncated|cut off)\b",
            r"\btruncated due to\b",
            r"\btoken limit\b[^.\n]{0,20}?\b(?:reached|hit)\b",
            r"\bhit a token limit\b",
            r"\boutput limit\b",
            r"\b(?:max|maximum)[ _-](?:\w+ )?(?:turns?|iterations?|steps|tool calls|actions)"
            r"(?:\b[^.\n]{0,20}?\b|_)(?:reached|exceeded|hit)\b",
            r"\b(?:reached|hit|exceeded) (?:the )?max(?:imum)? (?:number of )?(?:\w+ ){0,2}"
            r"(?:turns|iterations?|steps)\b",
            r"\bmax_turn_requests\b",
            r"\berror_max_turns\b",
            r"\b(?:max|maximum) (?:iterations|steps|turns)\b",
            r"\bincomplete_details\W{1,12}reason\W{1,5}max_output_tokens\b",
            r"\bout of output tokens\b",
            r"\biteration limit\b",
            r"\bstopped at \d+ (?:iterations|steps|turns|rounds|tool calls)\b",
            r"\bonly \S+ (?:reflections|iterations|steps|turns|rounds|tool calls) "
            r"(?:are )?allowed\b",
            r"\b(?:after|exceeded|more than|over) \d+ (?:sequential |consecutive )?tool "
            r"(?:calls|executions|invocations)\b",
            "\u8fbe\u5230\u6700\u5927[^\u3002\\n]{0,10}\u6df1\u5ea6",  # reached the max ... depth
            r"\bfinish[ _]?reason\W{1,4}2\b",
            r"\bmaximum number of (?:\w+ ){0,2}(?:calls|rounds|turns|steps|actions|iterations)\b",
            # pydantic-ai's UsageLimitExceeded names the cap it hit
            r"\b(?:request|tool_calls|output_tokens|response_tokens)_limit\b",
            r"\bresponse (?:was |is )?too long\b",
            r"\b(?:hit|reached) the (?:\w+ )?length limit\b",
            r"\bturns? limit\b",
            r"\b\d+ turns\b[^.\n]{0,30}?\bexceed\w*\b[^.\n]{0,30}?\bmaximum\b",
            "\u88ab\u622a\u65ad",  # "was truncated"
            "\u8f93\u51fa\u4e0d\u5b8c\u6574",  # "output incomplete"
            r"\brecursion limit\b[^.\n]{0,20}?\breached",
            r"\blength limit (?:was |is |has been )?reached\b",
            # a cap on the tools one turn may run, used up
            r"\btool[ -]?(?:call|use|execution)s? (?:limit|budget)\b[^.\n]{0,20}?\b(?:reached|hit|"
            r"exhausted|exceeded)\b",
            r"\b(?:hit|reached|exceeded|exhausted) the tool[ -]?(?:call|use|execution)s? (?:limit|"
            r"budget)\b",
            r"\bstopped before finishing\b",
            r"\b(?:generation|output|response|answer|completion) (?:was |has )?stopped\b"
            r"[^.\n]{0,30}?\b(?:token|length) limit\b",
        ),
    ),
    # --- an agent that could not start (before "timed out": it may time out starting) -----------
    rule(
        K.HARNESS_EXITED,
        "wild/opencode/routa-acp-failed-to-spawn-opencode",
        message=any_of(
            r"\b(?:failed to (?:start|spawn|launch)|startup failed|could not (?:start|spawn)|"
            r"spawn failed)\b[^.\n]{0,60}?\b(?:process|agent|harness|cli|subprocess|child process|"
            r"acp|app-server|stdio|binary|executable)\b",
            r"\b(?:binary|executable)\b[^.\n]{0,200}?\bfailed to (?:launch|start|spawn)\b",
            r"\b(?:process|agent|harness|cli|subprocess|child process|acp|app-server|stdio)"
            r"\b[^.\n]{0,40}?\b(?:failed to start|startup failed|spawn failed)\b",
            r"\bfailed to spawn\b",
            r"\bfailed to launch\b",
            r"\bdid not become ready\b",
            r"\bcannot be (?:launched|started)\b",
            r"\bexec format error\b",
        ),
    ),
    # --- a connect that timed out never reached the provider (before "timed out") -------------
    rule(
        K.PROVIDER_UNAVAILABLE,
        "wild/network2/undici-fetch-failed-connect-timeout-cause",
        message=any_of(
            r"\bconnect(?:ion)?[ _-]?time[ _-]?out\b",
            "\u8fde\u63a5\u8d85\u65f6",  # "connection timed out"
            r"ConnectTimeout",
            r"\bconnect ETIMEDOUT\b",
            r"\btls handshake timeout\b",  # Go's net/http: no answer before the connection opened
            r"\btimed out (?:while )?connecting\b",
            r"\bcould not establish (?:a )?(?:tcp )?connection\b",
            r"\bcannot assign requested address\b",  # EADDRNOTAVAIL: no socket could be opened
            # Go's words for a TCP socket to the provider that broke (not a pipe to a process)
            r"\b(?:write|read) tcp\b[^\n]{0,80}?\b(?:broken pipe|connection reset)\b",
        ),
    ),
    # --- node_offline: the machine or runtime an agent runs on went away ------------------------
    rule(
        K.NODE_OFFLINE,
        "wild/agents/multica-daemon-offline-label",
        message=any_of(
            # one alternative per ending, so that each is tried only where its words are
            *(
                _MACHINE + r"\b[^.\n]{0,80}?\b" + ending + r"\b"
                for ending in (
                    r"(?:has |is )?disconnected",
                    r"lost (?:connection|communication)",
                    r"(?:stopped|not) responding",
                    r"not connected",
                    r"(?:did not|failed to) reconnect",
                    r"(?:still )?(?:has|have) not reconnected",
                    r"stopped (?:while|during|mid)",
                    r"stopped reporting",
                    r"(?:is )?taking too long to connect",
                    r"crashed",
                    r"has exited",
                    r"unreachable",
                    r"(?:stream )?broke",
                    r"went away",
                    r"is gone",
                )
            ),
            r"\b(?:sandbox|runtime|container|workspace|environment|node|worker|runner|daemon|"
            r"machine)\b[^.\n]{0,60}?\b(?:is |was )?(?:unavailable|unhealthy|(?:has |have |may "
            r"have )?(?:already )?shut down)\b",
            # a link to the machine the agent runs on that failed, in one line of either order
            r"\b(?:sandbox|runner|daemon|devcontainer|codespace)\b[^\n]{0,120}?\b(?:connection "
            r"(?:refused|reset|closed|lost)|disconnected|(?:is |was )?not running|econnrefused)\b",
            r"\b(?:connection (?:refused|reset|closed|lost)|disconnected|econnrefused)\b"
            r"[^\n]{0,120}?\b(?:sandbox|runner|daemon|devcontainer|codespace)\b",
            r"\bstopped hearing from\b",
            r"\bno such container\b",  # docker's words for a sandbox container that is gone
            r"\bsandbox[ _](?:was |has been |is )?(?:stopped|terminated|expired|killed)\b",
            # a WebSocket to the node closed without a close frame (1006) or a status (1005)
            r"\b(?:disconnected|closed|close)\b\W{0,3}(?:with )?(?:status )?(?:code )?\(?100[56]\b",
            r"\babnormal closure\b",
            r"\b(?:sandbox|runtime|container|workspace|vm)\b[^.\n]{0,30}?\b(?:entered|is in|"
            r"went into) (?:an? )?error state\b",
            r"\bagent lost\b",  # Buildkite: the agent's machine vanished mid-job
            r"\bnode (?:is )?not ready\b",  # the kubelet's words, and its NodeNotReady
            r"\bnodenotready\b",
            r"\bnode had condition\b",  # a pod evicted for the node's disk or memory pressure
            r"\blost connection to (?:the |a )?(?:worker|runner|node|sandbox|vm|container)\b",
            r"\binstance\b[^.\n]{0,30}?\b(?:was|has been|is being) (?:stopped|terminated|"
            r"preempted)\b",
            r"\bspot (?:instance )?interruption\b",
            r"\braylet\b[^.\n]{0,40}?\b(?:died|crashed|connection closed)\b",  # Ray's node runtime
            r"\bec2\b[^.\n]{0,40}?\b(?:is |was |has been )?terminated\b",
            r"\b(?:docker|daemon|docker daemon)\b[^.\n]{0,30}?\b(?:is not|isn't|may not be) "
            r"running\b",
            r"\b(?:sandbox|instance|runtime|container|vm|worker)\b[^.\n]{0,30}?\bno longer "
            r"(?:active|accepts|available|running|exists)\b",
            r"\bworker connection (?:closed|lost|dropped)\b",
            # SSH's words when the link to a machine dropped ("Connection to 10.0.0.5 closed.")
            r"\bconnection to \d{1,3}(?:\.\d{1,3}){3} closed\b",
            r"\brunner has received a shutdown signal\b",  # GitHub Actions: the runner machine
            r"\bshutdown manager killing pod\b",  # the kubelet, when its node shuts down
            r"\bnode (?:is )?shutting(?: down)?\b",  # the kubelet's older "Node is shutting"
            r"\btermination is imminent\b",  # a cloud's notice that a spot machine is taken back
            r"\bdue to (?:node )?(?:preemption|node fail\w*)\b",  # Slurm, of a job's node
            r"\bclient_loop: send disconnect\b",  # OpenSSH, when the link to the host drops
            # the machine itself, not a process on it: a cloud or WSL instance, a VM, a pod
            r"\b(?:(?:spot |ec2 |wsl |vm |cloud |linux )instance|virtual machine|vm|pod|"
            r"codespace)\b"
            r"[^.\n]{0,40}?\b(?:has |was |is )?(?:been )?(?:terminated|preempted|reclaimed|"
            r"deleted)\b",
            r"\b(?:disconnected|lost (?:the )?connection) from (?:the |your )?(?:codespace|remote|"
            r"sandbox|runtime|workspace|vm|host|devcontainer|container)\b",
            # SSH to the machine the agent works on: its own words, or a refusal on port 22
            r"\bssh\w*\b[^\n]{0,60}?\bconnection (?:closed|reset|refused|timed out|lost)\b",
            r"\beconnrefused [\d.]+:22\b",
            r"\bnode was low on resource\b",  # the kubelet's words when it evicts a pod
            r"\bevict(?:ed|ing)\b",
            r"\bheartbeats?\b[^.\n]{0,40}?\b(?:missed|lost|timed? ?out|stopped|not received|stale|"
            r"expired|dropped|failed)\b",
            r"\bno heartbeat\b",
            r"\bmissed\b[^.\n]{0,20}?\bheartbeats?\b",  # "missed too many heartbeats"
            r"\bdid not reconnect within\b",
            r"\bneeds? (?:to )?reconnect\b",
            r"\bgrace period\b[^.\n]{0,20}?\b(?:expired|elapsed)\b",
            r"\blost communication\b",
            r"\b(?:sandbox|runtime|container|environment|workspace)\b[^.\n]{0,60}?\b(?:was |is )?"
            r"not found\b",
            r"\b(?:failed to|could not|cannot|unable to) connect to\b[^.\n]{0,40}?\b(?:desktop|"
            r"gateway|daemon|runtime|node|worker|runner|host agent|remote|extension host|"
            r"environment|sandbox|workspace|bridge|relay|codespace|ssh|vm|wsl)\b",
            r"\b(?:gateway|bridge|relay|hub) (?:connection )?closed\b",
            r"\bnever connected\b",
            r"\bno (?:sandbox|runtime|container|workspace) (?:was )?found\b",
            r"\b(?:sandbox|runtime|container|workspace|vm)\b[^.\n]{0,30}?\bnot running "
            r"(?:anymore|any more)\b",
            r"\bnode connection (?:failed|lost|closed)\b",
            # a worker that stopped renewing its claim on the run: the machine went silent
            r"\b(?:worker|run|runner|node|agent)\b[^.\n]{0,30}?\blease (?:has )?(?:expired|lost)\b",
            r"\bhosted (?:runner|agent)\b[^.\n]{0,60}?\b(?:encountered an error|disconnect\w*|"
            r"lost communication)\b",
            r"\brequest to deprovision\b",  # the CI machine taken away under the job
            r"\bno (?:container|sandbox|runner|worker|vm) (?:instance )?(?:is )?(?:online|"
            r"available|that can be provided)\b",
            r"\boffline\b",
            "\u79bb\u7ebf",  # offline
        ),
    ),
    # --- timeout --------------------------------------------------------------------------------
    rule(
        K.TIMEOUT,
        "text/request-timed-out",
        message=any_of(
            r"\btimed?[ -]?out\b(?!\s*[=:]\s*\d)",
            r"\btimeout\b(?<!['\"`]timeout)(?!\s*[=:]\s*\d)",
            r"\bdeadline[ _]exceeded\b",
            r"\bETIMEDOUT\b",
            r"\binactivity (?:watchdog|timeout)\b",
            r"\bexceeded \d+ ?(?:ms|s|secs?|seconds|milliseconds|minutes?|mins?)\b",
            r"\bmcp error -32001\b",  # MCP's RequestTimeout
            # SIGALRM: the alarm a runtime sets for its time limit (Lambda's "alarm clock")
            r"\bsignal: alarm clock\b",
            r"(?-i:\bSIGALRM\b)",
            r"\bESOCKETTIMEDOUT\b",
            r"\btimeout ?(?:error|exception)\b",
            r"\btook too long\b",
            r"\bexceeded the maximum (?:execution |run ?|running )?time\b",
            r"\btime limit\b[^.\n]{0,20}?\b(?:exceeded|reached)\b",
            r"\b(?:exceeded|reached|hit) the time limit\b",
            r"\bstalled\b",
            r"\bbatch (?:has )?expired\b",  # a batch that did not finish in its window
            "\u8d85\u65f6",  # timed out
            r"\bdid not respond (?:in time|within)\b",
            r"\bno response (?:was )?(?:received )?within\b",
        ),
    ),
    # --- provider_unavailable: the provider says it cannot serve now (after "timed out": a timeout
    # that guesses at an overload is the timeout) ---------------------------------------------
    rule(
        K.PROVIDER_UNAVAILABLE,
        "text/overloaded",
        message=any_of(
            r"\boverload\w*",
            r"\bservice (?:is )?(?:temporarily |currently )?unavailable\b",
            r"\bserver (?:is )?(?:temporarily |currently )?(?:busy|overloaded|unavailable)\b",
            r"\btoo busy\b",
            r"\bservice (?:is )?(?:currently )?busy\b",
            # Ollama's model runner that died is the local provider gone, not the harness
            r"\b(?:llama |model )?runner (?:process )?(?:has )?(?:terminated|"
            r"(?:unexpectedly )?stopped(?: unexpectedly)?|crashed)\b",
            r"\bollama(?:\.service)?\b[^\n]{0,40}?\boom[ -]?kill",
            r"\bfailed to start (?:a |the )?llama runner\b",
            r"\bno suitable llama servers?\b",
            # llama.cpp's server, every slot busy
            r"\bno (?:free |idle )?slots? (?:are )?available\b",
            r"\bmodel (?:is )?(?:currently )?busy\b",
            r"\bmodel (?:has )?crashed\b",
            r"\bserver (?:is )?not running\b",
            r"\b(?:under|down for|scheduled) maintenance\b",
            r"\boutage\b",
            r"\b(?:on our (?:end|side)|server[- ]side (?:error|issue|problem))\b",
            r"\bmodel\b[^\n]{0,60}?\bis (?:currently )?loading\b",
            "\u8bbf\u95ee\u91cf\u8fc7\u5927",  # "too much traffic"
            r"\bhigh demand\b",
            "\u9ad8\u9700\u6c42",  # "high demand"
            r"\bover capacity\b",
            r"\bcapacity (?:exceeded|constraints?|issues?)\b",
            r"\bexperiencing (?:high|heavy|unusually high) (?:load|traffic|demand)\b",
            r"\bno (?:available|healthy) (?:upstream|endpoints?|providers?|backends?|deployments?)"
            r"\b",
            r"\bno allowed providers\b",
            r"\b(?:not|n't) (?:have )?enough (?:available |system |free )?memory\b",
            r"\brequires more (?:system )?memory\b",
            r"\bfailed to load (?:the )?model\b",
            r"\bmodel (?:has not been|is not|not) loaded\b",
            r"\bno model (?:has been |is )?loaded\b",
            r"\ban error occurred while processing your request\b",  # OpenAI's server_error
            r"\berror loading model\b",
            r"\bunable to process (?:your|the) request\b",
            r"\bdegraded (?:service|performance|mode|state)\b",  # a status page's words
            r"\b(?:service|system|api|platform) (?:is )?(?:currently )?degraded\b",
        ),
    ),
    # --- a Rust panic is the process's own end, whatever it was doing (after "timed out") -------
    rule(
        K.HARNESS_EXITED,
        "wild/harvest11_geminicodex/codex-cli-linux-sandbox-panicked-landlock-restrict",
        message=any_of(r"\bthread '[^'\n]{1,40}'(?: \([^)\n]{0,40}\))? panicked at\b"),
    ),
    # --- 5xx words (after "timed out": a 5xx that timed out is the timeout) ---------------------
    rule(
        K.PROVIDER_UNAVAILABLE,
        "opencode/server-had-an-error",
        message=any_of(
            r"\binternal[ _]?server[ _]?(?:error|exception)\b",
            r"\bresponse payload is not completed\b",
            r"\bended without (?:a |any )?(?:terminal|final|closing|response)\b",
            r"\bincomplete json\b",
            r"\bdid not receive (?:a |the )?(?:done|final|completion|success)\b",
            r"\bclosed before the connection\b",
            r"\bbad gateway\b",
            r"\bserver[ _]error\b",
            r"\bserver (?:had|experienced) an error\b",
            r"\binternal error encountered\b",  # Google's 500 INTERNAL
            r"\bsystem[ _]error\b",
            # not "Upstream error (400)": a proxy passing on a request the provider refused
            r"\bupstream\b[^.\n]{0,20}?\b(?:error|unavailable|connect)(?!\w*\W{1,3}4\d\d\b)",
            r"\bunavailable\b",
        ),
    ),
    # --- a process that crashed is no cancellation ("Aborted (core dumped)" is SIGABRT) ---------
    rule(
        K.HARNESS_EXITED,
        "wild/harvest_agents/hermes-oneshot-aborted-core-dumped",
        message=any_of(
            r"\bcore dumped\b",
            r"\bsegmentation fault\b",
            r"\bgeneral protection fault\b",
            r"\bcore dump\b",  # systemd-coredump's "Process Core Dump"
            # Jupyter's words for a kernel process that died under it
            r"\bkernel (?:has )?(?:died|restarted)\b",
            r"\brestarting kernel\b",
            r"(?-i:\b(?:SIGKILL|SIGSEGV|SIGABRT|SIGBUS|SIGILL|SIGFPE)\b)",
            # the kernel's and the shell's words for a process killed by SIGILL
            r"\btrap invalid opcode\b",
            r"\bkill(?:ed)? process \d+\b",  # the kernel's OOM killer
            r"\bexiting due to (?:an? )?uncaught ?exception\b",
            r"\bbus error\b",  # SIGBUS, as zsh reports a job
            r"\bcaught panic\b",
            r"\bnil pointer dereference\b",  # Go's runtime, as a crash prints it
            r"\billegal instruction\b",
        ),
    ),
    # --- a connection the server dropped is no cancellation -------------------------------------
    rule(
        K.PROVIDER_UNAVAILABLE,
        "wild/lead/requests-connection-aborted-remote-disconnected",
        message=any_of(
            r"\bconnection (?:was )?(?:aborted|interrupted)\b",
            r"\bECONNABORTED\b",
            r"\bsocket connection was closed unexpectedly\b",  # Bun's fetch, mid-answer
            r"\baborted_by_worker\b",  # the inference worker gave up, not the user
        ),
    ),
    # --- cancelled ------------------------------------------------------------------------------
    rule(
        K.CANCELLED,
        "text/request-aborted",
        message=any_of(
            r"\b(?:cancell?ed|aborted|interrupted|stopped) by (?:the )?user\b",
            r"\buser (?:cancell?ed|aborted|interrupted)\b",
            r"\buser_?cancell?ed\w*",  # a class or code: UserCancelledRun, user_cancelled
            r"\buser[ -]requested\b",
            r"\bthe user doesn't want to (?:proceed|take this action)\b",
            r"\bKeyboardInterrupt\b",
            r"\bAbortError\b",
            r"\b(?:response|request)aborted\b",
            r"\babort requested\b",
            r"\bcancel (?:was )?(?:received|requested)\b",
            # a server's words when the caller hung up mid-request (nginx logs it as 499)
            r"\bclient (?:has )?disconnected\b",
            r"\bclient connection (?:was )?(?:prematurely )?closed\b",
            r"\bclient closed (?:the )?(?:connection|request)\b",
            "\u5df2\u53d6\u6d88",  # "cancelled"
            "\u7528\u6237\u53d6\u6d88",  # "the user cancelled"
            r"\bctrl-?c\b",
            r"\bcancell?ed\b",
            r"\baborted\b",  # not "aborting": a harness giving up after an error says that
            r"\binterrupted\b",
            r"\bcancell?ation\b",
        ),
    ),
    # --- harness_exited: the agent's own process ended ------------------------------------------
    rule(
        K.HARNESS_EXITED,
        "wild/agents/multica-codex-process-exited-status-2",
        message=any_of(
            r"\bprocess\b[^.\n]{0,40}?\b(?:exited|exiting|terminated|crashed|died|quit|was killed|"
            r"is not (?:available|running))\b",
            r"\b(?:exited|terminated|shut down|closed|stopped) (?:unexpectedly|prematurely|"
            r"abnormally)\b",
            r"\bexit(?:ed)? \(?(?:with )?(?:exit )?(?:code|status)\b[: =]{0,2}(?:some\()?-?\d+",
            r"\bexited with\b",
            r"\bexitfailure\b",  # Haskell's System.Exit, as a worker reports it
            # a process the memory ran out under (a server's "CUDA out of memory" is below)
            r"\b(?:crashed|was killed|died)\b[^.\n]{0,30}?\b(?:ran|run) out of memory\b",
            r"\bmay have run out of memory\b",
            r"\boom[ _-]kill(?:ed|er|s)?\b",  # the kernel's OOM killer, as Slurm and logs name it
            r"\b(?:task|step|job|process|worker|container|pod)\b[^.\n]{0,20}?\b(?:ran|run|running) "
            r"out of memory\b",
            r"\breturned (?:a )?non-?zero\b",
            r"\bfailed \((?:exit )?code (?:-?[1-9]\d?|12[67]|13\d|14\d|255)\b",
            r"(?:\b|_)exit_?code\b\W{0,3}-?[1-9]\d*",  # exitCode=1, EXIT_CODE="139"
            # an MCP server's stdio child that ended: the SDKs' -32000 "Connection closed"
            r"\bmcp error -32000\b",
            r"\bmcp\b[^.\n]{0,40}?\bconnection closed\b",
            r"\bcommand not found\b",
            r"\bsh: (?:line )?\d+: [^:\n]+: not found\b",  # dash's own words for it
            r"\bspawn\b[^\n]{0,80}?\b(?:E[A-Z]{3,}|UNKNOWN)\b",  # libuv's codes, as node says them
            r"\bserver exited\b",
            r"\bEPIPE\b",
            r"\bbroken pipe\b",
            r"\bwrite after (?:end|destroy\w*)\b",
            r"\bstream was destroyed\b",
            r"ERR_STREAM_(?:DESTROYED|WRITE_AFTER_END)",
            r"\bconnection to\b[^.\n]{0,60}?\b(?:was |has been )?lost\b",
            r"\b(?:query|session|process|agent|pipe|channel|bridge) closed before (?:the )?"
            r"(?:response|reply|turn)\b",
            r"(?<!client )\bprocess failed\b",  # Emacs' "make client process failed" is a socket
            r"\bprocess (?:is|has) gone\b",
            r"\bprocess[ _](?:was )?lost\b",
            r"\b(?:shutting down|killing|terminating) the (?:\w+ )?process\b",
            r"\bprocess ?transport closed\b",
            r"\bprocess stdin\b",
            r"\breturned non-zero exit status\b",
            r"\bnon-?zero exit\b",
            r"\bbackend (?:process )?(?:stopped|exited|crashed|died)\b",
            r"\b(?:internal ?agent ?died|agent (?:has )?died)\b",
            r"(?-i:\b\d+ Killed\b)",  # bash reports a job killed by a signal as "<pid> Killed"
            r"\b(?:failure|return) code\b[: ]{0,2}-?\d+",
            r"\bis not recognized as an internal or external command\b",
            # the same words of Windows' cmd.exe in its other languages
            "\u4e0d\u662f\u5185\u90e8\u6216\u5916\u90e8\u547d\u4ee4",  # zh-CN
            "\u5167\u90e8\u6216\u5916\u90e8\u547d\u4ee4",  # zh-TW
            "\u5185\u90e8\u30b3\u30de\u30f3\u30c9\u307e\u305f\u306f"
            "\u5916\u90e8\u30b3\u30de\u30f3\u30c9",  # ja
            "\ub0b4\ubd80 \ub610\ub294 \uc678\ubd80 \uba85\ub839",  # ko
            r"\bcomando interno\b",  # es, pt, it
            r"\bcommande interne\b",  # fr
            r"\bfalsch geschrieben oder\b",  # de
            "\u0432\u043d\u0443\u0442\u0440\u0435\u043d\u043d\u0435\u0439 \u0438\u043b\u0438 "
            "\u0432\u043d\u0435\u0448\u043d\u0435\u0439",  # ru
            # the agent's own command is missing: it could not be started
            r"\b(?:cli|binary|executable)\b[^.\n]{0,20}?\b(?:is )?not installed\b",
            r"\bcli n'est pas install",  # fr
            r"\bcannot find module\b",
            r"\b(?:process|agent|harness|cli|subprocess|child process|acp|app-server|stdio)"
            r"\b[^.\n]{0,30}?\b(?:connection|websocket|socket|pipe) (?:was )?closed\b",
            r"\bsegmentation fault\b",
            r"\bcore dumped\b",
            r"(?-i:\b(?:SIGKILL|SIGSEGV|SIGABRT|SIGBUS|SIGTERM)\b)",
            r"\bheap out of memory\b",
            r"\bruntime: out of memory\b",  # Go's runtime, before a server's "out of memory"
            r"\b(?:stdin|stdout)\b (?:was |is |has been )?closed\b",
            r"\bOOMKilled\b",
            r"\bpanicked at\b",
            r"\bpanic: ",
            r"\bun(?:handled|caught) (?:promise )?(?:exception|rejection)\b",
            r"\b(?:binary|executable|cli|claude code)\b[^.\n]{0,20}?\bnot found\b",
            r"\bno such file or directory\b",
            r"\bnot found in (?:your |the )?path\b",  # the agent's own binary is missing
            r"\b(?:process|agent|harness|cli|subprocess|child process|acp|app-server|stdio)"
            r"\b[^.\n]{0,30}?\b(?:exited|crashed|died|terminated)\b",
            r"\bwas killed\b",
            r"^killed$",
        ),
    ),
    # --- provider_unavailable: the provider could not be reached --------------------------------
    rule(
        K.PROVIDER_UNAVAILABLE,
        "text/connection-error",
        message=any_of(
            r"\bECONNREFUSED\b",
            r"\b(?:could not|cannot|can't|couldn't) be reached\b",
            r"\b(?:error|failure)\b[^.\n]{0,30}?\b(?:at|in) (?:the )?transport layer\b",
            r"\bconnection refused\b",
            r"\bfailed to get (?:a )?response from (?:the )?(?:provider|upstream|server|model)\b",
            r"\b(?:error|failed|unable|failure) (?:attempting |trying |while trying )?to connect "
            r"to (?:the )?(?:server|host|api|endpoint|upstream)\b",
            r"\bECONNRESET\b",
            r"\bconnection reset\b",
            r"\bsocket hang up\b",
            r"\bENOTFOUND\b",
            r"\bEAI_AGAIN\b",
            r"\bgetaddrinfo\b",
            r"\bname resolution\b",
            r"\bdns (?:lookup|resolution|query)\b[^.\n]{0,40}?\bfail",
            r"\bfetch failed\b",
            r"\bother side closed\b",
            r"\berror communicating with\b",
            r"\buse of closed network connection\b",
            r"\bname or service not known\b",
            r"\bnodename nor servname\b",
            r"\bno route to host\b",
            r"\bproxy error\b",
            r"\bno response from (?:the )?(?:server|provider|api|upstream|model)\b",
            r"\b(?:websocket|socket) error\b",
            r"\binvalid chunk\b",
            r"\btypeerror: terminated\b",
            r"\bunexpected eof\b",
            r"\bunexpected end of (?:json input|stream|data)\b",
            r"\bempty reply from server\b",
            r"\bwithout sending any (?:chunks|data|bytes)\b",
            r"\b(?:deserializ\w*|decod\w*|pars\w*)\b[^.\n]{0,30}?\bapi response\b",
            r"\ban internal error has occurred\b",  # Google's words for INTERNAL (500)
            r"\bended prematurely\b",
            r"\bnot connected to the internet\b",
            r"\b(?:check|lost) your (?:network|internet) connection\b",
            "\u8bf7\u68c0\u67e5\u7f51\u7edc",  # "please check the network"
            r"\b(?:error|problem|trouble) connecting to\b",
            r"\b(?:problem|trouble|error) reaching\b",
            r"\bfailed to fetch\b",
            r"\bconnection error\b",
            r"\b(?:failed|unable) to connect\b",
            # a host's name that did not resolve, not a model's or a login's
            r"\bcould(?: not|n'?t) (?:connect|reach|resolve(?! (?:the )?(?:foundation )?model| "
            r"auth))\b",
            r"\bcannot connect\b",
            r"\bnetwork[ _](?:error|is unreachable|request failed|connection lost)\b",
            r"\bEHOSTUNREACH\b",
            r"\bENETUNREACH\b",
            r"\bmax retries exceeded with url\b",
            r"\bconnection\b[^.\n]{0,20}?\b(?:closed|terminated|dropped|lost|failed)\b",
            r"\b(?:closed|dropped) (?:the )?connection\b",
            r"\bforcibly closed\b",
            r"\bincomplete chunked read\b",
            r"\bstream (?:disconnected|closed|ended|terminated|finished) (?:before|unexpectedly|"
            r"prematurely)",
            r"\bdisconnected\b",
            r"\bpremature close\b",
            r"\b(?:reconnecting|re-connecting)\b",
            # HTTP/2: the server reset the stream (RST_STREAM) mid-answer
            r"\breceived from peer\b",
            r"(?-i:\bRST_STREAM\b)",
            r"\bpremature end\b",
            r"\berror sending request\b",
            r"\bfailed to (?:execute|send|make) (?:the |an )?http request\b",
            r"\bcertificate\b[^.\n]{0,30}?\b(?:verify|verification|expired|invalid|failed)\b",
            r"\bsslerror\b",
            r"\bssl[_ ]error\b",
            r"\bhandshake (?:failed|failure)\b",
            r"\bout of memory\b",
        ),
    ),
)

# Words that say a request was malformed, and a bare "exited": weaker evidence than a
# provider's own code (an Anthropic permission_error whose sentence says "not allowed" is
# auth). The engine tries them after the codes, before the exception classes.
WEAK: tuple[Rule, ...] = (
    # --- a JSON answer that stops mid-way was cut off (the output cap, most often), unless a
    # provider's or a network's words said otherwise above -------------------------------------
    rule(
        K.MAX_TOKENS,
        "wild/harvest12_weak/deepseek-truncated-toolcall-json",
        message=any_of(
            r"\bunterminated string\b",
            r"\beof while parsing\b",
            r"\bunexpected end of (?:json|data|input)\b",
        ),
    ),
    # --- bad_request: the request itself --------------------------------------------------------
    rule(
        K.BAD_REQUEST,
        "opencode/invalid-value",
        message=any_of(
            r"\binvalid[ _](?:request|argument|parameter|params?|value|input|schema|json|format|"
            r"type|content|body|role|message|tool)s?\b",
            r"(?-i:\bINVALID_ARGUMENT\b)",
            r"\binvalid \w+ value\b",  # "Invalid max_tokens value"
            r"\bfailed to build (?:the )?request\b",
            r"\bwithout (?:its|the) required\b",
            r"\b(?:pdf|file|image|attachment|upload)s? (?:is |was )?too (?:large|big)\b",
            r"\bvalid range of\b",
            r"\bmalformed\b(?![^.\n]{0,30}?\brespons)",  # a malformed response is not the request
            r"\bno model (?:was )?(?:specified|provided|given)\b",
            r"\bvalidation (?:error|failed|exception)\b",
            r"\bunsupported (?:parameter|value|content|type|media|format|feature)s?\b",
            r"\bunknown (?:parameter|field|argument|variant|name)s?\b",
            r"\bunrecognized (?:request )?(?:argument|parameter|field)s?\b",
            r"\bis(?: not|n't|n\u2019t) supported\b",
            r"\b(?:is|are) only supported (?:in|on|for|by|with)\b",
            r"\bnot supported (?:by|for|with|in)\b",
            r"\bmust be (?:a|an|one of|less|greater|at least|at most|non-empty|provided)\b",
            r"\bmust be (?:strictly )?(?:positive|negative|between|in (?:the )?range)\b",
            r"\bnot found\b",
            r"\b(?:is|are) required\b",
            r"\bis a required (?:property|field|parameter|argument)\b",
            # a client too old for the service: the request is refused until it is upgraded
            r"\b(?:upgrade|update) (?:your |the )?(?:\w+ ){0,2}(?:extension|client|plugin|cli|sdk)"
            r" to (?:continue|keep)\b",
            r"\bunexpected (?:field|parameter|argument|value|role)\b",
            r"\bbad request\b",
            r"\bis not a valid\b",
            r"\bnot permitted\b",
            r"\bfield required\b",
            r"\bmust not (?:be|exceed|contain)\b",
            r"\bnot allowed\b",
            r"\b(?:could not|failed to|unable to) (?:parse|decode|deserialize)\b",
            r"\bparse error\b",
            r"\bcannot specify both\b",
            r"\bnot available in region\b",
            # a model or a mode this account, deployment or client is not set up for
            r"\bnot available (?:for|on|to) (?:this|your|integrator)\b",
            r"\bnot yet supported\b",
            r"\bpage not found\b",
            r"\bcould not be found\b",
            r"\brejected the request\b",
            r"\bmust (?:provide|specify)\b",
            r"\bmutually exclusive\b",
            r"\bmust alternate\b",
            r"\bunexpected token\b",
            r"\bexpected\b[^.\n]{0,40}?\b(?:but (?:got|received|found)|got|received)\b",
            r"\bdoes not match\b",
            r"\bmissing (?:required )?(?:parameter|field|argument|property|key)s?\b",
            r"\b(?:cannot|can't|must not|should not) be empty\b",
            r"\b(?:payload|request entity|request|file|image|body)(?: size)? (?:is )?too large\b",
            "\u8bf7\u6c42\u4f53\u8fc7\u5927",  # "request body too large"
            r"\binput should be\b",
            r"\bdoes not support\b",
            r"\btool_use(?:_id)?\b[^.\n]{0,80}?\btool_result\b",
            r"\bmust be unique\b",
            r"\bduplicate (?:tool|function|parameter|key|field|name|id)s?\b",
            r"\bunexpected keyword argument\b",  # a client that sent what the API lacks
            r"\b(?:could not|unable to|failed to) process (?:the )?(?:image|file|pdf|document|"
            r"attachment)\b",
            r"\b(?:is|are) not valid\b",
            r"\bexceeds (?:the )?(?:maximum (?:allowed )?)?(?:size|\d+(?:\.\d+)? ?(?:[kmg]i?b|"
            r"bytes))\b",
            r"\b(?:has|have|with|contains?) an? empty\b",
            r"\bshould (?:have|be) at (?:most|least)\b",
            r"\bexpected\b[^.\n]{0,40}?\bto be (?:a|an|one of)\b",
            r"\bmust (?:contain|be followed by)\b",
            r"\bmay only be (?:set|used)\b",
            r"\bis not enabled for (?:this|the) model\b",
            r"\bdid not match any variant\b",  # serde's words for a body it could not read
            r"\balternate between\b",
            r"\b(?:use|provide|specify) a valid\b",
        ),
    ),
    # --- what is left of a process's end: a bare "exited", "terminated" -------------------------
    rule(
        K.HARNESS_EXITED,
        "wild/opencode/goose-zsh-terminated-after-ctrl-c",
        message=any_of(
            r"\b(?:exited|terminated|crashed)\b",
        ),
    ),
)

# Exception class names (lower-cased) -> kind: the SDK's own judgement, made from the status,
# used when neither a phrase nor a code decides; tried in this order (the specific classes
# before the generic ones they are wrapped in). Each rule's example names one of its classes.
EXCEPTIONS: tuple[Rule, ...] = (
    rule(
        K.RATE_LIMIT,
        "wild/litellm/anythingllm-anthropic-sdk-429",
        code=["ratelimiterror", "ratelimitexception", "throttlingexception", "toomanyrequests"],
    ),
    rule(
        K.QUOTA,
        "bedrock/service-quota-exceeded",
        code=["servicequotaexceededexception", "budgetexceedederror", "insufficientquotaerror"],
    ),
    rule(
        K.AUTH,
        "wild/litellm/botocore-accessdenied-model-id",
        code=[
            "authenticationerror",
            "permissiondeniederror",
            "unauthorizederror",
            "unauthenticatederror",
            "accessdeniedexception",
            "unrecognizedclientexception",
            "expiredtokenexception",
            "invalidsignatureexception",
            "loadapikeyerror",
            "refresherror",
            "forbiddenerror",
        ],
    ),
    rule(
        K.CONTEXT_EXHAUSTED,
        "wild/litellm/devon-anthropic-prompt-too-long",
        code=["contextwindowexceedederror", "contextoverflowerror", "contextlengthexceedederror"],
    ),
    rule(
        K.REFUSAL,
        "wild/openai/litellm-azure-content-policy-400",
        code=["contentpolicyviolationerror", "contentfilterfinishreasonerror"],
    ),
    rule(
        K.MAX_TOKENS,
        "wild/openai/python-lengthfinishreason-bare",
        code=["lengthfinishreasonerror", "graphrecursionerror", "maxturnsexceeded"],
    ),
    rule(
        K.PROVIDER_UNAVAILABLE,
        "wild/claude/ts-sdk-internal-server-error-529-stack",
        code=[
            "connecttimeout",
            "connecttimeouterror",
            "apiconnectionerror",
            "connectionerror",
            "connecterror",
            "clientconnectorerror",
            "serverdisconnectederror",
            "remoteprotocolerror",
            "socketerror",
            "readerror",
            "serviceunavailableerror",
            "badgatewayerror",
            "serviceunavailable",
            "internalservererror",
            "servererror",
            "overloadederror",
            "internalserverexception",
            "serviceunavailableexception",
            "modelerrorexception",
            "modelnotreadyexception",
        ],
    ),
    rule(
        K.TIMEOUT,
        "wild/litellm/proxy-apitimeouterror-408-json",
        code=[
            "apitimeouterror",
            "timeouterror",
            "timeout",
            "readtimeout",
            "readtimeouterror",
            "deadlineexceeded",
            "timeoutexception",
            "modeltimeoutexception",
            "sockettimeout",
        ],
    ),
    rule(
        K.BAD_REQUEST,
        "bedrock/validation-model-identifier",
        code=[
            "badrequesterror",
            "notfounderror",
            "unprocessableentityerror",
            "invalidargument",
            "invalidargumenterror",
            "validationexception",
            "invalidrequesterror",
            "invalidrequestexception",
            "resourcenotfoundexception",
            "nosuchmodelerror",
            "providermodelnotfounderror",
            "modelnotfounderror",
            "typevalidationerror",
            "invalidprompterror",
        ],
    ),
    rule(
        K.CANCELLED,
        "wild/google/cli-aborterror-user-aborted",
        code=["aborterror", "apiuseraborterror", "cancellederror", "cancelederror"],
    ),
    rule(
        K.NODE_OFFLINE,
        "wild/litellm/openhands-runtime-container-exited",
        code=[
            "agentruntimedisconnectederror",
            "agentruntimeunavailableerror",
            "sandboxnotfounderror",
            "channelclosedexception",  # Jenkins remoting: the agent machine's channel
        ],
    ),
)

# The same words in the other languages failures come in (es, pt, fr, it, de, nl, sv, da,
# nb, pl, cs, ru, uk, tr, ar, fa, he, id, ms, vi, ja, ko, zh-Hant, th, hi, bn, el, hu, ro, fi,
# sk, bg, hr, sr, ca, lt, lv, et, sl, mr, ta, te, ur, kk, uz, az, sw, tl, ka, hy, ga, ml, kn,
# gu, pa, ne; the Chinese of the mainland is written beside the English above), one list per
# kind, added to that kind's cause words: what each language calls a quota, a key, a
# timeout, a cancel. Written as escapes (ruff's RUF001 would take Cyrillic letters for Latin
# ones), each with its meaning.
_ELSEWHERE: dict[Kind, tuple[str, ...]] = {
    K.QUOTA: (
        "\u30af\u30a9\u30fc\u30bf",  # quota, ja
        "\u6b8b\u9ad8",  # balance, ja
        "\ud560\ub2f9\ub7c9",  # quota, ko
        "\ud06c\ub808\ub527",  # credit, ko
        "\uc794\uc561",  # balance, ko
        "\u984d\u5ea6",  # quota, zh-Hant
        "\u9918\u984d",  # balance, zh-Hant
        "\u043a\u0432\u043e\u0442",  # quota, ru
        "\u0431\u0430\u043b\u0430\u043d\u0441",  # balance, ru
        "\u043a\u0440\u0435\u0434\u0438\u0442",  # credit, ru
        "\\bcr\u00e9ditos?\\b",  # credits, es/pt
        "\\bcr\u00e9dits?\\b",  # credits, fr
        "saldo",  # balance, es/pt/it
        "solde",  # balance, fr
        "guthaben",  # balance, de
        r"kredi\w*",  # credit, tr
        "bakiye",  # balance, tr
        "h\u1ea1n m\u1ee9c",  # quota, vi
        "s\u1ed1 d\u01b0",  # balance, vi
        r"\bcredit[oi]\b",  # credit, it
        "tegoed",  # balance, nl
        r"kredyt\w*",  # credit, pl
        "\u0631\u0635\u064a\u062f",  # balance, ar
        "\u062d\u0635\u0629",  # quota, ar
        "\u0633\u0647\u0645\u06cc\u0647",  # quota, fa
        "\u0627\u0639\u062a\u0628\u0627\u0631",  # credit, fa
        "\u05de\u05db\u05e1\u05d4",  # quota, he
        "\u05d9\u05ea\u05e8\u05d4",  # balance, he
        "kuota",  # quota, id/ms
        "\u30af\u30ec\u30b8\u30c3\u30c8",  # credit, ja
        "l\u00edmite de uso",  # usage limit, es/pt
        "limite de uso",  # usage limit, pt
        "limite d'utilisation",  # usage limit, fr
        r"nutzungslimit\w*",  # usage limit, de
        "limite di utilizzo",  # usage limit, it
        "limit u\u017cycia",  # usage limit, pl
        "limit wykorzystania",  # usage limit, pl
        "kullan\u0131m limit\\w*",  # usage limit, tr
        "gi\u1edbi h\u1ea1n s\u1eed d\u1ee5ng",  # usage limit, vi
        # usage limit, ru
        (
            "\u043b\u0438\u043c\u0438\u0442 \u0438\u0441\u043f"
            "\u043e\u043b\u044c\u0437\u043e\u0432\u0430\u043d\u0438\u044f"
        ),
        # usage limit, uk
        (
            "\u043b\u0456\u043c\u0456\u0442 \u0432\u0438\u043a"
            "\u043e\u0440\u0438\u0441\u0442\u0430\u043d\u043d\u044f"
        ),
        "\u4f7f\u7528\u4e0a\u9650",  # usage cap, ja
        "\u5229\u7528\u4e0a\u9650",  # usage cap, ja
        "\uc0ac\uc6a9 \ud55c\ub3c4",  # usage limit, ko
        "\uc0ac\uc6a9\ub7c9 \ud55c\ub3c4",  # usage limit, ko
        "\u4f7f\u7528\u9650\u5236",  # usage limit, zh
        "gebruikslimiet",  # usage limit, nl
        "batas penggunaan",  # usage limit, id
        "\u0e42\u0e04\u0e27\u0e15\u0e49\u0e32",  # quota, th
        "\u0e40\u0e04\u0e23\u0e14\u0e34\u0e15",  # credit, th
        "\u0e23\u0e32\u0e22\u0e27\u0e31\u0e19",  # daily, th
        "\u0e23\u0e32\u0e22\u0e40\u0e14\u0e37\u0e2d\u0e19",  # monthly, th
        "\u0e22\u0e2d\u0e14\u0e04\u0e07\u0e40\u0e2b\u0e25\u0e37\u0e2d",  # balance, th
        "\u6bcf\u65e5",  # daily, zh
        "\u5f53\u65e5",  # for the day, zh
        "\u4f7f\u7528\u6b21\u6570",  # number of uses, zh
        "\u914d\u989d",  # quota, zh
        "\u914d\u984d",  # quota, zh-Hant
        "\u0915\u094b\u091f\u093e",  # quota, hi
        "\u0936\u0947\u0937 \u0930\u093e\u0936\u093f",  # balance, hi
        "\u0915\u094d\u0930\u0947\u0921\u093f\u091f",  # credit, hi
        "\u0909\u092a\u092f\u094b\u0917 \u0938\u0940\u092e\u093e",  # usage limit, hi
        "\u0995\u09cb\u099f\u09be",  # quota, bn
        "\u09ac\u09cd\u09af\u09be\u09b2\u09c7\u09a8\u09cd\u09b8",  # balance, bn
        "\u0995\u09cd\u09b0\u09c7\u09a1\u09bf\u099f",  # credit, bn
        # usage limit, bn
        "\u09ac\u09cd\u09af\u09ac\u09b9\u09be\u09b0\u09c7\u09b0 \u09b8\u09c0\u09ae\u09be",
        "\u03c0\u03bf\u03c3\u03cc\u03c3\u03c4\u03c9\u03c3\u03b7",  # quota, el
        "\u03c5\u03c0\u03cc\u03bb\u03bf\u03b9\u03c0\u03bf",  # balance, el
        "\u03c0\u03b9\u03c3\u03c4\u03ce\u03c3",  # credits, el
        "\u03c0\u03af\u03c3\u03c4\u03c9\u03c3",  # credit, el
        "\u03cc\u03c1\u03b9\u03bf \u03c7\u03c1\u03ae\u03c3\u03b7\u03c2",  # usage limit, el
        "kv\u00f3ta",  # quota, hu/cs/sk
        r"egyenleg\w*",  # balance, hu
        "haszn\u00e1lati korl\u00e1t",  # usage limit, hu
        "credite",  # credits, ro
        "limit[a\u0103] de utilizare",  # usage limit, ro
        "soldul",  # balance, ro
        "kiinti\u00f6",  # quota, fi
        "k\u00e4ytt\u00f6raja",  # usage limit, fi
        r"zostatok\w*",  # balance, sk
        "limit pou\u017eitia",  # usage limit, sk
        # usage limit, bg
        (
            "\u043b\u0438\u043c\u0438\u0442 \u0437\u0430 \u0438"
            "\u0437\u043f\u043e\u043b\u0437\u0432\u0430\u043d\u0435"
        ),
        r"kvot\w*",  # quota, hr/sr
        "stanje ra\u010duna",  # account balance, hr/sr
        "l\u00edmit d'\u00fas",  # usage limit, ca
        "cr\u00e8dits",  # credits, ca
        "\u0936\u093f\u0932\u094d\u0932\u0915",  # balance, mr
        "\u0935\u093e\u092a\u0930 \u092e\u0930\u094d\u092f\u093e\u0926\u093e",  # usage limit, mr
        "\u0b92\u0ba4\u0bc1\u0b95\u0bcd\u0b95\u0bc0\u0b9f\u0bc1",  # quota, ta
        # usage limit, ta
        (
            "\u0baa\u0baf\u0ba9\u0bcd\u0baa\u0bbe\u0b9f\u0bcd"
            "\u0b9f\u0bc1 \u0bb5\u0bb0\u0bae\u0bcd\u0baa\u0bc1"
        ),
        "\u0c15\u0c4b\u0c1f\u0c3e",  # quota, te
        "\u0c2c\u0c4d\u0c2f\u0c3e\u0c32\u0c46\u0c28\u0c4d\u0c38\u0c4d",  # balance, te
        # usage limit, te
        "\u0c35\u0c3f\u0c28\u0c3f\u0c2f\u0c4b\u0c17 \u0c2a\u0c30\u0c3f\u0c2e\u0c3f\u0c24\u0c3f",
        "\u06a9\u0648\u0679\u06c1",  # quota, ur
        "\u0628\u06cc\u0644\u0646\u0633",  # balance, ur
        "\u06a9\u0631\u06cc\u0688\u0679",  # credit, ur
        r"atlikum\w*",  # balance, lv
        "lieto[\u0161s]anas limit",  # usage limit, lv
        r"kvoot\w*",  # quota, et
        r"kasutuslimiit\w*",  # usage limit, et
        "omejitev uporabe",  # usage limit, sl
        r"balans\w*",  # balance, uz/az/nl/sv
        "salio",  # balance, sw
        "kikomo cha matumizi",  # usage limit, sw
        "\u10d9\u10d5\u10dd\u10e2\u10d0",  # quota, ka
        "\u10d1\u10d0\u10da\u10d0\u10dc\u10e1",  # balance, ka
        "\u0584\u057e\u0578\u057f\u0561",  # quota, hy
        r"kota\w*",  # quota, tr
        "kullan\u0131m hakk",  # usage allowance, tr
        "\u062d\u062f \u0627\u0644\u0627\u0633\u062a\u062e\u062f\u0627\u0645",  # usage limit, ar
        "t\u00edn d\u1ee5ng",  # credit, vi
        "\u05e7\u05e8\u05d3\u05d9\u05d8",  # credit, he
        "\u0645\u0648\u062c\u0648\u062f\u06cc",  # balance, fa
        r"(?:sitzungs|tages|monats|wochen|nutzungs|token|)kontingent\w*",  # quota, de
        "ersch\u00f6pft",  # exhausted, de
        "\u0627\u0634\u062a\u0631\u0627\u06a9",  # subscription, fa
        "\u0627\u0631\u062a\u0642\u0627",  # upgrade, fa
        "anv\u00e4ndningsgr\u00e4ns",  # usage limit, sv
        "forbrugsgr\u00e6nse",  # usage limit, da
        "brugsgr\u00e6nse",  # usage limit, da
        r"bruksgrense\w*",  # usage limit, nb
        "quotum",  # quota, nl
        "z\u016fstatek",  # balance, cs
        "limit vyu\u017eit\u00ed",  # usage limit, cs
        "baki",  # balance, ms
        "\u0d15\u0d4d\u0d35\u0d3e\u0d1f\u0d4d\u0d1f",  # quota, ml
        "\u0c95\u0ccb\u0c9f\u0cbe",  # quota, kn
        "\u0a95\u0acd\u0ab5\u0acb\u0a9f\u0abe",  # quota, gu
    ),
    K.RATE_LIMIT: (
        "demasiadas solicitudes",  # too many requests, es
        r"muitas (?:solicita\w+|requisi\w+)",  # too many requests, pt
        "\\btrop de (?:demandes|requ\u00eates)\\b",  # too many requests, fr
        "zu viele anfragen",  # too many requests, de
        "troppe richieste",  # too many requests, it
        # too many requests, ru
        (
            "\u0441\u043b\u0438\u0448\u043a\u043e\u043c \u043c\u043d\u043e"
            "\u0433\u043e \u0437\u0430\u043f\u0440\u043e\u0441\u043e\u0432"
        ),
        "\u30ec\u30fc\u30c8\u5236\u9650",  # rate limit, ja
        "\u30ea\u30af\u30a8\u30b9\u30c8\u304c\u591a\u3059\u304e",  # too many requests, ja
        "\uc694\uccad\uc774 \ub108\ubb34 \ub9ce",  # too many requests, ko
        "\uc18d\ub3c4 \uc81c\ud55c",  # rate limit, ko
        "\u983b\u7e41",  # too frequent, zh-Hant
        "\u00e7ok fazla istek",  # too many requests, tr
        "qu\u00e1 nhi\u1ec1u y\u00eau c\u1ea7u",  # too many requests, vi
        "\\blimite de (?:taux|d\u00e9bit|requ\u00eates)\\b",  # rate limit, fr
        # request limit, ru
        "\u043b\u0438\u043c\u0438\u0442 \u0437\u0430\u043f\u0440\u043e\u0441\u043e\u0432",
        "\u043e\u0433\u0440\u0430\u043d\u0438\u0447\u0435\u043d",  # limited, ru
        r"limite di (?:frequenza|velocit\w+|richieste)",  # rate limit, it
        "zbyt wiele (?:\u017c\u0105da\u0144|zapyta\u0144)",  # too many requests, pl
        "\\blimit (?:\u017c\u0105da\u0144|zapyta\u0144)",  # request limit, pl
        "te veel (?:verzoeken|aanvragen)",  # too many requests, nl
        "\\bf\u00f6r m\u00e5nga (?:f\u00f6rfr\u00e5gningar|anrop)\\b",  # too many requests, sv
        # too many requests, da/nb
        "for mange (?:anmodninger|foresp\u00f8rsler|foresp\u00f8rgsler)",
        "p\u0159\u00edli\u0161 mnoho po\u017eadavk\u016f",  # too many requests, cs
        # too many requests, uk
        (
            "\u0437\u0430\u0431\u0430\u0433\u0430\u0442"
            "\u043e \u0437\u0430\u043f\u0438\u0442\u0456\u0432"
        ),
        # request limit, uk
        "\u043b\u0456\u043c\u0456\u0442 \u0437\u0430\u043f\u0438\u0442\u0456\u0432",
        # too many requests, he
        "\u05d9\u05d5\u05ea\u05e8 \u05de\u05d3\u05d9 \u05d1\u05e7\u05e9\u05d5\u05ea",
        "terlalu banyak permintaan",  # too many requests, id/ms
        "\u5e76\u53d1",  # concurrency (limit), zh
        "\u4e26\u767c",  # concurrency (limit), zh-Hant
        "l\u00edmite de tasa",  # rate limit, es
        "limitaci\u00f3n de tasa",  # rate limiting, es
        "l\u00edmite de velocidad",  # rate limit, es
        "limite de taxa",  # rate limit, pt
        "\u901f\u7387\u9650\u5236",  # rate limit, zh
        "h\u0131z s\u0131n\u0131r\u0131",  # rate limit, tr
        "gi\u1edbi h\u1ea1n t\u1ed1c \u0111\u1ed9",  # rate limit, vi
        "ratenbegrenzung",  # rate limiting, de
        # too many requests, th
        "\u0e04\u0e33\u0e02\u0e2d\u0e21\u0e32\u0e01\u0e40\u0e01\u0e34\u0e19\u0e44\u0e1b",
        "\uc18d\ub3c4\uac00 \uc81c\ud55c",  # rate (is) limited, ko
        # too many requests, hi
        "\u092c\u0939\u0941\u0924 \u0905\u0927\u093f\u0915 \u0905\u0928\u0941\u0930\u094b\u0927",
        "\u0926\u0930 \u0938\u0940\u092e\u093e",  # rate limit, hi
        # too many requests, bn
        "\u0985\u09a8\u09c7\u0995 \u09ac\u09c7\u09b6\u09bf \u0985\u09a8\u09c1\u09b0\u09cb\u09a7",
        # too many requests, bn
        "\u0985\u09a4\u09cd\u09af\u09a7\u09bf\u0995 \u0985\u09a8\u09c1\u09b0\u09cb\u09a7",
        # too many requests, el
        (
            "\u03c0\u03ac\u03c1\u03b1 \u03c0\u03bf\u03bb\u03bb"
            "\u03ac \u03b1\u03b9\u03c4\u03ae\u03bc\u03b1\u03c4\u03b1"
        ),
        "\u03cc\u03c1\u03b9\u03bf \u03c1\u03c5\u03b8\u03bc\u03bf\u03cd",  # rate limit, el
        "t\u00fal sok k\u00e9r\u00e9s",  # too many requests, hu
        "prea multe cereri",  # too many requests, ro
        "prea multe solicit[\u0103a]ri",  # too many requests, ro
        "liian monta pyynt\u00f6\u00e4",  # too many requests, fi
        "liikaa pyynt\u00f6j\u00e4",  # too many requests, fi
        "pr\u00edli\u0161 (?:ve\u013ea|mnoho) po\u017eiadaviek",  # too many requests, sk
        # too many requests, bg
        (
            "\u0442\u0432\u044a\u0440\u0434\u0435 \u043c\u043d"
            "\u043e\u0433\u043e \u0437\u0430\u044f\u0432\u043a\u0438"
        ),
        "previ\u0161e zahtj?eva",  # too many requests, hr/sr
        # too many requests, sr
        "\u043f\u0440\u0435\u0432\u0438\u0448\u0435 \u0437\u0430\u0445\u0442\u0435\u0432\u0430",
        "\\bmassa sol[\u00b7.]?licituds",  # too many requests, ca
        "massa peticions",  # too many requests, ca
        # too many requests, hi
        "\u092c\u0939\u0941\u0924 \u0938\u093e\u0930\u0947 \u0905\u0928\u0941\u0930\u094b\u0927",
        "\u0926\u0930[- ]\u0938\u0940\u092e\u093f\u0924",  # rate-limited, hi
        "per daug u\u017eklaus",  # too many requests, lt
        # too many requests, mr
        (
            "\u0916\u0942\u092a \u091c\u093e\u0938\u094d\u0924 "
            "\u0935\u093f\u0928\u0902\u0924\u094d\u092f\u093e"
        ),
        # too many requests, ta
        (
            "\u0b85\u0ba4\u0bbf\u0b95\u0bae\u0bbe\u0ba9 \u0b95\u0bcb"
            "\u0bb0\u0bbf\u0b95\u0bcd\u0b95\u0bc8\u0b95\u0bb3\u0bcd"
        ),
        # too many requests, te
        (
            "\u0c0e\u0c15\u0c4d\u0c15\u0c41\u0c35 \u0c05\u0c2d"
            "\u0c4d\u0c2f\u0c30\u0c4d\u0c25\u0c28\u0c32\u0c41"
        ),
        # too many requests, ur
        (
            "\u0628\u06c1\u062a \u0632\u06cc\u0627\u062f\u06c1 "
            "\u062f\u0631\u062e\u0648\u0627\u0633\u062a\u06cc\u06ba"
        ),
        "p\u0101r\u0101k daudz piepras\u012bjum",  # too many requests, lv
        "liiga palju p\u00e4ringuid",  # too many requests, et
        "preve\u010d zahtev",  # too many requests, sl
        # too many requests, kk
        "\u0442\u044b\u043c \u043a\u04e9\u043f \u0441\u04b1\u0440\u0430\u0443",
        "juda ko.p so.rov",  # too many requests, uz
        "h\u0259ddind\u0259n art\u0131q sor\u011fu",  # too many requests, az
        "maombi mengi",  # too many requests, sw
        "maraming kahilingan",  # too many requests, tl
        # too many requests, ka
        (
            "\u10eb\u10d0\u10da\u10d8\u10d0\u10dc \u10d1\u10d4\u10d5"
            "\u10e0\u10d8 \u10db\u10dd\u10d7\u10ee\u10dd\u10d5\u10dc"
        ),
        "\u0577\u0561\u057f \u0570\u0561\u0580\u0581\u0578\u0582\u0574",  # too many requests, hy
        "\u0637\u0644\u0628\u0627\u062a \u0643\u062b\u064a\u0631\u0629",  # many requests, ar
        "\u062d\u062f \u0627\u0644\u0645\u0639\u062f\u0644",  # rate limit, ar
        "hastighetsbegr\u00e4nsning",  # rate limit, sv
        "hastighedsbegr\u00e6nsning",  # rate limit, da
        "hastighetsbegrensning",  # rate limit, nb
        "omezen\u00ed rychlosti",  # rate limit, cs
        "\u0e08\u0e33\u0e01\u0e31\u0e14\u0e2d\u0e31\u0e15\u0e23\u0e32",  # rate limit, th
    ),
    K.AUTH: (
        r"autentica\w*",  # authenticate, es/pt/it
        r"authentifi\w*",  # authenticate, fr/de
        "\\b(?:no|n\u00e3o|non) autori[zs]\\w*",  # not authorised, es/pt/fr/it
        "clave (?:de )?api",  # API key, es
        "chave (?:de )?api",  # API key, pt
        "\\bcl\u00e9 (?:d'|de )?api\\b",  # API key, fr
        "\\bapi-schl\u00fcssel\\b",  # API key, de
        "chiave api",  # API key, it
        "chave de licen\u00e7a",  # license key, pt
        "clave de licencia",  # license key, es
        "\\bcl\u00e9 de licence\\b",  # license key, fr
        "lizenzschl\u00fcssel",  # license key, de
        "licensnyckel",  # license key, sv
        "\ub77c\uc774\uc120\uc2a4 \ud0a4",  # license key, ko
        "\u30e9\u30a4\u30bb\u30f3\u30b9\u30ad\u30fc",  # license key, ja
        "zugriff verweigert",  # access denied, de
        "acceso denegado",  # access denied, es
        "acesso negado",  # access denied, pt
        "\\bacc\u00e8s refus\u00e9\\b",  # access denied, fr
        "\u0430\u0432\u0442\u043e\u0440\u0438\u0437",  # authoris(ation), ru
        "\u0430\u0443\u0442\u0435\u043d\u0442\u0438\u0444",  # authentic(ation), ru
        "api-\u043a\u043b\u044e\u0447",  # API key, ru
        "\u043a\u043b\u044e\u0447 api",  # API key, ru
        "\u8a8d\u8a3c",  # authentication, ja/zh-Hant
        "\u30ed\u30b0\u30a4\u30f3",  # log in, ja
        "\\bapi\u30ad\u30fc",  # API key, ja
        "\\bapi \u30ad\u30fc",
        "\uc778\uc99d",  # authentication, ko
        "\uad8c\ud55c",  # permission, ko
        "\ub85c\uadf8\uc778",  # log in, ko
        "api \ud0a4",  # API key, ko
        "\u91d1\u9470",  # key, zh-Hant
        "\u6388\u6b0a",  # authorisation, zh-Hant
        "\u6b0a\u9650",  # permission, zh-Hant
        "\u767b\u5165",  # log in, zh-Hant
        "kimlik do\u011frulama",  # authentication, tr
        "x\u00e1c th\u1ef1c",  # authentication, vi
        "credenziali",  # credentials, it
        "credenciales",  # credentials, es
        "credenciais",  # credentials, pt
        r"anmeld\w*",  # log in, credentials, de
        r"\bconnectez-vous\b",  # log in, fr
        "po\u015bwiadcz",  # credentials, pl
        r"uwierzytelni\w*",  # authenticate, pl
        "klucz api",  # API key, pl
        "authenticatie",  # authentication, nl
        "inloggegevens",  # credentials, nl
        "autentisering",  # authentication, sv/nb
        "api-nyckel",  # API key, sv
        "\\bapi-n[\u00f8o]\\w*",  # API key, da/nb
        "p\u0159ihla\u0161\\w*",  # log in, cs
        "api kl\u00ed\u010d",  # API key, cs
        "\u0430\u0432\u0442\u0435\u043d\u0442\u0438\u0444",  # authentication, uk
        "\u0645\u0635\u0627\u062f\u0642\u0629",  # authentication, ar
        "\u0645\u0641\u062a\u0627\u062d api",  # API key, ar
        "\u0627\u062d\u0631\u0627\u0632 \u0647\u0648\u06cc\u062a",  # authentication, fa
        "\u06a9\u0644\u06cc\u062f api",  # API key, fa
        "\u05d0\u05d9\u05de\u05d5\u05ea",  # authentication, he
        "\u05de\u05e4\u05ea\u05d7 api",  # API key, he
        "autentikasi",  # authentication, id/ms
        "kunci api",  # API key, id/ms
        "\u6a29\u9650",  # permission, ja
        "\u0111\u0103ng nh\u1eadp",  # log in, vi
        "kh\u00f3a api",  # API key, vi
        "\u0432\u043e\u0439\u0434",  # log in (imperative), ru
        "\u0432\u043e\u0439\u0442\u0438",  # log in, ru
        "\\binici\\w* sesi\u00f3n\\b",  # log in, es
        # a key, a token or a session that expired (the same words end a wait: a timeout)
        # es
        "\\b(?:clave|token|sesi[o\u00f3]n|credencial)\\w*[^.\\n]{0,30}?\\b(?:caducad|expirad)\\w*",
        "\\b(?:chave|token|sess[a\u00e3]o|credencia)\\w*[^.\\n]{0,30}?\\bexpirad\\w*",  # pt
        "\\b(?:cl\u00e9|jeton|token|session)\\w*[^.\\n]{0,30}?\\bexpir\u00e9",  # fr
        "\\b(?:schl\u00fcssel|token|sitzung|anmeldung)\\w*[^.\\n]{0,30}?\\babgelaufen",  # de
        r"\b(?:chiave|token|sessione|credenziali)\w*[^.\n]{0,30}?\bscadut[aoi]\b",  # it
        "\\b(?:klucz|token|sesj)\\w*[^.\\n]{0,30}?wygas\u0142",  # pl
        # ru
        (
            "(?:\u043a\u043b\u044e\u0447|\u0442\u043e\u043a\u0435\u043d|\u0441\u0435\u0441\u0441\u0438)"
            "[^.\\n]{0,30}?\u0438\u0441\u0442\u0435\u043a"
        ),
        "\u671f\u9650\u5207\u308c",  # expired, ja
        "\ub9cc\ub8cc",  # expired, ko
        "\u904e\u671f",  # expired, zh-Hant
        "\u8fc7\u671f",  # expired, zh
        "\\b(?:token|anahtar|oturum)\\w*[^.\\n]{0,30}?s\u00fcresi dol",  # tr
        "h\u1ebft h\u1ea1n",  # expired, vi
        r"\b(?:sleutel|token|sessie)\w*[^.\n]{0,30}?\bverlopen\b",  # nl
        "kedaluwarsa",  # expired, id
        r"uprawnie\w*",  # permission, pl
        r"\bpermisos?\b",  # permission, es
        "permiss\u00e3o",  # permission, pt
        "permiss\u00f5es",  # permissions, pt
        r"berechtigung\w*",  # permission, de
        r"\bpermess[oi]\b",  # permission, it
        r"\byetki\w*",  # authority, permission, tr
        "kh\u00f4ng c\u00f3 quy\u1ec1n",  # no permission, vi
        "\u043d\u0435\u0442 \u0434\u043e\u0441\u0442\u0443\u043f\u0430",  # no access, ru
        r"\bautorisation\b",  # authorisation, fr
        "\u91cd\u65b0\u9a57\u8b49",  # re-authenticate, zh-Hant
        "\u91cd\u65b0\u9a8c\u8bc1",  # re-authenticate, zh
        r"inlogg\w*",  # log in, nl
        "aanmelden",  # sign in, nl
        r"zalogo\w*",  # log in, pl
        r"einlogg\w*",  # log in, de
        "accesso negato",  # access denied, it
        "effettua(?:re)? l'accesso",  # log in, it
        "giri\u015f yap",  # log in, tr
        "\u0e40\u0e02\u0e49\u0e32\u0e2a\u0e39\u0e48\u0e23\u0e30\u0e1a\u0e1a",  # log in, th
        "\u0e04\u0e35\u0e22\u0e4c api",  # API key, th
        "\u51ed\u8bc1",  # credentials, zh
        "\u6191\u8b49",  # credentials, zh-Hant
        "\u6743\u9650",  # permission, zh
        "kata sandi",  # password, id
        r"\bizin\b",  # permission, id/tr
        "\u671f\u9650\u304c\u5207\u308c",  # (has) expired, ja
        "passwort",  # password, de
        "contrase\u00f1a",  # password, es
        r"\bsenha\b",  # password, pt
        "mot de passe",  # password, fr
        "\u5bc6\u7801",  # password, zh
        "\u5bc6\u78bc",  # password, zh-Hant
        "\u30d1\u30b9\u30ef\u30fc\u30c9",  # password, ja
        "\ube44\ubc00\ubc88\ud638",  # password, ko
        "\u090f\u092a\u0940\u0906\u0908 \u0915\u0941\u0902\u091c\u0940",  # API key, hi
        "\u092a\u094d\u0930\u092e\u093e\u0923\u0940\u0915\u0930\u0923",  # authentication, hi
        "\u0905\u0928\u0941\u092e\u0924\u093f \u0928\u0939\u0940\u0902",  # no permission, hi
        "\u092a\u093e\u0938\u0935\u0930\u094d\u0921",  # password, hi
        "\u0932\u0949\u0917 \u0907\u0928",  # log in, hi
        "\u098f\u09aa\u09bf\u0986\u0987 \u0995\u09c0",  # API key, bn
        "\u09aa\u09cd\u09b0\u09ae\u09be\u09a3\u09c0\u0995\u09b0\u09a3",  # authentication, bn
        "\u0985\u09a8\u09c1\u09ae\u09a4\u09bf \u09a8\u09c7\u0987",  # no permission, bn
        "\u09aa\u09be\u09b8\u0993\u09af\u09bc\u09be\u09b0\u09cd\u09a1",  # password, bn
        "\u09b2\u0997 \u0987\u09a8",  # log in, bn
        "\u03ba\u03bb\u03b5\u03b9\u03b4[\u03b9\u03af] (?:\u03c4\u03bf\u03c5 )?api",  # API key, el
        "\u03c4\u03b1\u03c5\u03c4\u03bf\u03c0\u03bf\u03af\u03b7\u03c3",  # authentication, el
        "\u03c4\u03b1\u03c5\u03c4\u03cc\u03c4\u03b7\u03c4\u03b1\u03c2",  # (proof of) identity, el
        # password, el
        (
            "\u03ba\u03c9\u03b4\u03b9\u03ba\u03cc\u03c2 \u03c0"
            "\u03c1\u03cc\u03c3\u03b2\u03b1\u03c3\u03b7\u03c2"
        ),
        # access denied, el
        (
            "\u03ac\u03c1\u03bd\u03b7\u03c3\u03b7 \u03c0"
            "\u03c1\u03cc\u03c3\u03b2\u03b1\u03c3\u03b7\u03c2"
        ),
        "\u03b4\u03b9\u03ba\u03b1\u03b9\u03ce\u03bc\u03b1\u03c4",  # permissions, el
        r"api[ -]kulcs\w*",  # API key, hu
        "hiteles\u00edt",  # authenticate, hu
        "jogosults\u00e1g",  # permission, hu
        "\\bjelsz[\u00f3a]",  # password, hu
        r"bejelentkez\w*",  # log in, hu
        "chei[ae] api",  # API key, ro
        r"autentific\w*",  # authentication, ro
        r"permisiun\w*",  # permission, ro
        r"api[ -]avai\w*",  # API key, fi
        r"todennu\w*",  # authentication, fi
        "k\u00e4ytt\u00f6oikeu",  # access right, fi
        r"salasan\w*",  # password, fi
        r"kirjaudu\w*",  # log in, fi
        "api k\u013e\u00fa\u010d",  # API key, sk
        "autentifik\u00e1ci",  # authentication, sk
        "opr\u00e1vneni",  # permission, sk
        "hesl[oa]",  # password, cs/sk
        "api \u043a\u043b\u044e\u0447",  # API key, bg
        # authentication, bg
        "\u0443\u0434\u043e\u0441\u0442\u043e\u0432\u0435\u0440\u044f\u0432\u0430\u043d\u0435",
        "\u0440\u0430\u0437\u0440\u0435\u0448\u0435\u043d\u0438",  # permission, bg/ru
        "\u043f\u0430\u0440\u043e\u043b\u0430",  # password, bg
        "api klju\u010d",  # API key, hr/sr
        r"autentifikacij\w*",  # authentication, hr/sr
        r"lozink\w*",  # password, hr/sr
        "\u043b\u043e\u0437\u0438\u043d\u043a",  # password, sr
        "api \u043a\u0459\u0443\u0447",  # API key, sr
        "clau (?:de l'|d')?api",  # API key, ca
        r"contrasenya\w*",  # password, ca
        r"vjerodajnic\w*",  # credentials, hr
        r"api rakt\w*",  # API key, lt
        "slapta\u017eod",  # password, lt
        "api \u0c15\u0c40",  # API key, te
        "\u092a\u0930\u0935\u093e\u0928\u0917\u0940",  # permission, mr
        "api \u0bb5\u0bbf\u0b9a\u0bc8",  # API key, ta
        "\u0b85\u0b99\u0bcd\u0b95\u0bc0\u0b95\u0bbe\u0bb0",  # authentication, ta
        "\u0b95\u0b9f\u0bb5\u0bc1\u0b9a\u0bcd\u0b9a\u0bca\u0bb2\u0bcd",  # password, ta
        "\u0c2a\u0c4d\u0c30\u0c3e\u0c2e\u0c3e\u0c23\u0c40\u0c15\u0c30\u0c23",  # authentication, te
        "\u0c32\u0c3e\u0c17\u0c3f\u0c28\u0c4d",  # log in, te
        "api \u06a9\u0644\u06cc\u062f",  # API key, ur
        "\u067e\u0627\u0633 \u0648\u0631\u0688",  # password, ur
        "\u0627\u062c\u0627\u0632\u062a",  # permission, ur
        "api atsl\u0113g",  # API key, lv
        "autentifik\u0101cij",  # authentication, lv
        "at\u013cauj",  # permission, lv
        "api v\u00f5t",  # API key, et
        r"autentim\w*",  # authentication, et
        r"parool\w*",  # password, et
        "pristnosti",  # authenticity (authentication), sl
        "gesl[oa]",  # password, sl
        r"dovoljenj\w*",  # permission, sl
        "api \u043a\u0456\u043b\u0442",  # API key, kk
        "\u049b\u04b1\u043f\u0438\u044f\u0441\u04e9\u0437",  # password, kk
        r"api kalit\w*",  # API key, uz
        r"autentifikats\w*",  # authentication, uz
        "api a\u00e7ar",  # API key, az
        r"autentifikasiya\w*",  # authentication, az
        "icaz\u0259",  # permission, az
        "ufunguo wa api",  # API key, sw
        "uthibitishaji",  # authentication, sw
        "nenosiri",  # password, sw
        "ruhusa",  # permission, sw
        "pagpapatotoo",  # authentication, tl
        "pahintulot",  # permission, tl
        "api \u10d2\u10d0\u10e1\u10d0\u10e6\u10d4\u10d1",  # API key, ka
        "\u10d0\u10d5\u10e2\u10dd\u10e0\u10d8\u10d6\u10d0\u10ea\u10d8",  # authorisation, ka
        "\u10de\u10d0\u10e0\u10dd\u10da",  # password, ka
        "api \u0562\u0561\u0576\u0561\u056c\u056b",  # API key, hy
        "\u0576\u0578\u0582\u0575\u0576\u0561\u056f\u0561\u0576\u0561\u0581",  # authentication, hy
        "\u0563\u0561\u0572\u057f\u0576\u0561\u0562\u0561\u057c",  # password, hy
        "oturum a\u00e7",  # sign in, tr
        "\u062a\u0633\u062c\u064a\u0644 \u0627\u0644\u062f\u062e\u0648\u0644",  # log in, ar
        "\u0645\u0641\u062a\u0627\u062d \u0627\u0644\u0648\u0635\u0648\u0644",  # access key, ar
        "\u063a\u064a\u0631 \u0645\u0635\u0631\u062d",  # unauthorised, ar
        # key/token/session ... expired, uk
        (
            "(?:\u043a\u043b\u044e\u0447|\u0442\u043e\u043a\u0435\u043d|\u0441\u0435\u0441"
            "\u0456)[^.\\n]{0,30}?(?:\u0437\u0430\u043a\u0456\u043d\u0447\u0438|\u0441\u043f\u043b\u0438\u0432)"
        ),
        r"api anahtar\w*",  # API key, tr
        "\u015fifre",  # password, tr
        "eri\u015fim reddedildi",  # access denied, tr
        "m\u1eadt kh\u1ea9u",  # password, vi
        "\u043f\u0430\u0440\u043e\u043b\u044c",  # password, uk/ru
        "\u0437\u0430\u0431\u043e\u0440\u043e\u043d\u0435\u043d\u043e",  # forbidden, uk
        "\u0443\u0432\u0456\u0439\u0434",  # log in, uk
        "\u0443\u0432\u0456\u0439\u0442\u0438",  # log in, uk
        "\u05e1\u05d9\u05e1\u05de\u05d4",  # password, he
        "\u05d4\u05e8\u05e9\u05d0",  # permission, he
        "\u0631\u0645\u0632 \u0639\u0628\u0648\u0631",  # password, fa
        "\u062f\u0633\u062a\u0631\u0633\u06cc \u0646\u062f\u0627\u0631",  # (you) have no access, fa
        "\u0648\u0627\u0631\u062f \u0634\u0648",  # log in, fa
        "akses ditolak",  # access denied, id
        "\u30b5\u30a4\u30f3\u30a4\u30f3",  # sign in, ja
        r"zawieszon\w*",  # suspended, pl
        r"dezaktywowan\w*",  # deactivated, pl
        "cuenta (?:suspendida|desactivada)",  # account suspended/deactivated, es
        "conta (?:suspensa|desativada)",  # account suspended/deactivated, pt
        "\\bcompte (?:suspendu|d\u00e9sactiv\u00e9)",  # account suspended/deactivated, fr
        "konto (?:gesperrt|deaktiviert)",  # account locked/deactivated, de
        "account (?:sospeso|disattivato)",  # account suspended/deactivated, it
        "api[ -]sleutel",  # API key, nl
        # the key's validity, ar
        "\u0635\u0644\u0627\u062d\u064a\u0629 \u0627\u0644\u0645\u0641\u062a\u0627\u062d",
        # the token's validity, ar
        "\u0635\u0644\u0627\u062d\u064a\u0629 \u0627\u0644\u0631\u0645\u0632",
        # the session's validity, ar
        "\u0635\u0644\u0627\u062d\u064a\u0629 \u0627\u0644\u062c\u0644\u0633\u0629",
        "l\u00f6senord",  # password, sv
        "beh\u00f6righet",  # permission, sv
        "logga in",  # log in, sv
        "\u00e5tkomst nekad",  # access denied, sv
        r"adgangskode\w*",  # password, da
        r"tilladelse\w*",  # permission, da
        "log ind",  # log in, da
        r"godkendelse\w*",  # authentication, da
        "adgang n\u00e6gtet",  # access denied, da
        r"passord\w*",  # password, nb
        r"tillatelse\w*",  # permission, nb
        "logg inn",  # log in, nb
        "tilgang nektet",  # access denied, nb
        r"wachtwoord\w*",  # password, nl
        "toestemming",  # permission, nl
        "toegang geweigerd",  # access denied, nl
        "ov\u011b\u0159en\u00ed",  # verification, cs
        "opr\u00e1vn\u011bn\u00ed",  # permission, cs
        "p\u0159\u00edstup odep\u0159en",  # access denied, cs
        # authentication, th
        "\u0e01\u0e32\u0e23\u0e22\u0e37\u0e19\u0e22\u0e31\u0e19\u0e15\u0e31\u0e27\u0e15\u0e19",
        "\u0e23\u0e2b\u0e31\u0e2a\u0e1c\u0e48\u0e32\u0e19",  # password, th
        "\u0e2a\u0e34\u0e17\u0e18\u0e34\u0e4c",  # permission, th
        "kata laluan",  # password, ms
        "kebenaran",  # permission, ms
        "log masuk",  # log in, ms
        "api \u0d15\u0d40",  # API key, ml
        "api \u0c95\u0cc0",  # API key, kn
        "api \u0a95\u0ac0",  # API key, gu
        "api \u0a15\u0a41\u0a70\u0a1c\u0a40",  # API key, pa
    ),
    K.TIMEOUT: (
        "tiempo de espera",  # waiting time, es
        "tempo limite",  # time limit, pt
        "\\bd\u00e9lai d'attente\\b",  # waiting time, fr
        "\\bzeit\u00fcberschreitung\\b",  # timeout, de
        "\u0442\u0430\u0439\u043c-\u0430\u0443\u0442",  # timeout, ru
        "\u0442\u0430\u0439\u043c\u0430\u0443\u0442",  # timeout, ru
        # waiting time, ru
        "\u0432\u0440\u0435\u043c\u044f \u043e\u0436\u0438\u0434\u0430\u043d\u0438\u044f",
        "\u30bf\u30a4\u30e0\u30a2\u30a6\u30c8",  # timeout, ja
        "\u6642\u9593\u304c\u9577\u3059\u304e",  # took too long, ja
        "\uc2dc\uac04 \ucd08\uacfc",  # timed out, ko
        "\u903e\u6642",  # timed out, zh-Hant
        "zaman a\u015f\u0131m\u0131",  # timeout, tr
        "h\u1ebft th\u1eddi gian",  # timed out, vi
        "tempo scaduto",  # timed out, it
        "limit czasu",  # time limit, pl
        r"\btime-out\b",  # timeout, nl/fr
        "tidsgr\u00e4ns",  # time limit, sv
        "tidsgr\u00e6nse",  # time limit, da
        "tidsavbrudd",  # timeout, nb
        "\u010dasov\u00fd limit",  # time limit, cs
        # waiting time, uk
        "\u0447\u0430\u0441 \u043e\u0447\u0456\u043a\u0443\u0432\u0430\u043d\u043d\u044f",
        "\u0645\u0647\u0644\u0629",  # timeout, ar
        "\u0645\u0647\u0644\u062a",  # timeout, fa
        "\u05d6\u05de\u05df \u05e7\u05e6\u05d5\u05d1",  # timeout, he
        "batas waktu",  # time limit, id/ms
        "waktu habis",  # timed out, id/ms
        "up\u0142yn\u0105\u0107 limit czasu",  # time limit passed, pl
        "\u65f6\u95f4\u8fc7\u957f",  # took too long, zh
        "\u8017\u65f6\u8fc7\u957f",  # took too long, zh
        "\u6642\u9593\u904e\u9577",  # took too long, zh-Hant
        "\u8d85\u6642",  # timed out, zh-Hant
        "\\bagot[o\u00f3] el tiempo\\b",  # ran out of time, es
        "tiempo agotado",  # time ran out, es
        "d\u00e9lai d\u00e9pass\u00e9",  # time exceeded, fr
        "d\u00e9lai expir\u00e9",  # time expired, fr
        "\u0e2b\u0e21\u0e14\u0e40\u0e27\u0e25\u0e32",  # timed out, th
        r"zeitlimit\w*",  # time limit, de
        "tempo esgotado",  # time ran out, pt
        # timed out, hi
        "\u0938\u092e\u092f \u0938\u0940\u092e\u093e \u0938\u092e\u093e\u092a\u094d\u0924",
        "\u091f\u093e\u0907\u092e\u0906\u0909\u091f",  # timeout, hi
        # time limit ended, bn
        "\u09b8\u09ae\u09af\u09bc\u09b8\u09c0\u09ae\u09be \u09b6\u09c7\u09b7",
        "\u099f\u09be\u0987\u09ae\u0986\u0989\u099f",  # timeout, bn
        "\u03c7\u03c1\u03bf\u03bd\u03b9\u03ba\u03cc \u03cc\u03c1\u03b9\u03bf",  # time limit, el
        # of the time limit, el
        "\u03c7\u03c1\u03bf\u03bd\u03b9\u03ba\u03bf\u03cd \u03bf\u03c1\u03af\u03bf\u03c5",
        "id\u0151t\u00fall\u00e9p\u00e9s",  # timeout, hu
        "id\u0151korl\u00e1t",  # time limit, hu
        "timp(?:ul)? de a[\u0219\u015f]teptare",  # waiting time, ro
        r"aikakatkaisu\w*",  # timeout, fi
        r"aikaraj\w*",  # time limit, fi
        # the waiting time, bg
        (
            "\u0432\u0440\u0435\u043c\u0435\u0442\u043e \u0437\u0430 "
            "\u0438\u0437\u0447\u0430\u043a\u0432\u0430\u043d\u0435"
        ),
        # the time ran out, bg
        "\u0438\u0437\u0442\u0435\u0447\u0435 \u0432\u0440\u0435\u043c\u0435\u0442\u043e",
        "vremensko ograni\u010denje",  # time limit, hr/sr
        "isteklo (?:je )?vrij?eme",  # the time ran out, hr/sr
        # the time ran out, sr
        "\u0438\u0441\u0442\u0435\u043a\u043b\u043e \u0432\u0440\u0435\u043c\u0435",
        "temps d'espera",  # waiting time, ca
        "temps esgotat",  # time ran out, ca
        "\u0637\u0648\u0644 \u06a9\u0634\u06cc\u062f",  # took (too) long, fa
        "skirtasis laikas",  # timeout, lt
        "laikas baig\u0117si",  # time ran out, lt
        "\u0935\u0947\u0933 \u0938\u0902\u092a\u0932\u0940",  # time ran out, mr
        # time ran out, ta
        "\u0ba8\u0bc7\u0bb0\u0bae\u0bcd \u0bae\u0bc1\u0b9f\u0bbf\u0ba8\u0bcd\u0ba4\u0ba4\u0bc1",
        # time ran out, te
        "\u0c38\u0c2e\u0c2f\u0c02 \u0c2e\u0c41\u0c17\u0c3f\u0c38\u0c3f\u0c02\u0c26\u0c3f",
        "\u0648\u0642\u062a \u062e\u062a\u0645",  # time ran out, ur
        "\u0679\u0627\u0626\u0645 \u0622\u0624\u0679",  # timeout, ur
        r"noildz\w*",  # timeout, lv
        "ajal\u00f5pp",  # timeout, et
        "\u010dasovna omejitev",  # time limit, sl
        "\u043a\u04af\u0442\u0443 \u0443\u0430\u049b\u044b\u0442\u044b",  # waiting time, kk
        "vaqt tugadi",  # time ran out, uz
        "kutish vaqti",  # waiting time, uz
        "g\u00f6zl\u0259m\u0259 vaxt\u0131",  # waiting time, az
        "vaxt bitdi",  # time ran out, az
        "muda umeisha",  # time ran out, sw
        "muda wa kusubiri",  # waiting time, sw
        "naubos ang oras",  # time ran out, tl
        "\u10d3\u10e0\u10dd \u10d0\u10db\u10dd\u10d8\u10ec\u10e3\u10e0\u10d0",  # time ran out, ka
        # waiting time, ka
        "\u10db\u10dd\u10da\u10dd\u10d3\u10d8\u10dc\u10d8\u10e1 \u10d3\u10e0\u10dd",
        # time ran out, hy
        "\u056a\u0561\u0574\u0561\u0576\u0561\u056f\u0568 \u057d\u057a\u0561\u057c\u057e",
        "\u0938\u092e\u092f \u0938\u092e\u093e\u092a\u094d\u0924",  # time ran out, hi
        "expirat el temps",  # the time ran out, ca
        "ph\u1ea3n h\u1ed3i k\u1ecbp th\u1eddi",  # answer in time, vi
        "\u0648\u0642\u062a\u064b\u0627 \u0637\u0648\u064a\u0644\u0627\u064b",  # a long time, ar
        "\u0648\u0642\u062a\u0627 \u0637\u0648\u064a\u0644\u0627",  # a long time, ar
        "qu\u00e1 th\u1eddi gian",  # over time, vi
        "inactividad",  # inactivity, es
        "inatividade",  # inactivity, pt
        "inactivit\u00e9",  # inactivity, fr
        "inaktivit\u00e4t",  # inactivity, de
        "inattivit\u00e0",  # inactivity, it
        "bezczynno\u015bci",  # inactivity, pl
        "inactiviteit",  # inactivity, nl
        "\u0431\u0435\u0437\u0434\u0435\u0439\u0441\u0442\u0432\u0438",  # inactivity, ru
        # inactivity, uk
        "\u0431\u0435\u0437\u0434\u0456\u044f\u043b\u044c\u043d\u043e\u0441\u0442",
        "\u975e\u30a2\u30af\u30c6\u30a3\u30d6",  # inactivity, ja
        "hareketsizlik",  # inactivity, tr
        "limitu czasu",  # of the time limit, pl
        "tamat masa",  # time ran out, ms
        "tard\u00f3 demasiado",  # took too long, es
        "demorou demais",  # took too long, pt
        "pris trop de temps",  # took too long, fr
        "dauerte zu lange",  # took too long, de
        "impiegato troppo",  # took too long, it
        "\ub108\ubb34 \uc624\ub798",  # too long (a time), ko
        "tog f\u00f6r l\u00e5ng tid",  # took too long, sv
        "tog for lang tid",  # took too long, da
        "tok for lang tid",  # took too long, nb
        "duurde te lang",  # took too long, nl
        "\u0d38\u0d2e\u0d2f\u0d02 \u0d15\u0d34\u0d3f\u0d1e\u0d4d\u0d1e\u0d41",  # time is over, ml
        "\u0cb8\u0cae\u0caf \u0cae\u0cc0\u0cb0\u0cbf\u0ca6\u0cc6",  # time exceeded, kn
        "\u0ab8\u0aae\u0aaf \u0ab8\u0aae\u0abe\u0aaa\u0acd\u0aa4",  # time ended, gu
        "\u0a38\u0a2e\u0a3e\u0a02 \u0a38\u0a2e\u0a3e\u0a2a\u0a24",  # time ended, pa
        "\u0938\u092e\u092f \u0938\u0915\u093f\u092f\u094b",  # time ran out, ne
    ),
    K.PROVIDER_UNAVAILABLE: (
        "\\bconexi\u00f3n\\b",  # connection, es
        "\\bconex\u00e3o\\b",  # connection, pt
        "connexion",  # connection, fr
        r"verbindung\w*",  # connection, de
        r"desconect\w*",  # disconnected, es/pt
        "\\bd\u00e9connect\\w*",  # disconnected, fr
        r"error (?:del|do) servidor",  # server error, es/pt
        r"\berreur (?:du )?serveur\b",  # server error, fr
        r"(?:server|dienst)fehler",  # server error, service error, de
        "no disponible",  # unavailable, es
        "\\bindispon\u00edvel\\b",  # unavailable, pt
        "indisponible",  # unavailable, fr
        "\\bnicht verf\u00fcgbar\\b",  # unavailable, de
        "\u0441\u043e\u0435\u0434\u0438\u043d\u0435\u043d\u0438",  # connection, ru
        "\u043f\u043e\u0434\u043a\u043b\u044e\u0447\u0435\u043d\u0438",  # connection, ru
        # server error, ru
        "\u043e\u0448\u0438\u0431\u043a\u0430 \u0441\u0435\u0440\u0432\u0435\u0440\u0430",
        "\u043d\u0435\u0434\u043e\u0441\u0442\u0443\u043f",  # unavailable, ru
        "\u63a5\u7d9a",  # connection, ja
        "\u30b5\u30fc\u30d0\u30fc\u30a8\u30e9\u30fc",  # server error, ja
        "\u904e\u8ca0\u8377",  # overloaded, ja
        "\u5229\u7528\u3067\u304d\u307e\u305b\u3093",  # unavailable, ja
        "\uc5f0\uacb0",  # connection, ko
        "\uc11c\ubc84 \uc624\ub958",  # server error, ko
        "\uacfc\ubd80\ud558",  # overloaded, ko
        "\uc720\uc9c0 \ubcf4\uc218",  # maintenance, ko
        "\uc0ac\uc6a9\ud560 \uc218 \uc5c6",  # unavailable, ko
        "\u4f3a\u670d\u5668\u932f\u8aa4",  # server error, zh-Hant
        "\u9023\u7dda",  # connection, zh-Hant
        "ba\u011flant\u0131",  # connection, tr
        "sunucu hatas\u0131",  # server error, tr
        "k\u1ebft n\u1ed1i",  # connection, vi
        "l\u1ed7i m\u00e1y ch\u1ee7",  # server error, vi
        "connessione",  # connection, it
        "errore del server",  # server error, it
        "non disponibile",  # unavailable, it
        r"\bconectar\b",  # connect, es/pt
        "po\u0142\u0105czeni",  # connection, pl
        "niedost\u0119pn",  # unavailable, pl
        "b\u0142\u0105d serwera",  # server error, pl
        "serverfout",  # server error, nl
        "niet beschikbaar",  # unavailable, nl
        r"anslut\w*",  # connection, sv
        "serverfel",  # server error, sv
        "otillg\u00e4nglig",  # unavailable, sv
        "forbindelse",  # connection, da/nb
        "serverfejl",  # server error, da
        "utilg\u00e6ngelig",  # unavailable, da
        "tilkobling",  # connection, nb
        "serverfeil",  # server error, nb
        "utilgjengelig",  # unavailable, nb
        "p\u0159ipojen\u00ed",  # connection, cs
        r"spoj(?:it|en)\w*",  # connect, cs
        "chyba serveru",  # server error, cs
        r"nedostupn\w*",  # unavailable, cs
        "\u0437'\u0454\u0434\u043d\u0430\u043d\u043d\u044f",  # connection, uk
        "\u0437\u2019\u0454\u0434\u043d\u0430\u043d\u043d\u044f",  # connection, uk
        "\u043f\u0456\u0434\u043a\u043b\u044e\u0447\u0435\u043d",  # connection, uk
        # server error, uk
        "\u043f\u043e\u043c\u0438\u043b\u043a\u0430 \u0441\u0435\u0440\u0432\u0435\u0440\u0430",
        "\u0627\u062a\u0635\u0627\u0644",  # connection, ar/fa
        "\u063a\u064a\u0631 \u0645\u062a\u0627\u062d",  # unavailable, ar
        "\u062f\u0631 \u062f\u0633\u062a\u0631\u0633 \u0646\u06cc\u0633\u062a",  # unavailable, fa
        "\u05d7\u05d9\u05d1\u05d5\u05e8",  # connection, he
        "\u05dc\u05d0 \u05d6\u05de\u05d9\u05df",  # unavailable, he
        "\u05e9\u05d2\u05d9\u05d0\u05ea \u05e9\u05e8\u05ea",  # server error, he
        "koneksi",  # connection, id
        "sambungan",  # connection, ms
        "tidak tersedia",  # unavailable, id/ms
        "przeci\u0105\u017con",  # overloaded, pl
        r"sobrecargad\w*",  # overloaded, es
        r"sobrecarregad\w*",  # overloaded, pt
        r"\bsurcharg\w*",  # overloaded, fr
        "\u00fcberlastet",  # overloaded, de
        r"sovraccaric\w*",  # overloaded, it
        "\u043f\u0435\u0440\u0435\u0433\u0440\u0443\u0436",  # overloaded, ru
        "a\u015f\u0131r\u0131 y\u00fck",  # overloaded, tr
        "qu\u00e1 t\u1ea3i",  # overloaded, vi
        "\u904e\u8f09",  # overloaded, zh-Hant
        "\u8fc7\u8f7d",  # overloaded, zh
        r"overbelast\w*",  # overloaded, nl
        r"konserwacj\w*",  # maintenance, pl
        "mantenimiento",  # maintenance, es
        "manuten\u00e7\u00e3o",  # maintenance, pt
        r"wartung\w*",  # maintenance, de
        "manutenzione",  # maintenance, it
        # maintenance, ru
        (
            "\u0442\u0435\u0445\u043d\u0438\u0447\u0435\u0441"
            "\u043a\u0438\u0435 \u0440\u0430\u0431\u043e\u0442\u044b"
        ),
        "b\u1ea3o tr\u00ec",  # maintenance, vi
        "\u30e1\u30f3\u30c6\u30ca\u30f3\u30b9",  # maintenance, ja
        "\u7dad\u8b77\u4e2d",  # under maintenance, zh-Hant
        "\u7ef4\u62a4\u4e2d",  # under maintenance, zh
        "r\u00e9seau",  # network, fr
        r"netzwerk\w*",  # network, de
        r"\brede\b",  # network, pt
        "de red",  # network (error), es
        r"\bnetwerk\w*",  # network, nl
        "\u0441\u0435\u0442\u0435\u0432",  # network (adj.), ru
        "\u30cd\u30c3\u30c8\u30ef\u30fc\u30af",  # network, ja
        "\ub124\ud2b8\uc6cc\ud06c",  # network, ko
        "\u7db2\u8def",  # network, zh-Hant
        "\u7db2\u7d61",  # network, zh-Hant
        "jaringan",  # network, id
        "sieci",  # network (gen.), pl
        "a\u011f hatas\u0131",  # network error, tr
        "l\u1ed7i m\u1ea1ng",  # network error, vi
        r"\bdella rete\b",  # of the network, it
        "\u6df7\u96d1",  # congested, ja
        "\ud63c\uc7a1",  # congested, ko
        "ausgelastet",  # at capacity, de
        "\u30b5\u30fc\u30d0\u30fc\u304c\u5fdc\u7b54",  # the server (does not) answer, ja
        "\uc11c\ubc84\uac00 \uc751\ub2f5",  # the server (does not) answer, ko
        "\u30d7\u30ed\u30ad\u30b7",  # proxy, ja
        "\ud504\ub85d\uc2dc",  # proxy, ko
        "\u0e40\u0e0a\u0e37\u0e48\u0e2d\u0e21\u0e15\u0e48\u0e2d",  # connect, th
        "\u4eba\u6570\u8fc7\u591a",  # too many users, zh
        "\u4eba\u6570\u8f83\u591a",  # many users, zh
        "\u670d\u52a1\u7aef\u5f02\u5e38",  # server-side fault, zh
        "\u670d\u52a1\u5668\u5f02\u5e38",  # server fault, zh
        "\u670d\u52a1\u5f02\u5e38",  # service fault, zh
        "\u7121\u6cd5\u56de\u61c9",  # cannot respond, zh-Hant
        "\u65e0\u6cd5\u54cd\u5e94",  # cannot respond, zh
        "\u0905\u0928\u0941\u092a\u0932\u092c\u094d\u0927",  # unavailable, hi
        "\u0909\u092a\u0932\u092c\u094d\u0927 \u0928\u0939\u0940\u0902",  # not available, hi
        "\u0938\u0930\u094d\u0935\u0930 \u0924\u094d\u0930\u0941\u091f\u093f",  # server error, hi
        "\u0928\u0947\u091f\u0935\u0930\u094d\u0915",  # network, hi
        "\u0915\u0928\u0947\u0915\u094d\u0936\u0928",  # connection, hi
        "\u0905\u0924\u093f\u092d\u093e\u0930\u093f\u0924",  # overloaded, hi
        "\u0985\u09a8\u09c1\u09aa\u09b2\u09ac\u09cd\u09a7",  # unavailable, bn
        "\u0989\u09aa\u09b2\u09ac\u09cd\u09a7 \u09a8\u09c7\u0987",  # not available, bn
        # server error, bn
        "\u09b8\u09be\u09b0\u09cd\u09ad\u09be\u09b0 \u09a4\u09cd\u09b0\u09c1\u099f\u09bf",
        "\u09a8\u09c7\u099f\u0993\u09af\u09bc\u09be\u09b0\u09cd\u0995",  # network, bn
        "\u09b8\u0982\u09af\u09cb\u0997",  # connection, bn
        "\u03bc\u03b7 \u03b4\u03b9\u03b1\u03b8\u03ad\u03c3\u03b9\u03bc",  # unavailable, el
        "\u03c5\u03c0\u03b5\u03c1\u03c6[\u03bf\u03cc]\u03c1\u03c4",  # overload, el
        # server error, el
        (
            "\u03c3\u03c6\u03ac\u03bb\u03bc\u03b1 \u03b4\u03b9"
            "\u03b1\u03ba\u03bf\u03bc\u03b9\u03c3\u03c4\u03ae"
        ),
        "\u03b4\u03af\u03ba\u03c4\u03c5",  # network, el
        "\u03b4\u03b9\u03ba\u03c4\u03cd",  # of the network, el
        "nem el\u00e9rhet\u0151",  # not available, hu
        "el\u00e9rhetetlen",  # unreachable, hu
        "t\u00falterhel",  # overload, hu
        "\\b(?:szerver|kiszolg\u00e1l\u00f3)hib",  # server error, hu
        "h\u00e1l\u00f3zat",  # network, hu
        r"kapcsolat\w*",  # connection, hu
        r"indisponibil\w*",  # unavailable, ro
        "\\bsupra[\u00eei]nc[\u0103a]rcat",  # overloaded, ro
        r"eroare (?:de |a )?server\w*",  # server error, ro
        r"conexiun\w*",  # connection, ro
        "ei saatavilla",  # not available, fi
        r"ylikuormit\w*",  # overloaded, fi
        r"palvelinvirhe\w*",  # server error, fi
        r"verkkovirhe\w*",  # network error, fi
        r"yhtey\w*",  # connection, fi
        "pre\u0165a\u017een",  # overloaded, sk
        "chyba servera",  # server error, sk
        r"pripojeni\w*",  # connection, sk
        "\u043d\u0435\u0434\u043e\u0441\u0442\u044a\u043f\u043d",  # unavailable, bg
        "\u043f\u0440\u0435\u0442\u043e\u0432\u0430\u0440\u0435\u043d",  # overloaded, bg
        # server error, bg
        (
            "\u0433\u0440\u0435\u0448\u043a\u0430 \u043d"
            "\u0430 \u0441\u044a\u0440\u0432\u044a\u0440\u0430"
        ),
        "\u043c\u0440\u0435\u0436",  # network, bg/sr
        "\u0432\u0440\u044a\u0437\u043a\u0430",  # connection, bg
        "\\bpreoptere[\u0107c]en",  # overloaded, hr/sr
        "gre[\u0161s]ka (?:poslu[\u017ez]itelja|servera)",  # server error, hr/sr
        "mre\u017e",  # network, hr/sr
        # overloaded, sr
        "\u043f\u0440\u0435\u043e\u043f\u0442\u0435\u0440\u0435\u045b\u0435\u043d",
        # server error, sr
        "\u0433\u0440\u0435\u0448\u043a\u0430 \u0441\u0435\u0440\u0432\u0435\u0440\u0430",
        "sobrecarregat",  # overloaded, ca
        "xarxa",  # network, ca
        "connexi\u00f3",  # connection, ca
        r"nepasiekiam\w*",  # unreachable, lt
        r"neprieinam\w*",  # unavailable, lt
        r"serverio klaid\w*",  # server error, lt
        r"tinklo klaid\w*",  # network error, lt
        r"perkraut\w*",  # overloaded, lt
        "\\beroare de re[\u021b\u0163]ea",  # network error, ro
        # the connection to the server, el
        (
            "\u03c3\u03cd\u03bd\u03b4\u03b5\u03c3\u03b7 \u03bc\u03b5 \u03c4\u03bf"
            "\u03bd \u03b4\u03b9\u03b1\u03ba\u03bf\u03bc\u03b9\u03c3\u03c4\u03ae"
        ),
        "\u03b4\u03b9\u03b1\u03ba\u03bf\u03bc\u03b9\u03c3\u03c4\u03ae",  # of the server, el
        "\u0909\u092a\u0932\u092c\u094d\u0927 \u0928\u093e\u0939\u0940",  # not available, mr
        # server error, mr
        "\u0938\u0930\u094d\u0935\u094d\u0939\u0930 \u0924\u094d\u0930\u0941\u091f\u0940",
        # server error, ta
        "\u0b9a\u0bc7\u0bb5\u0bc8\u0baf\u0b95\u0baa\u0bcd \u0baa\u0bbf\u0bb4\u0bc8",
        # could not connect, ta
        (
            "\u0b87\u0ba3\u0bc8\u0b95\u0bcd\u0b95 \u0bae\u0bc1"
            "\u0b9f\u0bbf\u0baf\u0bb5\u0bbf\u0bb2\u0bcd\u0bb2\u0bc8"
        ),
        # not available, te
        "\u0c05\u0c02\u0c26\u0c41\u0c2c\u0c3e\u0c1f\u0c41\u0c32\u0c4b \u0c32\u0c47\u0c26\u0c41",
        "\u0c38\u0c30\u0c4d\u0c35\u0c30\u0c4d \u0c32\u0c4b\u0c2a\u0c02",  # server error, te
        "\u0c15\u0c28\u0c46\u0c15\u0c4d\u0c37\u0c28\u0c4d",  # connection, te
        "\u062f\u0633\u062a\u06cc\u0627\u0628 \u0646\u06c1\u06cc\u06ba",  # not available, ur
        "\u0633\u0631\u0648\u0631 \u06a9\u06cc \u062e\u0631\u0627\u0628\u06cc",  # server error, ur
        "\u0646\u06cc\u0679 \u0648\u0631\u06a9",  # network, ur
        "\u06a9\u0646\u06a9\u0634\u0646",  # connection, ur
        "nav pieejam",  # not available, lv
        "p\u0101rslogot",  # overloaded, lv
        "servera k\u013c\u016bd",  # server error, lv
        "t\u012bkla k\u013c\u016bd",  # network error, lv
        r"savienojum\w*",  # connection, lv
        "pole saadaval",  # not available, et
        "\u00fclekoormat",  # overloaded, et
        "serveri viga",  # server error, et
        "v\u00f5rguviga",  # network error, et
        "\u00fchendus",  # connection, et
        "ni na voljo",  # not available, sl
        r"preobremenjen\w*",  # overloaded, sl
        "napaka stre\u017enika",  # server error, sl
        "omre\u017ej",  # network, sl
        r"povezav\w*",  # connection, sl
        "\u049b\u043e\u043b\u0436\u0435\u0442\u0456\u043c\u0441\u0456\u0437",  # unavailable, kk
        # server error, kk
        "\u0441\u0435\u0440\u0432\u0435\u0440 \u049b\u0430\u0442\u0435\u0441\u0456",
        "\u0436\u0435\u043b\u0456 \u049b\u0430\u0442\u0435\u0441\u0456",  # network error, kk
        "\u049b\u043e\u0441\u044b\u043b\u044b\u043c",  # connection, kk
        "server xatosi",  # server error, uz
        r"tarmoq\w*",  # network, uz
        r"ulanish\w*",  # connection, uz
        "\u0259l\u00e7atan deyil",  # not reachable, az
        "server x\u0259tas\u0131",  # server error, az
        "\u015f\u0259b\u0259k\u0259",  # network, az
        "hitilafu ya seva",  # server error, sw
        "mtandao",  # network, sw
        "muunganisho",  # connection, sw
        "hindi makakonekta",  # cannot connect, tl
        r"koneksyon\w*",  # connection, tl
        "\u10db\u10d8\u10e3\u10ec\u10d5\u10d3\u10dd\u10db\u10d4\u10da",  # unavailable, ka
        # server error, ka
        (
            "\u10e1\u10d4\u10e0\u10d5\u10d4\u10e0\u10d8"
            "\u10e1 \u10e8\u10d4\u10ea\u10d3\u10dd\u10db\u10d0"
        ),
        "\u10e5\u10e1\u10d4\u10da\u10d8\u10e1",  # of the network, ka
        "\u10d9\u10d0\u10d5\u10e8\u10d8\u10e0",  # connection, ka
        "\u0561\u0576\u0570\u0561\u057d\u0561\u0576\u0565\u056c\u056b",  # unreachable, hy
        "\u057d\u0565\u0580\u057e\u0565\u0580\u056b \u057d\u056d\u0561\u056c",  # server error, hy
        "\u0581\u0561\u0576\u0581\u056b",  # of the network, hy
        "\u0574\u056b\u0561\u0581\u0578\u0582\u0574",  # connection, hy
        "\u0915\u0928\u0947\u0915\u094d\u091f",  # connect, hi
        r"yhdist\w*",  # connect, fi
        "\u043f\u043e\u0432\u0435\u0437\u0438\u0432\u0430\u045a",  # connecting, sr
        "povezivanj",  # connecting, hr/sr
        "\u062e\u0637\u0623 \u0641\u064a \u0627\u0644\u062e\u0627\u062f\u0645",  # server error, ar
        "\u0627\u0644\u0634\u0628\u0643\u0629",  # the network, ar
        "\u0627\u0644\u062d\u0645\u0644 \u0627\u0644\u0632\u0627\u0626\u062f",  # overload, ar
        "\u0635\u064a\u0627\u0646\u0629",  # maintenance, ar
        "\u0645\u0634\u063a\u0648\u0644",  # busy, ar/fa
        "kullan\u0131lam\u0131yor",  # unavailable, tr
        "bak\u0131m",  # maintenance, tr
        "me\u015fgul",  # busy, tr
        "kh\u00f4ng kh\u1ea3 d\u1ee5ng",  # unavailable, vi
        "\u043f\u0435\u0440\u0435\u0432\u0430\u043d\u0442\u0430\u0436",  # overloaded, uk
        "\u043c\u0435\u0440\u0435\u0436",  # network, uk
        # maintenance, uk
        "\u0442\u0435\u0445\u043d\u0456\u0447\u043d\u0456 \u0440\u043e\u0431\u043e\u0442\u0438",
        "\u05e2\u05d5\u05de\u05e1",  # load, he
        "\u05e9\u05d2\u05d9\u05d0\u05ea \u05e8\u05e9\u05ea",  # network error, he
        "\u05ea\u05d7\u05d6\u05d5\u05e7\u05d4",  # maintenance, he
        "\u062e\u0637\u0627\u06cc \u0633\u0631\u0648\u0631",  # server error, fa
        "\u0634\u0628\u06a9\u0647",  # network, fa
        "\u0628\u0627\u0631 \u0628\u06cc\u0634 \u0627\u0632 \u062d\u062f",  # overload, fa
        "kesalahan server",  # server error, id
        "kelebihan beban",  # overloaded, id
        "pemeliharaan",  # maintenance, id
        "sibuk",  # busy, id
        "ralat pelayan",  # server error, ms
        r"verbinding\w*",  # connection, nl
        "verbinden",  # connect, nl/de
        "\u0628\u0627\u0631 \u0633\u0646\u06af\u06cc\u0646",  # heavy load, fa
        "ocupad[oa]",  # busy, es/pt
        "occup\u00e9",  # busy, fr
        "occupat[oa]",  # busy, it
        "\u00f6verbelastad",  # overloaded, sv
        "underh\u00e5ll",  # maintenance, sv
        "n\u00e4tverk",  # network, sv
        r"vedligehold\w*",  # maintenance, da/nb
        "netv\u00e6rk",  # network, da
        r"nettverk\w*",  # network, nb
        "onderhoud",  # maintenance, nl
        "p\u0159et\u00ed\u017een",  # overloaded, cs
        "\u00fadr\u017eb",  # maintenance, cs
        "s\u00ed\u0165",  # network, cs
        "s\u00edt\u011b",  # of the network, cs
        # unavailable, th
        "\u0e44\u0e21\u0e48\u0e1e\u0e23\u0e49\u0e2d\u0e21\u0e43\u0e0a\u0e49\u0e07\u0e32\u0e19",
        "\u0e40\u0e04\u0e23\u0e37\u0e2d\u0e02\u0e48\u0e32\u0e22",  # network, th
        "terlebih beban",  # overloaded, ms
        "rangkaian",  # network, ms
        "penyelenggaraan",  # maintenance, ms
        "\u0d15\u0d23\u0d15\u0d4d\u0d37\u0d7b",  # connection, ml
        "\u0d2c\u0d28\u0d4d\u0d27\u0d3f\u0d2a\u0d4d\u0d2a\u0d3f\u0d15\u0d4d\u0d15",  # connect, ml
        "\u0d38\u0d46\u0d7c\u0d35\u0d7c \u0d2a\u0d3f\u0d36\u0d15\u0d4d",  # server error, ml
        "\u0cb8\u0c82\u0caa\u0cb0\u0ccd\u0c95",  # connection, kn
        "\u0cb8\u0cb0\u0ccd\u0cb5\u0cb0\u0ccd \u0ca6\u0ccb\u0cb7",  # server error, kn
        "\u0a95\u0aa8\u0ac7\u0a95\u0acd\u0ab6\u0aa8",  # connection, gu
        "\u0ab8\u0ab0\u0acd\u0ab5\u0ab0 \u0aad\u0ac2\u0ab2",  # server error, gu
        "\u0a15\u0a28\u0a48\u0a15\u0a38\u0a3c\u0a28",  # connection, pa
        "\u0a38\u0a30\u0a35\u0a30 \u0a17\u0a32\u0a24\u0a40",  # server error, pa
        "\u091c\u0921\u093e\u0928",  # connection, ne
        "\u0938\u0930\u094d\u092d\u0930 \u0924\u094d\u0930\u0941\u091f\u093f",  # server error, ne
    ),
    K.REFUSAL: (
        "\u30bb\u30fc\u30d5\u30c6\u30a3",  # safety, ja
        "\u30dd\u30ea\u30b7\u30fc",  # policy, ja
        "\u30d6\u30ed\u30c3\u30af",  # blocked, ja
        "\uc548\uc804",  # safety, ko
        "\uc815\ucc45",  # policy, ko
        "\ucc28\ub2e8",  # blocked, ko
        "\u0431\u0435\u0437\u043e\u043f\u0430\u0441\u043d\u043e\u0441\u0442",  # safety, ru
        "\u0437\u0430\u0431\u043b\u043e\u043a\u0438\u0440\u043e\u0432\u0430\u043d",  # blocked, ru
        "\u9055\u898f",  # violation, zh-Hant
        "\\bpol\u00edtica\\b",  # policy, es/pt
        "politique",  # policy, fr
        r"richtlinie\w*",  # policy, de
        r"\bpolitica\b",  # policy, it
        "\u043e\u0442\u043a\u0430\u0437\u044b\u0432\u0430",  # refuses, ru
        r"zablokowan\w*",  # blocked, pl
        "geblokkeerd",  # blocked, nl
        "blockerad",  # blocked, sv
        "blokeret",  # blocked, da
        "blokkert",  # blocked, nb
        "zablokov\u00e1n",  # blocked, cs
        "\u0437\u0430\u0431\u043b\u043e\u043a\u043e\u0432\u0430\u043d\u043e",  # blocked, uk
        "\u0645\u062d\u0638\u0648\u0631",  # blocked, ar
        "\u0645\u0633\u062f\u0648\u062f",  # blocked, fa
        "\u05d7\u05e1\u05d5\u05dd",  # blocked, he
        "diblokir",  # blocked, id
        "disekat",  # blocked, ms
        "\u5ba1\u6838",  # moderation, zh
        "\u5be9\u6838",  # moderation, zh-Hant
        r"moderacj\w*",  # moderation, pl
        "\\bmoderaci[o\u00f3]n\\b",  # moderation, es
        "modera\u00e7\u00e3o",  # moderation, pt
        "mod\u00e9ration",  # moderation, fr
        "moderazione",  # moderation, it
        "\u043c\u043e\u0434\u0435\u0440\u0430\u0446",  # moderation, ru
        "\u30e2\u30c7\u30ec\u30fc\u30b7\u30e7\u30f3",  # moderation, ja
        r"moderasyon\w*",  # moderation, tr
        "ki\u1ec3m duy\u1ec7t",  # moderation, censorship, vi
        r"zabronion\w*",  # prohibited, pl
        r"\bprohibid[oa]s?\b",  # prohibited, es
        r"\bproibid[oa]s?\b",  # prohibited, pt
        "\u4e0d\u9069\u5207",  # inappropriate, ja
        "\u9055\u53cd",  # violation, ja
        "\u62b5\u89e6",  # conflicts with (a rule), ja/zh
        "\u0e16\u0e39\u0e01\u0e1a\u0e25\u0e47\u0e2d\u0e01",  # blocked, th
        "\u0e19\u0e42\u0e22\u0e1a\u0e32\u0e22",  # policy, th
        r"\bfiltrad[oa]s?\b",  # filtered, es/pt
        "filtr\u00e9",  # filtered, fr
        "gefiltert",  # filtered, de
        r"\bfiltrat[oa]\b",  # filtered, it
        "inapropiad",  # inappropriate, es
        "impr\u00f3prio",  # inappropriate, pt
        "inappropri\u00e9",  # inappropriate, fr
        r"unangemessen\w*",  # inappropriate, de
        r"inappropriat[oaie]\b",  # inappropriate, it
        "\u0905\u0935\u0930\u0941\u0926\u094d\u0927",  # blocked, hi
        "\u0905\u0928\u0941\u091a\u093f\u0924",  # inappropriate, hi
        "\u0938\u093e\u092e\u0917\u094d\u0930\u0940 \u0928\u0940\u0924\u093f",  # content policy, hi
        "\u0985\u09ac\u09b0\u09c1\u09a6\u09cd\u09a7",  # blocked, bn
        "\u0985\u09a8\u09c1\u09aa\u09af\u09c1\u0995\u09cd\u09a4",  # inappropriate, bn
        "\u09a8\u09c0\u09a4\u09bf",  # policy, bn
        "\u03b1\u03ba\u03b1\u03c4\u03ac\u03bb\u03bb\u03b7\u03bb",  # inappropriate, el
        # content policy, el
        (
            "\u03c0\u03bf\u03bb\u03b9\u03c4\u03b9\u03ba\u03ae \u03c0\u03b5"
            "\u03c1\u03b9\u03b5\u03c7\u03bf\u03bc\u03ad\u03bd\u03bf\u03c5"
        ),
        # was blocked, el
        "\u03b1\u03c0\u03bf\u03ba\u03bb\u03b5\u03af\u03c3\u03c4\u03b7\u03ba\u03b5",
        # was blocked, el
        "\u03bc\u03c0\u03bb\u03bf\u03ba\u03b1\u03c1\u03af\u03c3\u03c4\u03b7\u03ba\u03b5",
        "tartalmi ir\u00e1nyelv",  # content policy, hu
        r"blokkol\w*",  # blocked, hu
        "moder\u00e1ci",  # moderation, hu
        r"inadecvat\w*",  # inappropriate, ro
        "politica de con[\u021b\u0163]inut",  # content policy, ro
        r"moderare\w*",  # moderation, ro
        r"sopimat\w*",  # inappropriate, fi
        "sis\u00e4lt\u00f6k\u00e4yt\u00e4n",  # content policy, fi
        r"estetty\w*",  # blocked, fi
        r"moderoin\w*",  # moderation, fi
        r"nevhodn\w*",  # inappropriate, cs/sk
        r"zablokovan\w*",  # blocked, sk
        "\u043d\u0435\u043f\u043e\u0434\u0445\u043e\u0434\u044f\u0449",  # inappropriate, bg
        "\u0431\u043b\u043e\u043a\u0438\u0440\u0430\u043d",  # blocked, bg/sr
        r"blokiran\w*",  # blocked, hr/sr
        "neprimjeren",  # inappropriate, hr
        r"neprikladn\w*",  # inappropriate, hr/sr
        "bloquejat",  # blocked, ca
        r"inadequat\w*",  # inappropriate, ca
        "\u0905\u092f\u094b\u0917\u094d\u092f",  # inappropriate, mr
        "\u0905\u0935\u0930\u094b\u0927\u093f\u0924",  # blocked, mr/hi
        "\u0baa\u0bca\u0bb0\u0bc1\u0ba4\u0bcd\u0ba4\u0bae\u0bb1\u0bcd\u0bb1",  # inappropriate, ta
        "\u0ba4\u0b9f\u0bc1\u0b95\u0bcd\u0b95\u0baa\u0bcd\u0baa\u0b9f\u0bcd\u0b9f",  # blocked, ta
        "\u0c05\u0c28\u0c41\u0c1a\u0c3f\u0c24",  # inappropriate, te
        "\u0646\u0627\u0645\u0646\u0627\u0633\u0628",  # inappropriate, ur/fa
        "nepiem\u0113rot",  # inappropriate, lv
        "blo\u0137\u0113t",  # blocked, lv
        r"sobimat\w*",  # inappropriate, et
        r"blokeeri\w*",  # blocked, et
        r"neprimern\w*",  # inappropriate, sl
        "\u062a\u0645 \u062d\u0638\u0631",  # was blocked, ar
        "\u0633\u064a\u0627\u0633\u0629",  # policy, ar
        "\u0627\u0644\u0633\u0644\u0627\u0645\u0629",  # safety, ar
        "\u0645\u0631\u0634\u062d \u0627\u0644\u0645\u062d\u062a\u0648\u0649",  # content filter, ar
        "\u063a\u064a\u0631 \u0645\u0646\u0627\u0633\u0628",  # inappropriate, ar
        "\u063a\u064a\u0631 \u0627\u0644\u0645\u0646\u0627\u0633\u0628",  # the inappropriate, ar
        "\u0627\u06cc\u0645\u0646\u06cc",  # safety, fa
        "\u0641\u06cc\u0644\u062a\u0631",  # filter, fa
        "t\u1eeb ch\u1ed1i",  # refuse, vi
        "\u0636\u0627\u0631",  # harmful, ar
        "\u0627\u0646\u062a\u0647\u0627\u0643",  # violation, ar
        "engellen",  # blocked, tr
        r"politika\w*",  # policy, tr
        r"uygunsuz\w*",  # inappropriate, tr
        "ch\u00ednh s\u00e1ch",  # policy, vi
        "b\u1ecb ch\u1eb7n",  # blocked, vi
        "kh\u00f4ng ph\u00f9 h\u1ee3p",  # inappropriate, vi
        "\u043f\u043e\u043b\u0456\u0442\u0438\u043a",  # policy, uk
        "\u0431\u0435\u0437\u043f\u0435\u043a",  # safety, uk
        "\u043d\u0435\u043f\u0440\u0438\u0439\u043d\u044f\u0442\u043d",  # unacceptable, uk
        "\u05de\u05d3\u05d9\u05e0\u05d9\u05d5\u05ea",  # policy, he
        "\u05d1\u05d8\u05d9\u05d7\u05d5\u05ea",  # safety, he
        "\u05dc\u05d0 \u05d4\u05d5\u05dc\u05dd",  # inappropriate, he
        "\u0633\u06cc\u0627\u0633\u062a",  # policy, fa
        "kebijakan",  # policy, id
        "tidak pantas",  # inappropriate, id
        "\u7be9\u9078",  # filter, zh-Hant
        "\u5c01\u9396",  # blocked, zh-Hant
        "\u0631\u0642\u0627\u0628\u0629",  # moderation, ar
        "da\u00f1in",  # harmful, es
        r"perjudicial\w*",  # harmful, es/pt
        r"prejudicial\w*",  # harmful, pt
        "nociv[oa]s?",  # harmful, pt/it
        r"nuisible\w*",  # harmful, fr
        "sch\u00e4dlich",  # harmful, de
        "dannos[oaie]",  # harmful, it
        "ol\u00e4mplig",  # inappropriate, sv
        r"skadlig\w*",  # harmful, sv/da/nb
        "upassende",  # inappropriate, da/nb
        "beleid",  # policy, nl
        r"ongepast\w*",  # inappropriate, nl
        r"schadelijk\w*",  # harmful, nl
        "z\u00e1sad",  # policy, cs
        "\u0161kodliv",  # harmful, cs
        "\u0e44\u0e21\u0e48\u0e40\u0e2b\u0e21\u0e32\u0e30\u0e2a\u0e21",  # inappropriate, th
        "tidak sesuai",  # inappropriate, ms
    ),
    K.MAX_TOKENS: (
        r"truncad\w*",  # truncated, es/pt
        r"tronqu\w*",  # truncated, fr
        "abgeschnitten",  # cut off, de
        "\u043e\u0431\u0440\u0435\u0437\u0430\u043d",  # truncated, ru
        "\u5207\u308a\u6368\u3066",  # truncated, ja
        "\uc798\ub838",  # cut off, ko
        "\u622a\u65b7",  # truncated, zh-Hant
        r"troncat\w*",  # truncated, it
        "obci\u0119t",  # cut off, pl
        "afgekapt",  # cut off, nl
        "avkortad",  # truncated, sv
        "zkr\u00e1cen",  # shortened, cs
        "\u043e\u0431\u0440\u0456\u0437\u0430\u043d",  # truncated, uk
        "\u6700\u5927\u30c8\u30fc\u30af\u30f3",  # maximum tokens, ja
        "\u30c8\u30fc\u30af\u30f3\u306e\u6700\u5927",  # maximum tokens, ja
        "\ucd5c\ub300 \ud1a0\ud070",  # maximum tokens, ko
        "\u5de5\u5177\u8c03\u7528\u6b21\u6570",  # the number of tool calls, zh
        "\u5de5\u5177\u8abf\u7528\u6b21\u6578",  # the number of tool calls, zh-Hant
        "tokens de finalizaci\u00f3n",  # completion tokens, es
        "tokens de salida",  # output tokens, es
        "tokens de sa\u00edda",  # output tokens, pt
        "tokens de conclus\u00e3o",  # completion tokens, pt
        "jetons de sortie",  # output tokens, fr
        "tokens de sortie",  # output tokens, fr
        r"ausgabe-?token\w*",  # output tokens, de
        "token di output",  # output tokens, it
        "tamamlama token",  # completion tokens, tr
        "\u00e7\u0131kt\u0131 token",  # output tokens, tr
        "\uc644\ub8cc \ud1a0\ud070",  # completion tokens, ko
        "\ucd9c\ub825 \ud1a0\ud070",  # output tokens, ko
        "\u51fa\u529b\u30c8\u30fc\u30af\u30f3",  # output tokens, ja
        "token\u00f3w wyj\u015bciowych",  # output tokens, pl
        # output tokens, ru
        (
            "\u0432\u044b\u0445\u043e\u0434\u043d\u044b"
            "\u0445 \u0442\u043e\u043a\u0435\u043d\u043e\u0432"
        ),
        "\u6700\u5927\u8f6e\u6b21",  # maximum turns, zh
        "\u8f6e\u6b21\u4e0a\u9650",  # turn limit, zh
        "\u8f6e\u6b21\u9884\u7b97",  # turn budget, zh
        "\u6700\u5927\u8fed\u4ee3",  # maximum iterations, zh
        "\u6700\u5927\u8f2a\u6b21",  # maximum turns, zh-Hant
        "\u8f2a\u6b21\u4e0a\u9650",  # turn limit, zh-Hant
        "\u6700\u5927\u30bf\u30fc\u30f3",  # maximum turns, ja
        "\ucd5c\ub300 \ud134",  # maximum turns, ko
        "\u6b65\u9aa4\u4e0a\u9650",  # step limit, zh
        "\u6b65\u9a5f\u4e0a\u9650",  # step limit, zh-Hant
        "\u6700\u5927\u6b65\u6570",  # maximum steps, zh
        "\u6700\u5927\u6b65\u9a5f",  # maximum steps, zh-Hant
        "m[a\u00e1]ximo de tokens",  # maximum of tokens, es/pt
        "nombre maximal de jetons",  # maximum number of tokens, fr
        "numero massimo di token",  # maximum number of tokens, it
        r"iteraci\w+",  # iterations, es
        "itera\u00e7\u00f5es",  # iterations, pt
        "it\u00e9ration",  # iteration, fr
        "m[a\u00e1]ximo de pasos",  # maximum steps, es
        "m[a\u00e1]ximo de passos",  # maximum steps, pt
        "\u0906\u0909\u091f\u092a\u0941\u091f \u091f\u094b\u0915\u0928",  # output tokens, hi
        "\u0905\u0927\u093f\u0915\u0924\u092e \u091f\u094b\u0915\u0928",  # maximum tokens, hi
        "\u0986\u0989\u099f\u09aa\u09c1\u099f \u099f\u09cb\u0995\u09c7\u09a8",  # output tokens, bn
        # maximum tokens, bn
        "\u09b8\u09b0\u09cd\u09ac\u09cb\u099a\u09cd\u099a \u099f\u09cb\u0995\u09c7\u09a8",
        "tokens \u03b5\u03be\u03cc\u03b4\u03bf\u03c5",  # output tokens, el
        "\u03c0\u03b5\u03c1\u03b9\u03ba\u03cc\u03c0\u03b7\u03ba\u03b5",  # was truncated, el
        "kimeneti token",  # output tokens, hu
        r"csonkol\w*",  # truncated, hu
        "token-?uri de ie[\u0219\u015f]ire",  # output tokens, ro
        r"trunchia\w*",  # truncated, ro
        "v\u00fdstupn\u00fdch tokenov",  # output tokens, sk
        "skr\u00e1ten",  # truncated, sk
        # output tokens, bg
        "\u0438\u0437\u0445\u043e\u0434\u043d\u0438 \u0442\u043e\u043a\u0435\u043d\u0438",
        "\u043e\u0442\u0440\u044f\u0437\u0430\u043d",  # cut off, bg
        "izlaznih tokena",  # output tokens, hr/sr
        "skra\u0107en",  # truncated, hr/sr
        "tokens de sortida",  # output tokens, ca
        "truncat",  # truncated, ca
        "\u062d\u062f \u0627\u0644\u062e\u0637\u0648\u0627\u062a",  # step limit, ar
        # tool use, bg
        (
            "\u0438\u0437\u043f\u043e\u043b\u0437\u0432\u0430\u043d\u0435 \u043d"
            "\u0430 \u0438\u043d\u0441\u0442\u0440\u0443\u043c\u0435\u043d\u0442\u0438"
        ),
        # response tokens, th
        (
            "\u0e42\u0e17\u0e40\u0e04\u0e47\u0e19\u0e01\u0e32"
            "\u0e23\u0e15\u0e2d\u0e1a\u0e2a\u0e19\u0e2d\u0e07"
        ),
        "\u0627\u0642\u062a\u0637\u0627\u0639",  # truncation, ar
        "\u0631\u0645\u0648\u0632 \u0627\u0644\u0625\u062e\u0631\u0627\u062c",  # output tokens, ar
        # maximum tokens, ar
        (
            "\u0627\u0644\u062d\u062f \u0627\u0644\u0623\u0642"
            "\u0635\u0649 \u0644\u0644\u0631\u0645\u0648\u0632"
        ),
        r"maksimum token\w*",  # maximum tokens, tr
        "b\u1ecb c\u1eaft",  # cut off, vi
        "token \u0111\u1ea7u ra",  # output tokens, vi
        "token t\u1ed1i \u0111a",  # maximum tokens, vi
        # output tokens, uk
        (
            "\u0432\u0438\u0445\u0456\u0434\u043d\u0438"
            "\u0445 \u0442\u043e\u043a\u0435\u043d\u0456\u0432"
        ),
        "\u05e0\u05e7\u05d8\u05e2",  # cut off, he
        "\u05d0\u05e1\u05d9\u05de\u05d5\u05e0\u05d9 \u05e4\u05dc\u05d8",  # output tokens, he
        "\u062a\u0648\u06a9\u0646 \u062e\u0631\u0648\u062c\u06cc",  # output token, fa
        "terpotong",  # truncated, id
        "token keluaran",  # output tokens, id
        "l\u00edmite de pasos",  # step limit, es
        "limite de passos",  # step limit, pt
        "limite d'\u00e9tapes",  # step limit, fr
        r"schrittlimit\w*",  # step limit, de
        "limite di pass(?:aggi|i)",  # step limit, it
        "limit krok\u00f3w",  # step limit, pl
        "stappenlimiet",  # step limit, nl
        "\u043b\u0438\u043c\u0438\u0442 \u0448\u0430\u0433\u043e\u0432",  # step limit, ru
        # number of steps, ru
        (
            "\u043a\u043e\u043b\u0438\u0447\u0435\u0441"
            "\u0442\u0432\u043e \u0448\u0430\u0433\u043e\u0432"
        ),
        "\u043b\u0456\u043c\u0456\u0442 \u043a\u0440\u043e\u043a\u0456\u0432",  # step limit, uk
        "\u30b9\u30c6\u30c3\u30d7\u4e0a\u9650",  # step limit, ja
        "\u30b9\u30c6\u30c3\u30d7\u6570\u306e\u4e0a\u9650",  # step-count limit, ja
        "\ub2e8\uacc4 \ud55c\ub3c4",  # step limit, ko
        "\ub2e8\uacc4 \uc81c\ud55c",  # step limit, ko
        "limit krok\u016f",  # step limit, cs
        "ad\u0131m s\u0131n\u0131r\u0131",  # step limit, tr
        "ad\u0131m limit\\w*",  # step limit, tr
        "batas langkah",  # step limit, id
        "gi\u1edbi h\u1ea1n b\u01b0\u1edbc",  # step limit, vi
        "token ho\u00e0n th\u00e0nh",  # completion tokens, vi
        r"utdatatoken\w*",  # output tokens, sv
        r"uitvoertoken\w*",  # output tokens, nl
        "v\u00fdstupn\u00edch token\u016f",  # output tokens, cs
        "\u0e16\u0e39\u0e01\u0e15\u0e31\u0e14",  # was cut off, th
        # maximum tokens, th
        "\u0e42\u0e17\u0e40\u0e04\u0e47\u0e19\u0e2a\u0e39\u0e07\u0e2a\u0e38\u0e14",
        "dipotong",  # cut off, ms
    ),
    K.CANCELLED: (
        r"annul\w*",  # cancelled, fr/it
        "abgebrochen",  # aborted, de
        "unterbrochen",  # interrupted, de
        r"interromp\w*",  # interrupted, pt/it
        r"interrump\w*",  # interrupted, es
        "\u043e\u0442\u043c\u0435\u043d",  # cancel, ru
        "\u043f\u0440\u0435\u0440\u0432\u0430\u043d",  # interrupted, ru
        # stopped by the user, ru
        (
            "\u043e\u0441\u0442\u0430\u043d\u043e\u0432\u043b\u0435\u043d\\w*[^.\\n]{0,30}?"
            "\u043f\u043e\u043b\u044c\u0437\u043e\u0432\u0430\u0442\u0435\u043b"
        ),
        "\u30ad\u30e3\u30f3\u30bb\u30eb",  # cancel, ja
        "\ucde8\uc18c",  # cancel, ko
        "iptal",  # cancelled, tr
        "h\u1ee7y",  # cancelled, vi
        r"interrott\w*",  # interrupted, it
        r"anulowan\w*",  # cancelled, pl
        r"przerwan\w*",  # interrupted, pl
        "geannuleerd",  # cancelled, nl
        "afgebroken",  # aborted, nl
        r"\bavbr\w+",  # interrupted, sv/nb
        "annulleret",  # cancelled, da
        "afbrudt",  # interrupted, da
        "zru\u0161en",  # cancelled, cs
        "p\u0159eru\u0161en",  # interrupted, cs
        "\u0441\u043a\u0430\u0441\u043e\u0432\u0430\u043d",  # cancelled, uk
        "\u043f\u0435\u0440\u0435\u0440\u0432\u0430\u043d",  # interrupted, uk
        "\u0625\u0644\u063a\u0627\u0621",  # cancellation, ar
        "\u0644\u063a\u0648",  # cancelled, fa
        "\u05d1\u05d5\u05d8\u05dc",  # cancelled, he
        "dibatalkan",  # cancelled, id/ms
        "\u4e2d\u6b62",  # aborted, ja
        "\uc911\ub2e8",  # stopped, ko
        "\u624b\u52a8\u505c\u6b62",  # stopped by hand, zh
        "\u624b\u52d5\u505c\u6b62",  # stopped by hand, zh-Hant
        "\u505c\u6b62\u751f\u6210",  # generation stopped, zh
        "\u0e22\u0e01\u0e40\u0e25\u0e34\u0e01",  # cancel, th
        "\u0930\u0926\u094d\u0926",  # cancelled, hi
        "\u092c\u093e\u0927\u093f\u0924",  # interrupted, hi
        "\u09ac\u09be\u09a4\u09bf\u09b2",  # cancelled, bn
        "\u03b1\u03ba\u03c5\u03c1\u03ce\u03b8\u03b7\u03ba\u03b5",  # was cancelled, el
        "\u03b1\u03ba\u03cd\u03c1\u03c9\u03c3",  # cancellation, el
        "\u03b4\u03b9\u03b1\u03ba\u03cc\u03c0\u03b7\u03ba\u03b5",  # was interrupted, el
        "megszak\u00edt",  # interrupt, hu
        r"anulat\w*",  # cancelled, ro
        "\u00eentrerupt",  # interrupted, ro
        r"intrerupt\w*",  # interrupted, ro (written without its diacritic)
        r"peruutet\w*",  # cancelled, fi
        r"peruttu\w*",  # cancelled, fi
        r"keskeyt\w*",  # interrupted, fi
        "preru\u0161en",  # interrupted, sk
        "\u043f\u0440\u0435\u043a\u044a\u0441\u043d\u0430\u0442",  # interrupted, bg
        r"otkazan\w*",  # cancelled, hr/sr
        r"prekinut\w*",  # interrupted, hr/sr
        "\u043f\u0440\u0435\u043a\u0438\u043d\u0443\u0442",  # interrupted, sr
        "\\bcancel[\u00b7.]la",  # cancel, ca
        "at\u0161aukt",  # cancelled, lt
        r"nutraukt\w*",  # interrupted, lt
        "\u0bb0\u0ba4\u0bcd\u0ba4\u0bc1",  # cancelled, ta
        "\u0c30\u0c26\u0c4d\u0c26\u0c41",  # cancelled, te
        "\u0645\u0646\u0633\u0648\u062e",  # cancelled, ur
        r"atcel\w*",  # cancel, lv
        "p\u0101rtraukt",  # interrupted, lv
        "t\u00fchistat",  # cancelled, et
        r"katkesta\w*",  # interrupted, et
        r"preklica\w*",  # cancelled, sl
        r"prekinjen\w*",  # interrupted, sl
        r"bekor qilin\w*",  # cancelled, uz
        "l\u0259\u011fv",  # cancelled, az
        "imeghairiwa",  # was cancelled, sw
        r"kinansela\w*",  # cancelled, tl
        "\u10d2\u10d0\u10e3\u10e5\u10db",  # cancelled, ka
        "\u0579\u0565\u0572\u0561\u0580\u056f",  # cancelled, hy
        # was interrupted, ar
        "\u062a\u0645\u062a \u0627\u0644\u0645\u0642\u0627\u0637\u0639\u0629",
        "kesintiye",  # (was) interrupted, tr
        "gi\u00e1n \u0111o\u1ea1n",  # interrupted, vi
        "\u05d4\u05d5\u05e4\u05e1\u05e7",  # was stopped, he
        "\u0d31\u0d26\u0d4d\u0d26\u0d3e\u0d15\u0d4d\u0d15",  # cancel, ml
        "\u0cb0\u0ca6\u0ccd\u0ca6\u0cc1",  # cancelled, kn
        "\u0ab0\u0aa6 \u0a95\u0ab0",  # cancel, gu
        "\u0a30\u0a71\u0a26",  # cancelled, pa
    ),
    K.NODE_OFFLINE: (
        "\u30aa\u30d5\u30e9\u30a4\u30f3",  # offline, ja
        "\uc624\ud504\ub77c\uc778",  # offline, ko
        "\u96e2\u7dda",  # offline, zh-Hant
        "\u043e\u0444\u043b\u0430\u0439\u043d",  # offline, ru
        "\u063a\u064a\u0631 \u0645\u062a\u0635\u0644",  # offline, ar
        "\u05dc\u05d0 \u05de\u05e7\u05d5\u05d5\u05df",  # offline, he
        "\u0622\u0641\u0644\u0627\u06cc\u0646",  # offline, fa
        "\u0e2d\u0e2d\u0e1f\u0e44\u0e25\u0e19\u0e4c",  # offline, th
        "\u79bb\u7ebf",  # offline, zh
        "\u6389\u7ebf",  # dropped offline, zh
        "\u65b7\u7dda",  # dropped offline, zh-Hant
        "\u5fc3\u8df3",  # heartbeat, zh
        "\u30cf\u30fc\u30c8\u30d3\u30fc\u30c8",  # heartbeat, ja
        "\ud558\ud2b8\ube44\ud2b8",  # heartbeat, ko
        "hors ligne",  # offline, fr
        "fuera de l\u00ednea",  # offline, es
        "ngo\u1ea1i tuy\u1ebfn",  # offline, vi
        "\u0911\u092b\u093c?\u0932\u093e\u0907\u0928",  # offline, hi
        "\u0985\u09ab\u09b2\u09be\u0987\u09a8",  # offline, bn
        # offline, el
        "\u03b5\u03ba\u03c4\u03cc\u03c2 \u03c3\u03cd\u03bd\u03b4\u03b5\u03c3\u03b7\u03c2",
        "izvan mre\u017ee",  # offline, hr
        "\u0432\u0430\u043d \u043c\u0440\u0435\u0436\u0435",  # offline, sr
        "fora de l\u00ednia",  # offline, ca
        "\u0b86\u0b83\u0baa\u0bcd\u0bb2\u0bc8\u0ba9\u0bcd",  # offline, ta
        "\u0622\u0641 \u0644\u0627\u0626\u0646",  # offline, ur
        "bezsaist",  # offline, lv
        "v\u00f5rgu\u00fchenduseta",  # offline, et
        "brez povezave",  # offline, sl
        "\u0436\u0435\u043b\u0456\u0434\u0435\u043d \u0442\u044b\u0441",  # offline, kk
        "oflayn",  # offline, uz/az
        "nje ya mtandao",  # offline, sw
        "\u10dd\u10e4\u10da\u10d0\u10d8\u10dc",  # offline, ka
        "\u0561\u0576\u0581\u0561\u0576\u0581",  # offline, hy
        "\u00e7evrimd\u0131\u015f\u0131",  # offline, tr
        "luar talian",  # offline, ms
    ),
    K.HARNESS_EXITED: (
        "\u7d42\u4e86\u30b3\u30fc\u30c9",  # exit code, ja
        "\uc885\ub8cc \ucf54\ub4dc",  # exit code, ko
        "\u043a\u043e\u0434 \u0432\u044b\u0445\u043e\u0434\u0430",  # exit code, ru
        # exit code, ru
        "\u043a\u043e\u0434 \u0437\u0430\u0432\u0435\u0440\u0448\u0435\u043d\u0438\u044f",
        "\\bc\u00f3digo de salida\\b",  # exit code, es
        "\\bc\u00f3digo de sa\u00edda\\b",  # exit code, pt
        "code de sortie",  # exit code, fr
        "\\babgest\u00fcrzt\\b",  # crashed, de
        "\u30af\u30e9\u30c3\u30b7\u30e5",  # crashed, ja
        "kod wyj\u015bcia",  # exit code, pl
        "afsluitcode",  # exit code, nl
        "codice di uscita",  # exit code, it
        "\u043a\u043e\u0434 \u0432\u0438\u0445\u043e\u0434\u0443",  # exit code, uk
        "kode keluar",  # exit code, id
        "\u5d29\u6f70",  # crashed, zh-Hant
        "\u8fdb\u7a0b\u5df2\u9000\u51fa",  # the process has exited, zh
        "\u8fdb\u7a0b\u7ed3\u675f",  # the process ended, zh
        "\u30d7\u30ed\u30bb\u30b9\u304c\u7d42\u4e86",  # the process ended, ja
        "\ud504\ub85c\uc138\uc2a4\uac00 \uc885\ub8cc",  # the process ended, ko
        r"\bproceso\b[^.\n]{0,30}?\b(?:termin|finaliz|sali)\w*",  # the process ended, es
        r"\bprocesso\b[^.\n]{0,30}?\b(?:termin|encerr|saiu|uscit)\w*",  # the process ended, pt/it
        # the process ended, fr
        "\\bprocessus\\b[^.\\n]{0,30}?\\b(?:termin|arr[e\u00ea]t|quitt)\\w*",
        "\\bprozess\\b[^.\\n]{0,30}?\\b(?:beendet|abgest[u\u00fc]rzt)",  # the process ended, de
        "\u0928\u093f\u0915\u093e\u0938 \u0915\u094b\u0921",  # exit code, hi
        "\u0915\u094d\u0930\u0948\u0936",  # crash, hi
        "\u09aa\u09cd\u09b0\u09b8\u09cd\u09a5\u09be\u09a8 \u0995\u09cb\u09a1",  # exit code, bn
        "\u0995\u09cd\u09b0\u09cd\u09af\u09be\u09b6",  # crash, bn
        # exit code, el
        "\u03ba\u03c9\u03b4\u03b9\u03ba[\u03cc\u03bf]\u03c2? \u03b5\u03be\u03cc\u03b4\u03bf\u03c5",
        "\u03ba\u03b1\u03c4\u03ad\u03c1\u03c1\u03b5\u03c5\u03c3\u03b5",  # crashed, el
        "kil\u00e9p\u00e9si k\u00f3d",  # exit code, hu
        "\u00f6sszeomlott",  # crashed, hu
        "cod(?:ul)? de ie[\u0219\u015f]ire",  # exit code, ro
        r"(?:poistumis|paluu)koodi\w*",  # exit code, fi
        "kaatui",  # crashed, fi
        "n\u00e1vratov\u00fd k\u00f3d",  # return code, cs/sk
        "\u0441\u0440\u0438\u0432",  # crash, bg
        "izlazni kod",  # exit code, hr/sr
        "sru\u0161io",  # crashed, hr/sr
        "codi de sortida",  # exit code, ca
        "\u0915\u094d\u0930\u0945\u0936",  # crash, mr
        "\u0b9a\u0bc6\u0baf\u0bb2\u0bbf\u0bb4\u0ba8\u0bcd\u0ba4",  # crashed, ta
        "\u062a\u0639\u0637\u0644",  # crashed, ar
        "\u0631\u0645\u0632 \u0627\u0644\u062e\u0631\u0648\u062c",  # exit code, ar
        "\u00e7\u00f6kt\u00fc",  # crashed, tr
        "\u00e7\u0131k\u0131\u015f kodu",  # exit code, tr
        "m\u00e3 tho\u00e1t",  # exit code, vi
        "\u0430\u0432\u0430\u0440\u0456\u0439\u043d\u043e",  # abnormally (ended), uk
        "\u05e7\u05d5\u05d3 \u05d9\u05e6\u05d9\u05d0\u05d4",  # exit code, he
        "\u05e7\u05e8\u05e1",  # crashed, he
        "\u06a9\u062f \u062e\u0631\u0648\u062c",  # exit code, fa
        "no est\u00e1 instalad",  # is not installed, es
        "n\u00e3o est\u00e1 instalad",  # is not installed, pt
        "nicht installiert",  # not installed, de
        "non \u00e8 installat",  # is not installed, it
        # not installed, ru
        "\u043d\u0435 \u0443\u0441\u0442\u0430\u043d\u043e\u0432\u043b\u0435\u043d",
        # not installed, uk
        "\u043d\u0435 \u0432\u0441\u0442\u0430\u043d\u043e\u0432\u043b\u0435\u043d",
        r"nie jest zainstalowan\w*",  # is not installed, pl
        "niet ge\u00efnstalleerd",  # not installed, nl
        # not installed, ja
        "\u30a4\u30f3\u30b9\u30c8\u30fc\u30eb\u3055\u308c\u3066\u3044\u307e\u305b\u3093",
        "\uc124\uce58\ub418\uc5b4 \uc788\uc9c0 \uc54a",  # not installed, ko
        "\u672a\u5b89\u88dd",  # not installed, zh-Hant
        "\u672a\u5b89\u88c5",  # not installed, zh
        "y\u00fckl\u00fc de\u011fil",  # not installed, tr
        "ch\u01b0a \u0111\u01b0\u1ee3c c\u00e0i \u0111\u1eb7t",  # not installed, vi
        "belum terinstal",  # not yet installed, id
        "nen\u00ed nainstalov\u00e1n",  # not installed, cs
        "\u063a\u064a\u0631 \u0645\u062b\u0628\u062a",  # not installed, ar
        r"krasch\w*",  # crash, sv
        r"avslutningskod\w*",  # exit code, sv/da/nb
        "styrtede ned",  # crashed, da
        "krasjet",  # crashed, nb
        "gecrasht",  # crashed, nl
        "zhroutil",  # crashed, cs
    ),
    K.CONTEXT_EXHAUSTED: (
        "contexto",  # context, es/pt
        "contexte",  # context, fr
        r"kontext\w*",  # context, de
        "\u043a\u043e\u043d\u0442\u0435\u043a\u0441\u0442",  # context, ru
        "\u30b3\u30f3\u30c6\u30ad\u30b9\u30c8",  # context, ja
        "\ucee8\ud14d\uc2a4\ud2b8",  # context, ko
        "contesto",  # context, it
        r"kontekst\w*",  # context, pl/da/nb
        "\u05d4\u05e7\u05e9\u05e8",  # context, he
        "konteks",  # context, id/ms
        "ng\u1eef c\u1ea3nh",  # context, vi
        "ba\u011flam",  # context, tr
        "\u0e1a\u0e23\u0e34\u0e1a\u0e17",  # context, th
        "\u0938\u0902\u0926\u0930\u094d\u092d \u0935\u093f\u0902\u0921\u094b",  # context window, hi
        "\u0938\u0902\u0926\u0930\u094d\u092d \u0938\u0940\u092e\u093e",  # context limit, hi
        "\u0915\u0949\u0928\u094d\u091f\u0947\u0915\u094d\u0938\u094d\u091f",  # context, hi
        "\u0995\u09a8\u099f\u09c7\u0995\u09cd\u09b8\u099f",  # context, bn
        # context window, bn
        "\u09aa\u09cd\u09b0\u09b8\u0999\u09cd\u0997 \u0989\u0987\u09a8\u09cd\u09a1\u09cb",
        "fereastr[a\u0103] de context",  # context window, ro
        "finestra de context",  # context window, ca
        "\u03c0\u03bb\u03b1\u03af\u03c3\u03b9\u03bf",  # context, el
        "\u03c0\u03bb\u03b1\u03b9\u03c3\u03af\u03bf\u03c5",  # of the context, el
        "\u03c5\u03c0\u03b5\u03c1\u03c7\u03b5\u03af\u03bb\u03b9\u03c3\u03b7",  # overflow, el
        "comhth\u00e9acs",  # context, ga
        "prea lung",  # too long, ro
        "\u067e\u0646\u062c\u0631\u0647 \u0632\u0645\u06cc\u0646\u0647",  # context window, fa
        "\u0627\u0646\u062f\u0627\u0632\u0647 \u0632\u0645\u06cc\u0646\u0647",  # context size, fa
        # the permitted length, bg
        (
            "\u0434\u043e\u043f\u0443\u0441\u0442\u0438\u043c\u0430"
            "\u0442\u0430 \u0434\u044a\u043b\u0436\u0438\u043d\u0430"
        ),
        "error de context",  # context error, ca
        "qu\u00e1 d\u00e0i",  # too long, vi
        "\u05d0\u05e8\u05d5\u05da \u05de\u05d3\u05d9",  # too long, he
        "terlalu panjang",  # too long, id
        # excessively long, fa
        "\u0628\u06cc\u0634 \u0627\u0632 \u062d\u062f \u0637\u0648\u0644\u0627\u0646\u06cc",
        "\u0637\u0648\u064a\u0644 \u062c\u062f",  # very long, ar
        "\u0633\u064a\u0627\u0642",  # context, ar (with or without its article)
        r"contextvenster\w*",  # context window, nl
        "kontextf\u00f6nster\\w*",  # context window, sv
    ),
    K.BAD_REQUEST: (
        "\u7121\u6548",  # invalid, zh-Hant
        "\u4e0d\u652f\u63f4",  # not supported, zh-Hant
        "\u7121\u52b9",  # invalid, ja
        "\u30b5\u30dd\u30fc\u30c8\u3055\u308c\u3066\u3044\u307e\u305b\u3093",  # not supported, ja
        "\uc720\ud6a8\ud558\uc9c0 \uc54a",  # invalid, ko
        "\uc9c0\uc6d0\ub418\uc9c0 \uc54a",  # not supported, ko
        "\u043d\u0435\u0434\u043e\u043f\u0443\u0441\u0442\u0438\u043c",  # not allowed, ru
        # not supported, ru
        (
            "\u043d\u0435 \u043f\u043e\u0434\u0434\u0435\u0440"
            "\u0436\u0438\u0432\u0430\u0435\u0442\u0441\u044f"
        ),
        "\\binv\u00e1lid\\w*",  # invalid, es/pt
        "\\bung\u00fcltig\\w*",  # invalid, de
        "non valide",  # invalid, fr
        "non pris en charge",  # not supported, fr
        "\\bnicht unterst\u00fctzt\\b",  # not supported, de
        r"non valid\w*",  # invalid, it
        r"non support\w*",  # not supported, it
        "nieprawid\u0142ow",  # invalid, pl
        "nieobs\u0142ugiwan",  # not supported, pl
        "ongeldig",  # invalid, nl
        "niet ondersteund",  # not supported, nl
        "ogiltig",  # invalid, sv
        "st\u00f6ds inte",  # not supported, sv
        "ugyldig",  # invalid, da/nb
        "underst\u00f8ttes ikke",  # not supported, da
        "st\u00f8ttes ikke",  # not supported, nb
        r"neplatn\w*",  # invalid, cs
        r"nepodporovan\w*",  # not supported, cs
        "\u043d\u0435\u0434\u0456\u0439\u0441\u043d",  # invalid, uk
        # not supported, uk
        (
            "\u043d\u0435 \u043f\u0456\u0434\u0442\u0440"
            "\u0438\u043c\u0443\u0454\u0442\u044c\u0441\u044f"
        ),
        "\u063a\u064a\u0631 \u0635\u0627\u0644\u062d",  # invalid, ar
        "\u063a\u064a\u0631 \u0645\u062f\u0639\u0648\u0645",  # not supported, ar
        "\u0646\u0627\u0645\u0639\u062a\u0628\u0631",  # invalid, fa
        "\u05dc\u05d0 \u05d7\u05d5\u05e7\u05d9",  # invalid, he
        "\u05dc\u05d0 \u05e0\u05ea\u05de\u05da",  # not supported, he
        "tidak valid",  # invalid, id
        "tidak didukung",  # not supported, id
        "tidak sah",  # invalid, ms
        "kh\u00f4ng h\u1ee3p l\u1ec7",  # invalid, vi
        "kh\u00f4ng h\u1ed7 tr\u1ee3",  # not supported, vi
        "\u6a21\u578b\u4e0d\u5b58\u5728",  # the model does not exist, zh
        "\uc9c0\uc6d0\ud558\uc9c0 \uc54a",  # does not support, ko
        "\ucc3e\uc744 \uc218 \uc5c6",  # cannot be found, ko
        "kh\u00f4ng t\u00ecm th\u1ea5y",  # not found, vi
        r"no se encontr\w*",  # was not found, es
        "no encontrad[oa]",  # not found, es
        "n\u00e3o encontrad[oa]",  # not found, pt
        "introuvable",  # not found, fr
        "nicht gefunden",  # not found, de
        "non trovat[oa]",  # not found, it
        "\u043d\u0435 \u043d\u0430\u0439\u0434\u0435\u043d",  # not found, ru
        "\u898b\u3064\u304b\u308a\u307e\u305b\u3093",  # not found, ja
        "\u627e\u4e0d\u5230",  # cannot find, zh
        "nie znaleziono",  # not found, pl
        r"bulunamad\w*",  # not found, tr
        "niet gevonden",  # not found, nl
        "tidak ditemukan",  # not found, id
        "\u0e44\u0e21\u0e48\u0e16\u0e39\u0e01\u0e15\u0e49\u0e2d\u0e07",  # invalid, th
        "\u0e44\u0e21\u0e48\u0e23\u0e2d\u0e07\u0e23\u0e31\u0e1a",  # not supported, th
        "\u0905\u092e\u093e\u0928\u094d\u092f",  # invalid, hi
        "\u0938\u092e\u0930\u094d\u0925\u093f\u0924 \u0928\u0939\u0940\u0902",  # not supported, hi
        "\u0928\u0939\u0940\u0902 \u092e\u093f\u0932\u093e",  # not found, hi
        "\u0985\u09ac\u09c8\u09a7",  # invalid, bn
        "\u09b8\u09ae\u09b0\u09cd\u09a5\u09bf\u09a4 \u09a8\u09af\u09bc",  # not supported, bn
        # not found, bn
        "\u09aa\u09be\u0993\u09af\u09bc\u09be \u09af\u09be\u09af\u09bc\u09a8\u09bf",
        "\u03bc\u03b7 \u03ad\u03b3\u03ba\u03c5\u03c1",  # invalid, el
        # not supported, el
        "\u03b4\u03b5\u03bd \u03c5\u03c0\u03bf\u03c3\u03c4\u03b7\u03c1\u03af\u03b6",
        "\u03b4\u03b5\u03bd \u03b2\u03c1\u03ad\u03b8\u03b7\u03ba\u03b5",  # not found, el
        "\u00e9rv\u00e9nytelen",  # invalid, hu
        "nem t\u00e1mogatott",  # not supported, hu
        "nem tal\u00e1lhat\u00f3",  # not found, hu
        r"nevalid\w*",  # invalid, ro
        r"nu este (?:acceptat|suportat)\w*",  # not supported, ro
        "nu a fost g[\u0103a]sit",  # not found, ro
        r"virheelli\w*",  # invalid, fi
        "ei (?:tueta|tuettu)",  # not supported, fi
        "\\bei l[\u00f6o]y(?:dy|tyn)",  # not found, fi
        "nen\u00e1jden",  # not found, sk
        "\u043d\u0435\u0432\u0430\u043b\u0438\u0434",  # invalid, bg
        # not supported, bg
        "\u043d\u0435 \u0441\u0435 \u043f\u043e\u0434\u0434\u044a\u0440\u0436\u0430",
        "\u043d\u0435 \u0435 \u043d\u0430\u043c\u0435\u0440\u0435\u043d",  # not found, bg
        "\\bneva[\u017ez]e[\u0107c]",  # invalid, hr/sr
        "nije podr[\u017ez]an",  # not supported, hr/sr
        "nije prona[\u0111d]en",  # not found, hr/sr
        "\u043d\u0435\u0432\u0430\u0436\u0435\u045b",  # invalid, sr
        "\u043d\u0438\u0458\u0435 \u043f\u043e\u0434\u0440\u0436\u0430\u043d",  # not supported, sr
        # not found, sr
        "\u043d\u0438\u0458\u0435 \u043f\u0440\u043e\u043d\u0430\u0452\u0435\u043d",
        "no v\u00e0lid",  # not valid, ca
        "no s'ha trobat",  # not found, ca
        r"nerast\w*",  # not found, lt
        r"nepalaiko\w*",  # not supported, lt
        r"netinkam\w*",  # invalid, lt
        "\u0905\u0935\u0948\u0927",  # invalid, mr/hi
        "\u0938\u092e\u0930\u094d\u0925\u093f\u0924 \u0928\u093e\u0939\u0940",  # not supported, mr
        "\u0938\u093e\u092a\u0921\u0932\u0947 \u0928\u093e\u0939\u0940",  # not found, mr
        "\u0ba4\u0bb5\u0bb1\u0bbe\u0ba9",  # invalid, ta
        # not supported, ta
        (
            "\u0b86\u0ba4\u0bb0\u0bbf\u0b95\u0bcd\u0b95\u0baa"
            "\u0bcd\u0baa\u0b9f\u0bb5\u0bbf\u0bb2\u0bcd\u0bb2\u0bc8"
        ),
        "\u0c1a\u0c46\u0c32\u0c4d\u0c32\u0c28\u0c3f",  # invalid, te
        "\u0c2e\u0c26\u0c4d\u0c26\u0c24\u0c41 \u0c32\u0c47\u0c26\u0c41",  # not supported, te
        "\u062f\u0631\u0633\u062a \u0646\u06c1\u06cc\u06ba",  # not valid, ur
        "\u0646\u06c1\u06cc\u06ba \u0645\u0644\u0627",  # not found, ur
        "neder\u012bg",  # invalid, lv
        "netiek atbalst\u012bt",  # not supported, lv
        "nav atrast",  # not found, lv
        r"kehtetu\w*",  # invalid, et
        "ei toetata",  # not supported, et
        "ei leitud",  # not found, et
        r"neveljav\w*",  # invalid, sl
        r"ni podprt\w*",  # not supported, sl
        r"ni (?:bil )?najden\w*",  # not found, sl
        "\u0436\u0430\u0440\u0430\u043c\u0441\u044b\u0437",  # invalid, kk
        # not supported, kk
        (
            "\u049b\u043e\u043b\u0434\u0430\u0443 \u043a\u04e9\u0440"
            "\u0441\u0435\u0442\u0456\u043b\u043c\u0435\u0439\u0434\u0456"
        ),
        "\u0442\u0430\u0431\u044b\u043b\u043c\u0430\u0434\u044b",  # not found, kk
        "noto.g.ri",  # invalid, uz
        "quvvatlanmaydi",  # not supported, uz
        "etibars\u0131z",  # invalid, az
        "d\u0259st\u0259kl\u0259nmir",  # not supported, az
        "tap\u0131lmad\u0131",  # not found, az
        "batili",  # invalid, sw
        "haitumiki",  # not supported, sw
        "haikupatikana",  # was not found, sw
        "hindi wasto",  # invalid, tl
        "hindi suportado",  # not supported, tl
        "hindi nahanap",  # not found, tl
        "\u10d0\u10e0\u10d0\u10e1\u10ec\u10dd\u10e0",  # incorrect, ka
        "\u10d5\u10d4\u10e0 \u10db\u10dd\u10d8\u10eb\u10d4\u10d1\u10dc\u10d0",  # not found, ka
        "\u0561\u0576\u057e\u0561\u057e\u0565\u0580",  # invalid, hy
        "\u0579\u056b \u0561\u057b\u0561\u056f\u0581\u057e\u0578\u0582\u0574",  # not supported, hy
        "\u0579\u056b \u0563\u057f\u0576\u057e\u0565\u056c",  # not found, hy
        # not found, ka
        "\u10d0\u10e6\u10db\u10dd\u10e9\u10d4\u10dc\u10d8\u10da\u10d8 \u10d0\u10e0",
        "\u063a\u064a\u0631 \u0645\u0648\u062c\u0648\u062f",  # does not exist, ar
        "\u063a\u064a\u0631 \u0635\u062d\u064a\u062d",  # incorrect, ar
        "ge\u00e7ersiz",  # invalid, tr
        "desteklenmiyor",  # not supported, tr
        "\u043d\u0435 \u0437\u043d\u0430\u0439\u0434\u0435\u043d",  # not found, uk
        "\u05dc\u05d0 \u05e0\u05de\u05e6\u05d0",  # not found, he
        "\u067e\u0634\u062a\u06cc\u0628\u0627\u0646\u06cc \u0646\u0645\u06cc",  # not supported, fa
        "\u06cc\u0627\u0641\u062a \u0646\u0634\u062f",  # not found, fa
        "n\u00e3o suporta",  # does not support, pt
        "no (?:soporta|admite)",  # does not support, es
        "ne prend pas en charge",  # does not support, fr
        "non supporta",  # does not support, it
        "hittades inte",  # was not found, sv
        "ikke fundet",  # not found, da
        "ikke funnet",  # not found, nb
        "nenalezen",  # not found, cs
        "\u0e44\u0e21\u0e48\u0e1e\u0e1a",  # not found, th
        "tidak dijumpai",  # not found, ms
        "tidak disokong",  # not supported, ms
        "\u0d05\u0d38\u0d3e\u0d27\u0d41",  # invalid, ml
        # not found, ml
        "\u0d15\u0d23\u0d4d\u0d1f\u0d46\u0d24\u0d4d\u0d24\u0d3f\u0d2f\u0d3f\u0d32\u0d4d\u0d32",
        "\u0c85\u0cae\u0cbe\u0ca8\u0ccd\u0caf",  # invalid, kn
        "\u0c95\u0c82\u0ca1\u0cc1\u0cac\u0c82\u0ca6\u0cbf\u0cb2\u0ccd\u0cb2",  # not found, kn
        "\u0a85\u0aae\u0abe\u0aa8\u0acd\u0aaf",  # invalid, gu
        "\u0aae\u0ab3\u0acd\u0aaf\u0ac1\u0a82 \u0aa8\u0aa5\u0ac0",  # not found, gu
        "\u0a05\u0a35\u0a48\u0a27",  # invalid, pa
        "\u0a28\u0a39\u0a40\u0a02 \u0a2e\u0a3f\u0a32\u0a3f\u0a06",  # not found, pa
        "\u092b\u0947\u0932\u093e \u092a\u0930\u0947\u0928",  # not found, ne
    ),
}


# The last resort, once no phrase, code, class, status or request word decides: single
# words that name a cause, one rule per kind. Each kind counts the different words of its
# own that the text holds, and the one kind with the most decides; of two tied, the one
# written first (a quota's words say more than a connection's, a full context's more than a
# cut-off answer's, which is often its symptom; a request's adjectives, "invalid", "not
# supported", which any other kind's noun may carry, come last); three or more tied, or
# none, stay unknown. A word says less than a phrase ("connection" may be anyone's), which
# is why these come after everything else, and only for text known to be a failure. Forms
# of one word ("cancelled", "cancellation") count once, as one alternative.
WORDS: tuple[Rule, ...] = (
    rule(
        K.QUOTA,
        "wild/tools/copilot-chat-exhausted-premium-model-quota",
        message=each_word(
            "quota",
            "credits?",
            "balance",
            "billing",
            "subscriptions?",
            "daily",
            "monthly",
            "budget",
            "allowance",
            "usage limit",
            "payment",
            "prepaid",
            "top up",
            "recharge",
            "upgrade",
            "free tier",
            "spend(?:ing)? limit",
            "insufficient funds",
            "trial",
            "purchase",
            "invoice",
            "paid plan",
            "overage",
            "funds",
            "\u989d\u5ea6",  # quota
            "\u4f59\u989d",  # balance
            "\u6b20\u8d39",  # in arrears
            "\u5145\u503c",  # top up
            *_ELSEWHERE[K.QUOTA],
        ),
    ),
    rule(
        K.RATE_LIMIT,
        "wild/tools/copilot-rate-limited-switching-to-auto",
        message=each_word(
            r"throttl\w*",
            "tpm",
            "rpm",
            "rps",
            "per minute",
            "per second",
            "rate",
            "too many requests",
            "slow down",
            "requests per",
            "burst",
            r"concurren\w*",
            "retry-after",
            r"rate[-_]?limit\w*",
            "\u9891\u7e41",  # too frequent
            "\u9650\u6d41",  # throttled
            *_ELSEWHERE[K.RATE_LIMIT],
        ),
    ),
    rule(
        K.AUTH,
        "wild/tools/windsurf-permission-denied-internal-error",
        message=each_word(
            r"authenticat\w*",
            r"authori[sz]\w*",
            "unauthori[sz]ed",
            "credentials?",
            "login",
            "log in",
            "sign in",
            "signed out",
            "permissions?",
            "forbidden",
            "api ?key",
            "access denied",
            "unauthenticated",
            "licen[cs]e key",
            "password",
            "apikey",
            "oauth",
            "revoked",
            "\u5bc6\u94a5",  # key
            "\u6388\u6743",  # authorization
            "\u8ba4\u8bc1",  # authentication
            "\u9274\u6743",  # authentication
            "\u767b\u5f55",  # log in
            *_ELSEWHERE[K.AUTH],
        ),
    ),
    rule(
        K.TIMEOUT,
        "wild/tools/cline-hub-run-start-timed-out",
        message=each_word(
            "timed out",
            "timeout",
            "deadline",
            "took too long",
            "time limit",
            "timing out",
            "time out",
            "inactivity",
            "\u8d85\u65f6",  # timed out
            *_ELSEWHERE[K.TIMEOUT],
        ),
    ),
    rule(
        K.PROVIDER_UNAVAILABLE,
        "wild/tools/continue-fixture-server-overloaded-try-again",
        message=each_word(
            "overloaded",
            "unavailable",
            "outage",
            "high demand",
            "bad gateway",
            "internal server error",
            "capacity",
            "maintenance",
            "upstream",
            "server error",
            "service error",
            "stream error",
            "error in (?:the )?(?:input |output |response )?stream",
            "proxy error",
            "queue[ _]full",
            r"(?:model|server|service|backend|upstream|endpoint|engine)s? (?:is |are )?not ready",
            "health check",
            "busy",
            "temporarily",
            "network",
            "socket",
            "unreachable",
            "dns",
            "tls",
            "ssl",
            r"econn\w+",
            r"disconnect\w*",
            "connection",
            "\u7f51\u7edc",  # network
            "\u8fde\u63a5",  # connection
            "\u7e41\u5fd9",  # busy
            *_ELSEWHERE[K.PROVIDER_UNAVAILABLE],
        ),
    ),
    rule(
        K.REFUSAL,
        "wild/tools/copilot-chat-prompt-filtered-responsible-ai",
        message=each_word(
            "safety",
            "filtered",
            "filtering",
            "flagged",
            "moderation",
            "policy",
            "policies",
            "harmful",
            "inappropriate",
            "unsafe",
            r"guardrails?",
            r"violat\w*",
            "prohibited",
            "jailbreak",
            "recitation",
            "responsible ai",
            r"censor\w*",
            "blocked",
            # Copilot's public-code block in other languages (de, pt/es, fr, it)
            "blockiert",
            "bloqueada",
            "bloqueado",
            "bloqu\u00e9e?",
            "bloccat[ao]",
            "\u654f\u611f",  # sensitive
            "\u8fdd\u89c4",  # violation
            "\u8fc7\u6ee4",  # filtered
            *_ELSEWHERE[K.REFUSAL],
        ),
    ),
    rule(
        K.CONTEXT_EXHAUSTED,
        "wild/sdktests/lmstudio-reached-context-no-mid-generation-overflow",
        message=each_word(
            "context window",
            "context length",
            "too many tokens",
            r"(?:prompt|input|message|request|conversation)s? (?:is |was )?too (?:long|large)",
            "\u4e0a\u4e0b\u6587",  # context
            *_ELSEWHERE[K.CONTEXT_EXHAUSTED],
        ),
    ),
    rule(
        K.MAX_TOKENS,
        "wild/providers/hermes-deepseek-truncated-tool-call",
        message=each_word(
            "truncated",
            "cut off",
            "max_tokens",
            "length limit",
            "output limit",
            "max[ _]turns",
            "max[ _]iterations",
            "max[ _]steps",
            "recursion limit",
            "stuck in a loop",
            "max_output_tokens",
            "max_completion_tokens",
            "output tokens",
            "(?:step|turn|iteration) limit",
            "(?:step|turn)[ _]budget",
            "loop guard",
            "too many (?:tool|function) calls",
            r"iterat\w*",
            "\u622a\u65ad",  # truncated
            *_ELSEWHERE[K.MAX_TOKENS],
        ),
    ),
    rule(
        K.CANCELLED,
        "wild/tools/copilot-cli-delegation-cancelled",
        message=each_word(
            r"cancel\w*",
            r"abort(?:ed|ing|s)?(?:_\w*)?",  # "aborted_tools", not a name ("abortWithMessage")
            r"interrupt\w*",
            "\u53d6\u6d88",  # cancel
            *_ELSEWHERE[K.CANCELLED],
        ),
    ),
    rule(
        K.NODE_OFFLINE,
        "wild/harvest3_lifecycle/gastown-deacon-heartbeat-stale",
        message=each_word(
            "offline",
            "heartbeat",
            "evicted",
            "went away",
            "preempted",
            "preemption",
            "runner",
            "daemon",
            "devcontainer",
            "codespace",
            r"reconnect\w*",
            "lost contact",
            "spot instance",
            r"node (?:lost|died|down|failed|failure)",
            r"host (?:down|unreachable|lost)",
            r"worker (?:lost|died)",
            *_ELSEWHERE[K.NODE_OFFLINE],
        ),
    ),
    rule(
        K.HARNESS_EXITED,
        "wild/tools/crush-crashed-copy-stacktrace",
        message=each_word(
            r"crash\w*",
            "killed",
            "exited",
            "exit code",
            "exit status",
            "subprocess",
            "spawn",
            "process ended",
            "non-zero",
            "nonzero",
            "terminated",
            "enoent",
            "not installed",
            "command not found",
            "exit",
            "signal",
            "sigkill",
            "sigterm",
            "sigsegv",
            "core dumped",
            "segfault",
            r"panic\w*",
            "died",
            r"oom\w*",
            "\u5d29\u6e83",  # crashed
            "\u8fdb\u7a0b\u9000\u51fa",  # process exited
            "\u9000\u51fa\u7801",  # exit code
            "\u9000\u51fa\u4ee3\u7801",  # exit code
            *_ELSEWHERE[K.HARNESS_EXITED],
        ),
    ),
    rule(
        K.BAD_REQUEST,
        "wild/tools/cline-stream-initialization-failed-vercel-400",
        message=each_word(
            r"invalid\b(?! (?:api )?response)",  # an invalid response is not the request
            "unsupported",
            r"malformed\b(?![^.\n]{0,30}?\brespons)",  # a malformed response is not the request
            "not supported",
            "unknown parameter",
            "not implemented",
            "unimplemented",
            "does not exist",
            "unknown model",
            "no such model",
            "model not found",
            r"misconfigur\w*",
            "configuration error",
            "missing required",
            "\u53c2\u6570",  # parameter
            "\u65e0\u6548",  # invalid
            "\u4e0d\u652f\u6301",  # not supported
            *_ELSEWHERE[K.BAD_REQUEST],
        ),
    ),
)
