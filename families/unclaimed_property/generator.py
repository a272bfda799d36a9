"""Records of a state unclaimed-property list, drawn from a seeded numpy Generator.

Owners are mostly people printed last name first, some businesses, estates and joint
owners (long enough to wrap). About one address in eight is unknown (blank cells).
Amounts are log-uniform, mostly small. Many owners hold several properties, some
names differ by a middle initial only, and a few rows are exact duplicates, as in
the real lists. Rows are sorted by owner name.
"""

from __future__ import annotations

import numpy as np

from gtkit.synth import fake

PROPERTY_TYPES = [
    "CHECKING ACCOUNT", "SAVINGS ACCOUNT", "UNCASHED PAYROLL CHECK", "VENDOR CHECK", "SECURITIES",
    "INSURANCE PROCEEDS", "SAFE DEPOSIT BOX CONTENTS", "UTILITY DEPOSIT", "REFUND/CREDIT BALANCE",
    "MISCELLANEOUS CHECK", "WAGES", "DIVIDENDS", "LIFE INSURANCE CLAIM", "CUSTOMER OVERPAYMENT",
    "CASHIER'S CHECK", "MONEY ORDER", "MATURED CD", "GIFT CERTIFICATE", "COURT DEPOSIT",
    "MINERAL PROCEEDS", "CLASS ACTION SETTLEMENT", "RETIREMENT ACCOUNT DISTRIBUTION",
]
HOLDER_EXTRA = [
    "STATE FARM MUTUAL AUTOMOBILE INSURANCE COMPANY", "METROPOLITAN LIFE INSURANCE COMPANY",
    "PACIFIC GAS AND ELECTRIC COMPANY", "COMCAST CABLE COMMUNICATIONS LLC", "WALMART INC",
    "VERIZON WIRELESS", "AT&T MOBILITY LLC", "THE PRUDENTIAL INSURANCE COMPANY OF AMERICA",
    "UNITED PARCEL SERVICE INC", "COUNTY OF SACRAMENTO", "BLUE CROSS BLUE SHIELD ASSOCIATION",
    "COMPUTERSHARE TRUST COMPANY NA AS TRANSFER AGENT", "KAISER FOUNDATION HEALTH PLAN INC",
]


def _owner(rng: np.random.Generator) -> str:
    r = rng.random()
    if r < 0.74:
        return fake.person_name(rng, last_first=True)
    if r < 0.93:
        return fake.company_name(rng)
    if r < 0.97:
        return "ESTATE OF " + fake.person_name(rng, last_first=True)
    a = fake.person_name(rng, last_first=True)
    return f"{a} & {fake.pick(rng, fake.FIRST)} {a.split()[0]}"


def _holder(rng: np.random.Generator) -> str:
    r = rng.random()
    if r < 0.35:
        return fake.pick(rng, fake.BANKS)
    if r < 0.6:
        return fake.pick(rng, HOLDER_EXTRA)
    return fake.company_name(rng)


def _record(rng: np.random.Generator, owner: str | None = None) -> dict:
    owner = owner or _owner(rng)
    if rng.random() < 0.12:
        address = None
        city, state = (None, None) if rng.random() < 0.7 else fake.us_city(rng)[:2]
    else:
        address = fake.street_line(rng)
        if rng.random() < 0.12 and not address.startswith("PO BOX"):
            address += " " + fake.unit_line(rng)
        city, state, _ = fake.us_city(rng)
    lo, hi = (0.01, 100.0) if rng.random() < 0.6 else (100.0, 75_000.0)
    return {
        "owner_name": owner,
        "address": address,
        "city": city,
        "state": state,
        "property_type": fake.pick(rng, PROPERTY_TYPES),
        "amount": fake.money(rng, lo=lo, hi=hi),
        "holder": _holder(rng),
        "year_reported": int(rng.integers(2006, 2026)),
    }


def generate_records(rng: np.random.Generator, n: int) -> list[dict]:
    records: list[dict] = []
    while len(records) < n:
        r = rng.random()
        if records and r < 0.10:  # the same owner holds another property (same address)
            prev = records[int(rng.integers(len(records)))]
            new = _record(rng, prev["owner_name"])
            new.update(address=prev["address"], city=prev["city"], state=prev["state"])
            records.append(new)
        elif records and r < 0.12:  # near-duplicate name: a middle initial dropped or added
            prev = dict(records[int(rng.integers(len(records)))])
            words = prev["owner_name"].split()
            if len(words) == 3 and len(words[2]) == 1:
                prev["owner_name"] = " ".join(words[:2])
            elif len(words) == 2 and all(w.isalpha() for w in words):  # a person: add an initial
                prev["owner_name"] += " " + chr(ord("A") + int(rng.integers(26)))
            elif "," in words[-2]:  # a business: the same name without its comma...
                prev["owner_name"] = " ".join(words[:-2] + [words[-2].rstrip(","), words[-1]])
            elif words[-1].rstrip(".") in fake.COMPANY_FORMS:  # ...or with one
                prev["owner_name"] = " ".join(words[:-2] + [words[-2] + ",", words[-1]])
            prev["amount"] = fake.money(rng, lo=0.01, hi=500.0)
            records.append(prev)
        elif records and r < 0.125:  # an exact duplicate row
            records.append(dict(records[int(rng.integers(len(records)))]))
        else:
            records.append(_record(rng))
    records.sort(key=lambda r: r["owner_name"])
    return records
