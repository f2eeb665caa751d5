"""Writes `tune.jsonl` and `holdout.jsonl` of this folder from the hand-written templates.

Each template is a notification as a bank, shop, courier, messenger, 2FA service,
developer tool or person writes it, in one of 16 languages; placeholders are filled
with invented values (codes, Luhn-valid card numbers, mod-97-valid IBANs, key-shaped
tokens, recovery phrases; for the secret-free side order, tracking, phone and flight
numbers, prices, dates, postcodes). The seed is fixed: running it again writes the
same files. Three parts: `tune` (the detector was tuned on it), `seen` (a first
held-out set, measured once blind, then tuned on) and `holdout` (written after the
tuning, measured and never tuned on).

    .venv/bin/python bench/data/secrets/build_corpus.py
"""

from __future__ import annotations

import random
import string
import sys
from collections.abc import Callable
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from templates_holdout import HOLDOUT  # noqa: E402
from templates_seen import SEEN  # noqa: E402
from templates_tune import TUNE  # noqa: E402

SEED_WORDS = (  # noqa: SIM905 (a word list reads best as text)
    "abandon ability able about above absent absorb abstract absurd abuse access accident "
    "account accuse achieve acid acoustic acquire across act action actor actress actual "
    "adapt add addict address adjust admit adult advance advice aerobic affair afford afraid "
    "again age agent agree ahead aim air airport aisle alarm album alcohol alert alien all "
    "alley allow almost alone alpha already also alter always amateur amazing among amount "
    "amused analyst anchor ancient anger angle angry animal ankle announce annual another "
    "answer antenna antique anxiety any apart apology appear apple approve april arch arctic "
    "area arena argue arm armed armor army around arrange arrest arrive arrow art artefact "
    "artist artwork ask aspect assault asset assist assume asthma athlete atom attack attend "
    "attitude attract auction audit august aunt author auto autumn average avocado avoid "
    "awake aware away awesome awful awkward axis baby bachelor bacon badge bag balance "
    "balcony ball bamboo banana banner bar barely bargain barrel base basic basket battle"
).split()
IBAN_SHAPES = {"DE": (8, 10), "FR": (10, 13), "NL": (4, 10), "IT": (11, 12), "ES": (8, 12),
               "PL": (8, 16), "GB": (10, 8), "AT": (5, 11), "BE": (3, 9), "PT": (8, 13),
               "SE": (3, 17), "DK": (4, 10), "NO": (4, 7), "CZ": (4, 16), "TR": (6, 16),
               "CH": (5, 12)}


def luhn_complete(prefix: str, length: int, rng: random.Random) -> str:
    body = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
    for check in string.digits:
        digits = body + check
        total = 0
        for i, ch in enumerate(reversed(digits)):
            v = int(ch)
            if i % 2:
                v = v * 2 - 9 if v > 4 else v * 2
            total += v
        if total % 10 == 0:
            return digits
    raise AssertionError("unreachable")


def make_iban(country: str, rng: random.Random) -> str:
    bank_len, acct_len = IBAN_SHAPES[country]
    if country == "GB":
        bban = "".join(rng.choice(string.ascii_uppercase) for _ in range(4)) + \
            "".join(rng.choice(string.digits) for _ in range(14))
    else:
        bban = "".join(rng.choice(string.digits) for _ in range(bank_len + acct_len))
    rearranged = bban + country + "00"
    number = int("".join(str(int(ch, 36)) for ch in rearranged))
    check = 98 - number % 97
    return f"{country}{check:02d}{bban}"


def group(value: str, sep: str, size: int = 4) -> str:
    return sep.join(value[i:i + size] for i in range(0, len(value), size))


def code_digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def spaced_code(rng: random.Random) -> str:
    code = code_digits(rng, 6)
    style = rng.choice(["plain", "3-3", "3 3", "2 2 2", "1 1"])
    if style == "3-3":
        return f"{code[:3]}-{code[3:]}"
    if style == "3 3":
        return f"{code[:3]} {code[3:]}"
    if style == "2 2 2":
        return f"{code[:2]} {code[2:4]} {code[4:]}"
    if style == "1 1":
        return " ".join(code[:4])
    return code


def token(rng: random.Random, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    while True:
        out = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in out) and any(c.isalpha() for c in out):
            return out


def fill(template: str, rng: random.Random) -> tuple[str, list[str]]:
    """The template with its placeholders filled; the secret values it now holds."""
    secrets: list[str] = []

    def secret(value: str) -> str:
        secrets.append(value)
        return value

    values: dict[str, Callable[[], str]] = {
        "code": lambda: secret(spaced_code(rng)),
        "code6": lambda: secret(code_digits(rng, 6)),
        "code4": lambda: secret(code_digits(rng, 4)),
        "code5": lambda: secret(code_digits(rng, 5)),
        "code8": lambda: secret(code_digits(rng, 8)),
        "dash": lambda: secret((lambda c: f"{c[:3]}-{c[3:]}")(code_digits(rng, 6))),
        "spaced": lambda: secret((lambda c: f"{c[:2]} {c[2:4]} {c[4:]}")(code_digits(rng, 6))),
        "single": lambda: secret(" ".join(code_digits(rng, 4))),
        "alnum": lambda: secret(token(rng, 6, string.ascii_uppercase + string.digits)),
        "visa": lambda: secret(group(luhn_complete("4", 16, rng), rng.choice([" ", ".", "-", ""]))),
        "mc": lambda: secret(group(luhn_complete(rng.choice(["51", "53", "55", "22"]), 16, rng),
                                   rng.choice([" ", ".", "-"]))),
        "unionpay": lambda: secret(group(luhn_complete("62", rng.choice([16, 19]), rng),
                                         rng.choice([" ", ".", "-"]))),
        "amex": lambda: secret((lambda c: f"{c[:4]} {c[4:10]} {c[10:]}")(
            luhn_complete("37", 15, rng))),
        "pw": lambda: secret(rng.choice(["Sommer", "Blue", "Katze", "Lago", "Tulip", "Nord"])
                             + rng.choice(["_", "!", "#", ""]) + code_digits(rng, 4)
                             + rng.choice(["!", "?", "", "x"])),
        "aws_id": lambda: secret("AKIA" + token(rng, 16, string.ascii_uppercase + string.digits)),
        "aws_secret": lambda: secret(token(rng, 40, string.ascii_letters + string.digits + "/+")),
        "ghp": lambda: secret("ghp_" + token(rng, 36)),
        "ghpat": lambda: secret("github_pat_11" + token(rng, 20) + "_" + token(rng, 59)),
        "npm": lambda: secret("npm_" + token(rng, 36)),
        "slack": lambda: secret("xoxb-" + code_digits(rng, 12) + "-" + code_digits(rng, 13)
                                + "-" + token(rng, 24)),
        "stripe": lambda: secret("sk_live_" + token(rng, 24)),
        "openai": lambda: secret("sk-proj-" + token(rng, 40, string.ascii_letters
                                                    + string.digits + "_-")),
        "twilio": lambda: secret("SK" + token(rng, 32, "0123456789abcdef")),
        "twilio_ac": lambda: secret("AC" + token(rng, 32, "0123456789abcdef")),
        "apitoken": lambda: secret(token(rng, 32)),
        "pem": lambda: rng.choice(["—–BEGIN OPENSSH PRIVATE KEY—–",
                                   "–––––BEGIN RSA PRIVATE KEY–––––",
                                   "‐‐‐‐‐BEGIN PRIVATE KEY‐‐‐‐‐", "-----BEGIN EC PRIVATE KEY-----"])
        + "\n" + secret(token(rng, 64, string.ascii_letters + string.digits + "+/")),
        "seed12": lambda: secret(" ".join(rng.sample(SEED_WORDS, 12))),
        "seed24": lambda: secret(" ".join(rng.sample(SEED_WORDS, 24))),
        # ordinary numbers: not secrets
        "order": lambda: code_digits(rng, rng.choice([6, 7, 8, 9, 10])),
        "amazon": lambda: f"{code_digits(rng, 3)}-{code_digits(rng, 7)}-{code_digits(rng, 7)}",
        "track": lambda: rng.choice([
            "00340434" + code_digits(rng, 12), "1Z" + token(rng, 16, string.ascii_uppercase
                                                            + string.digits),
            "JJD" + code_digits(rng, 15), "LX" + code_digits(rng, 9) + "DE",
            code_digits(rng, 12)]),
        "phone": lambda: rng.choice([
            f"+49 15{rng.randint(1, 9)} {code_digits(rng, 8)}", f"0170 {code_digits(rng, 7)}",
            f"+33 6 {code_digits(rng, 2)} {code_digits(rng, 2)} {code_digits(rng, 2)} "
            f"{code_digits(rng, 2)}", f"+39 3{code_digits(rng, 2)} {code_digits(rng, 7)}",
            f"+48 {code_digits(rng, 3)} {code_digits(rng, 3)} {code_digits(rng, 3)}",
            f"030 {code_digits(rng, 8)}", f"+1 (415) {code_digits(rng, 3)}-{code_digits(rng, 4)}"]),
        "flight": lambda: rng.choice(["LH", "AF", "KL", "IB", "LO", "TK", "SK", "BA", "FR",
                                      "U2", "EW", "NH", "CA"]) + f" {rng.randint(100, 9999)}",
        "price": lambda: rng.choice([f"{rng.randint(5, 999)},{rng.randint(10, 99)} €",
                                     f"€{rng.randint(5, 999)}.{rng.randint(10, 99)}",
                                     f"{rng.randint(5, 4999)} zł", f"{rng.randint(50, 9999)} kr",
                                     f"${rng.randint(5, 999)}.{rng.randint(10, 99)}",
                                     f"{rng.randint(100, 9999)} ₽", f"¥{rng.randint(300, 99999)}",
                                     f"{rng.randint(5, 999)} TL", f"{rng.randint(100, 9999)} Kč"]),
        "date": lambda: rng.choice([f"{rng.randint(1, 28):02d}.{rng.randint(1, 12):02d}.2026",
                                    f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                                    f"{rng.randint(1, 28)}/{rng.randint(1, 12)}/2026"]),
        "time": lambda: f"{rng.randint(6, 22)}:{rng.choice(['00', '15', '30', '45'])}",
        "postcode": lambda: rng.choice([code_digits(rng, 5), f"{code_digits(rng, 2)}-"
                                        f"{code_digits(rng, 3)}", f"{code_digits(rng, 4)} "
                                        f"{rng.choice(['AB', 'KL', 'XY'])}",
                                        f"{code_digits(rng, 3)} {code_digits(rng, 2)}"]),
        "num": lambda: str(rng.randint(2, 450)),
        "ref": lambda: token(rng, 8, string.ascii_uppercase + string.digits),
        "sha": lambda: token(rng, 40, "0123456789abcdef"),
        "pr": lambda: str(rng.randint(100, 9999)),
    }
    def iban(country: str) -> Callable[[], str]:
        return lambda: secret(group(make_iban(country, rng), rng.choice([" ", " ", "-", ".", ""])))

    for country in IBAN_SHAPES:
        values[f"iban_{country}"] = iban(country)
    out = template
    while "{" in out:
        start = out.index("{")
        end = out.index("}", start)
        name = out[start + 1:end]
        out = out[:start] + values[name]() + out[end + 1:]
    return out, secrets


def build(templates: list[tuple[str, str, str, str, bool]], prefix: str, seed: int,
          copies: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    for index, (lang, app_id, title, body, keeps) in enumerate(templates):
        for copy in range(copies):
            filled_title, title_secrets = fill(title, rng)
            filled_body, body_secrets = fill(body, rng)
            secrets = title_secrets + body_secrets
            rows.append({
                "id": f"{prefix}{index:03d}{copy}", "lang": lang, "app_id": app_id,
                "title": filled_title, "body": filled_body, "has_secret": bool(secrets),
                "secrets": secrets, "keeps": keeps,
            })
    return rows


def main() -> None:
    for name, templates, seed in (("tune", TUNE, 1601), ("seen", SEEN, 1602),
                                  ("holdout", HOLDOUT, 1603)):
        rows = build(templates, name[0], seed, copies=2)
        with open(HERE / f"{name}.jsonl", "wb") as out:
            for row in rows:
                out.write(orjson.dumps(row) + b"\n")
        secret = sum(1 for r in rows if r["has_secret"])
        print(f"{name}: {len(rows)} messages, {secret} with a secret, "
              f"{len({r['lang'] for r in rows})} languages")


if __name__ == "__main__":
    main()
