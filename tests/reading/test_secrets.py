"""redact_secrets: every credential kind is replaced; phone numbers and dates are not."""

from __future__ import annotations

import random

import pytest

from reading.secrets import contains_secret, redact_secrets

SECRETS = {
    "openai_key": "sk-proj-abcDEF1234567890abcdefGHIJ",
    "anthropic_key": "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv",
    "aws_key": "AKIAIOSFODNN7EXAMPLE",
    "github_token": "ghp_" + "a1B2" * 9,
    "slack_token": "xoxb-123456789012-abcdefABCDEF",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
}


@pytest.mark.parametrize(("kind", "secret"), sorted(SECRETS.items()))
def test_token_kinds_are_redacted(kind: str, secret: str) -> None:
    redacted, kinds = redact_secrets(f"here it is: {secret} thanks")
    assert secret not in redacted
    assert f"[REDACTED:{kind}]" in redacted
    assert kinds == [kind]


@pytest.mark.parametrize(
    ("text", "kind", "kept"),
    [
        ("my password is hunter2", "password", "my password is "),
        ("My password is 'correct horse battery'", "password", "My password is "),
        ("password: Tr0ub4dor&3", "password", "password: "),
        ("login with pwd=s3cr3t now", "password", "login with pwd="),
        ("my api key is 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "api_key", "my api key is "),
        ("token: ZXhhbXBsZXRva2VuMTIzNDU2Nzg5MA==", "api_key", "token: "),
        ("client_secret=abcd1234efgh5678ijkl", "api_key", "client_secret="),
        ("Authorization: Bearer abcdef1234567890.xyz", "bearer_token", "Authorization: Bearer "),
        ("card 4111 1111 1111 1111 please", "card_number", "card "),
        ("card 5500-0000-0000-0004", "card_number", "card "),
        ("IBAN GB82 WEST 1234 5698 7654 32", "iban", "IBAN "),
    ],
)
def test_introduced_secrets_keep_their_introduction(text: str, kind: str, kept: str) -> None:
    redacted, kinds = redact_secrets(text)
    assert kinds == [kind]
    assert redacted.startswith(kept + f"[REDACTED:{kind}]")


def test_private_key_block_is_redacted_whole() -> None:
    text = "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\nbye"
    redacted, kinds = redact_secrets(text)
    assert "MIIE" not in redacted and "private_key" in kinds and redacted.endswith("bye")


def test_unterminated_private_key_is_redacted_to_the_end() -> None:
    redacted, _ = redact_secrets("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA")
    assert "b3Bl" not in redacted


@pytest.mark.parametrize(
    "text",
    [
        "Call me at 555-123-4567 or +1 415 555 0100.",
        "We met on 2023-05-07 at 10:30.",
        "Order number 1234 5678 9012 3456 is late.",  # fails Luhn
        "0000 0000 0000 0000",
        "I like tokens and secrets in novels.",
        "The token is broken.",
        "My key is under the mat.",
        "Version 3.11.7 of Python.",
        "GB82 is not a full IBAN",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_secrets(text) == (text, [])
    assert not contains_secret(text)


def test_several_kinds_are_listed_in_order() -> None:
    text = f"pwd=abc123 and {SECRETS['aws_key']} and card 4111111111111111"
    _, kinds = redact_secrets(text)
    assert kinds == ["password", "aws_key", "card_number"]


def test_redaction_is_idempotent() -> None:
    once, _ = redact_secrets(f"my password is hunter2 and {SECRETS['openai_key']}")
    assert redact_secrets(once)[0] == once


def test_random_secrets_in_random_sentences_never_survive() -> None:
    rng = random.Random(7)
    sentences = [
        "I use {} for work.",
        "Here: {}",
        "my token is {}",
        "{} is what I typed",
        "try {}, then call me",
    ]
    values = list(SECRETS.values()) + ["4012888888881881", "hunter2"]
    for _ in range(200):
        value = rng.choice(values[:-1])
        text = rng.choice(sentences).format(value)
        redacted, kinds = redact_secrets(text)
        assert value not in redacted and kinds


# Ordinary sentences with numbers, dates, versions, ids and secret-ish words: nothing to redact.
NEGATIVES = [
    "I was born on 1990-05-17.", "My order #123456789 arrived on 2024-03-02.", "I upgraded to Python 3.12.1 last week.",
    "Call me at +1 555 123 4567.", "My flight is LH 1234 at 10:30.", "I ran 5 km in 25:13.",
    "Version 2.4.11 broke my build.", "ISBN 978-3-16-148410-0 is the book.", "My password is expired.",
    "I changed my password yesterday.", "The key to success is consistency.", "I love key lime pie.",
    "My keyboard is a Keychron K2.", "The token ring network was old.", "My account is with Chase.",
    "I use a YubiKey for 2FA.", "Tracking number 1Z999AA10123456784 shipped.", "Invoice INV-2024-000123 is paid.",
    "I live at 221B Baker Street, London NW1 6XE.", "My user name on GitHub is octocat.", "My login is slow today.",
    "I was user number 1000000 on the forum.", "The meeting is 2024-05-07 10:30-11:30.", "Lat 52.520008, long 13.404954.",
    "My credit score is 780.", "I have 2 kids and 3 cats.", "The password manager I use is 1Password.",
    "I keep my passwords in Bitwarden.", "My PIN code changed last week.", "the internationalization2024 project",
    "UUID 123e4567-e89b-12d3-a456-426614174000 is the id", "The commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed it",
    "Account number 12345678 sort code 12-34-56", "My phone is 07700 900123", "We shipped release v10.2.3-beta.4 today",
    "https://example.com/path?id=123456789012", "Check https://docs.python.org/3.12/library/re.html",
    "I use user/pass auth at work", "My username is ana_dev", "I pass through Leeds on my way home.",
    "Pin it to the top of the channel.", "The secret to good bread is time.", "My salary is 85,000 a year.",
    "Room 1204, building 7, floor 12.", "We sold 4,000,000 units in 2023.", "Call 0800 123 4567 for support.",
]  # fmt: skip


@pytest.mark.parametrize("text", NEGATIVES)
def test_ordinary_sentences_with_numbers_survive(text: str) -> None:
    assert redact_secrets(text) == (text, [])


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("My pw is CorrectHorse99!", "CorrectHorse99!"),
        ("My login is admin / S3cretSauce!", "S3cretSauce!"),
        ("card 4111.1111.1111.1111", "4111.1111.1111.1111"),
        ("iban de89 3704 0044 0532 0130 00 thanks", "de89 3704 0044 0532 0130 00"),
        ("key sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
        ("my SSN is 536-90-4399", "536-90-4399"),
        ("DATABASE_URL=postgres://app:Sup3rS3cret@db:5432/app", "Sup3rS3cret"),
        ("My AWS secret access key is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG"),
    ],
)
def test_the_forms_issue_12_found_stored_verbatim(text: str, secret: str) -> None:
    assert secret not in redact_secrets(text)[0]


@pytest.mark.parametrize(
    "text",
    ["My rail pass is 90 a month.", "my bus pass is 45 euros now", "The ski pass: 300 for the week.",
     "Our museum pass was 60."],
)  # fmt: skip
def test_a_travel_or_entry_pass_is_not_a_password(text: str) -> None:
    assert redact_secrets(text) == (text, [])


def test_a_bare_pass_is_still_a_password() -> None:
    assert redact_secrets("my pass is hunter22")[0] == "my pass is [REDACTED:password]"
