"""PII redaction measured on a generated corpus: at least 1,000 phone numbers, Chinese ID
numbers, bank cards and e-mail addresses in English and Chinese sentences (redaction recall
must reach 99%), and a control set of ordinary numbers (dates, prices, order ids, versions,
Luhn-invalid card-like numbers) of which none may change. Seeded: the same corpus every run.
"""

from __future__ import annotations

import random
from collections import Counter

from engine.ingest.redact import luhn_valid, redact

SEED = 20261129
TEMPLATES = [
    "Call me at {} tomorrow.", "我的电话是{}，有事联系。", "Please charge {} for the order.",
    "身份证号：{}。", "Send the invoice to {} please", "{}", "联系人王五 {} 北京", "(see {})",
    "the customer wrote: my details are {}, thanks", "备注：{}；已核实",
]  # fmt: skip
_MOBILE_PREFIXES = ["130", "131", "135", "138", "139", "147", "150", "152", "158", "166", "177",
                    "181", "186", "188", "191", "199"]  # fmt: skip
_AREA = ["010", "020", "021", "022", "025", "027", "028", "029", "0755", "0571", "0512", "0991"]
_REGIONS = ["110105", "440304", "310104", "320106", "510108", "330106", "420102", "610113"]


def _cn_mobile(rng: random.Random) -> str:
    number = rng.choice(_MOBILE_PREFIXES) + "".join(rng.choice("0123456789") for _ in range(8))
    return rng.choice([
        number, f"+86 {number[:3]} {number[3:7]} {number[7:]}", f"+86-{number}", f"0086 {number}",
        f"{number[:3]}-{number[3:7]}-{number[7:]}", f"{number[:3]} {number[3:7]} {number[7:]}",
    ])  # fmt: skip


def _cn_landline(rng: random.Random) -> str:
    area = rng.choice(_AREA)
    local = str(rng.randint(2, 9)) + "".join(rng.choice("0123456789") for _ in range(7 if len(area) == 3 else 6))
    return rng.choice([f"{area}-{local}", f"({area}){local}", f"{area} {local}"])


def _international(rng: random.Random) -> str:
    def digits(n: int) -> str:
        return "".join(rng.choice("0123456789") for _ in range(n))

    return rng.choice([
        f"+1 ({rng.randint(201, 989)}) {rng.randint(200, 999)}-{digits(4)}",
        f"{rng.randint(201, 989)}-{rng.randint(200, 999)}-{digits(4)}",
        f"+44 20 {rng.randint(7000, 8999)} {digits(4)}", f"+49 30 {rng.randint(200000, 999999)}",
        f"+33 1 {digits(2)} {digits(2)} {digits(2)} {digits(2)}", f"+81 3-{digits(4)}-{digits(4)}",
    ])  # fmt: skip


def _cn_id(rng: random.Random) -> str:
    year = rng.randint(1940, 2008)
    month, day = rng.randint(1, 12), rng.randint(1, 28)
    body = f"{rng.choice(_REGIONS)}{year}{month:02d}{day:02d}{rng.randint(0, 999):03d}"
    weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    check = "10X98765432"[sum(int(d) * w for d, w in zip(body, weights, strict=True)) % 11]
    return body + (check.lower() if check == "X" and rng.random() < 0.3 else check)


def _luhn_complete(prefix: str, length: int, rng: random.Random) -> str:
    partial = prefix + "".join(rng.choice("0123456789") for _ in range(length - len(prefix) - 1))
    for last in "0123456789":
        if luhn_valid(partial + last):
            return partial + last
    raise AssertionError("unreachable: one check digit always fits")


def _card(rng: random.Random) -> str:
    prefix, length = rng.choice([("4", 16), ("51", 16), ("55", 16), ("62", 16), ("62", 19),
                                 ("6011", 16), ("37", 15), ("2221", 16)])  # fmt: skip
    number = _luhn_complete(prefix, length, rng)
    if length == 15:  # American Express groups 4-6-5
        return rng.choice([number, f"{number[:4]} {number[4:10]} {number[10:]}"])
    groups = [number[i : i + 4] for i in range(0, length, 4)]
    return rng.choice([number, " ".join(groups), "-".join(groups)])


def _email(rng: random.Random) -> str:
    names = ["li.lei", "zhang_san", "alice", "bob.smith", "wang+work", "dev-ops", "m.garcia99"]
    domains = ["example.com", "mail.example.cn", "corp.example.org", "qq.example.net", "Example.COM"]
    return f"{rng.choice(names)}{rng.randint(0, 999)}@{rng.choice(domains)}"


GENERATORS = {"PHONE": [_cn_mobile, _cn_landline, _international], "CN_ID": [_cn_id],
              "BANK_CARD": [_card], "EMAIL": [_email]}  # fmt: skip


def pii_corpus(size: int = 1200) -> list[tuple[str, str, str]]:
    """(sentence, the PII value in it, its type), `size` of them, types in equal shares."""
    rng = random.Random(SEED)
    kinds = sorted(GENERATORS)
    corpus = []
    for i in range(size):
        kind = kinds[i % len(kinds)]
        value = rng.choice(GENERATORS[kind])(rng)
        corpus.append((rng.choice(TEMPLATES).format(value), value, kind))
    return corpus


def control_corpus() -> list[str]:
    """Ordinary numbers that must survive redaction unchanged."""
    rng = random.Random(SEED + 1)
    controls = []
    for _ in range(100):
        y, m, d = rng.randint(1990, 2030), rng.randint(1, 12), rng.randint(1, 28)
        controls += [f"Meeting on {y}-{m:02d}-{d:02d} at 10:30.", f"日期{y}{m:02d}{d:02d}",
                     f"{y}年{m}月{d}日上线", f"due {d}/{m}/{y}"]  # fmt: skip
        controls += [f"It costs ${rng.randint(1, 99999):,}.{rng.randint(0, 99):02d}",
                     f"预算{rng.randint(1, 999)}万元", f"¥{rng.randint(100, 99999)}",
                     f"{rng.randint(1, 9999)}元/月"]  # fmt: skip
        controls += [f"order ORD-{y}{m:02d}{d:02d}-{rng.randint(1, 9999):04d}",
                     f"订单号{y}{m:02d}{d:02d}{rng.randint(10000, 99999)}",
                     f"ticket #{rng.randint(10000, 999999)}", f"v{rng.randint(1, 20)}.{rng.randint(0, 40)}.{rng.randint(0, 99)}",
                     f"{rng.randint(1, 100)}% of {rng.randint(1000, 99999)} users",
                     f"room {rng.randint(100, 999)}, floor {rng.randint(1, 40)}"]  # fmt: skip
        card_like = _luhn_complete("6222", 16, rng)
        broken = card_like[:-1] + str((int(card_like[-1]) + rng.randint(1, 9)) % 10)
        controls.append(f"serial {broken[:4]} {broken[4:8]} {broken[8:12]} {broken[12:]}")
    return controls


def test_redaction_recall_on_a_thousand_generated_values() -> None:
    corpus = pii_corpus()
    assert len(corpus) >= 1000
    missed: Counter[str] = Counter()
    wrong_type: Counter[str] = Counter()
    failures = []
    for sentence, value, kind in corpus:
        result = redact(sentence)
        if value in result.text or not result.counts:
            missed[kind] += 1
            failures.append((kind, sentence, result.text))
        elif kind not in result.counts:
            wrong_type[kind] += 1
    per_kind = Counter(kind for _, _, kind in corpus)
    recall = 1 - sum(missed.values()) / len(corpus)
    print(f"\nPII redaction recall {recall:.2%} on {len(corpus)} values; missed {dict(missed)}, "
          f"typed otherwise {dict(wrong_type)}, per type {dict(per_kind)}")  # fmt: skip
    assert recall >= 0.99, failures[:20]


def test_no_false_positives_on_ordinary_numbers() -> None:
    controls = control_corpus()
    changed = [(text, redact(text).text) for text in controls if redact(text).counts]
    print(f"\ncontrol set: {len(changed)} of {len(controls)} changed")
    assert not changed, changed[:20]
