"""Records of a bankruptcy creditor matrix, drawn from a seeded numpy Generator.

A creditor is a person, a company, a bank or a government agency; companies and
agencies often carry a notice line (ATTN: ... / C/O ...). Blocks run from 2 lines
(name and city line) to 6 (name, notice, three street lines, city line; or a
foreign address with its country line). Some names are long enough to wrap; some
records are near-duplicates of another (STREET for ST, a dropped middle initial,
another suite) and a few are exact duplicates, as in real matrices. Records are
sorted by name, as matrix software prints them.
"""

from __future__ import annotations

import numpy as np

from gtkit.synth import fake

COURTS = [
    "DISTRICT OF DELAWARE", "SOUTHERN DISTRICT OF NEW YORK", "SOUTHERN DISTRICT OF TEXAS",
    "DISTRICT OF NEW JERSEY", "NORTHERN DISTRICT OF ILLINOIS", "CENTRAL DISTRICT OF CALIFORNIA",
]
TRUSTEE_NAMES = [
    "THE BANK OF NEW YORK MELLON TRUST COMPANY, N.A., AS INDENTURE TRUSTEE",
    "WILMINGTON SAVINGS FUND SOCIETY, FSB, AS ADMINISTRATIVE AND COLLATERAL AGENT",
    "U.S. BANK TRUST COMPANY, NATIONAL ASSOCIATION, AS SUCCESSOR TRUSTEE",
    "DEUTSCHE BANK TRUST COMPANY AMERICAS, AS INDENTURE TRUSTEE FOR THE SENIOR SECURED NOTES",
    "PENSION BENEFIT GUARANTY CORPORATION OFFICE OF THE GENERAL COUNSEL",
]
STREET_SUFFIX_LONG = {"ST": "STREET", "AVE": "AVENUE", "RD": "ROAD", "DR": "DRIVE", "LN": "LANE", "BLVD": "BOULEVARD"}


def generate_context(rng: np.random.Generator) -> dict:
    debtor = " ".join(fake.pick(rng, fake.COMPANY_WORDS) for _ in range(int(rng.integers(1, 3))))
    debtor += " " + fake.pick(rng, ["HOLDINGS, INC.", "GROUP LLC", "CORPORATION", "BRANDS, INC.", "PARTNERS, L.P."])
    judge = "".join(chr(ord("A") + int(rng.integers(26))) for _ in range(3))
    case = f"{int(rng.integers(19, 26))}-{int(rng.integers(10000, 13000))} ({judge})"
    return {"debtor_name": debtor, "case_number": case, "court": fake.pick(rng, COURTS)}


def _record(rng: np.random.Generator) -> dict:
    kind = rng.random()
    notice = None
    if kind < 0.42:
        name = fake.person_name(rng, last_first=False)
        if rng.random() < 0.03:
            notice = "C/O " + fake.person_name(rng)
    elif kind < 0.86:
        name = fake.company_name(rng)
        if rng.random() < 0.3:
            notice = fake.pick(rng, fake.NOTICE_PREFIXES) + " " + (
                fake.pick(rng, fake.NOTICE_ROLES) if rng.random() < 0.6 else fake.person_name(rng))
    elif kind < 0.98:
        name = fake.pick(rng, fake.AGENCIES) if rng.random() < 0.5 else fake.pick(rng, fake.BANKS)
        if rng.random() < 0.7:
            notice = fake.pick(rng, fake.NOTICE_PREFIXES) + " " + fake.pick(rng, fake.NOTICE_ROLES)
    else:
        name = fake.pick(rng, TRUSTEE_NAMES)  # long enough to wrap in a column
        notice = "ATTN: " + fake.pick(rng, fake.NOTICE_ROLES)

    address_1 = fake.street_line(rng) if rng.random() > 0.03 else None
    address_2 = None
    address_3 = None
    if address_1 is not None and rng.random() < 0.27:
        if address_1.startswith("PO BOX") or rng.random() >= 0.7:  # no suite after a PO box
            address_2 = fake.street_line(rng)
            while address_2.startswith("PO BOX"):
                address_2 = fake.street_line(rng)
        else:
            address_2 = fake.unit_line(rng)
        if rng.random() < 0.2:
            address_3 = fake.pick(rng, ["MAIL STOP ", "MAIL CODE ", "DEPT "]) + str(int(rng.integers(100, 9999)))
    if rng.random() < 0.04:
        city, state, postal, country = fake.pick(rng, fake.FOREIGN)
    else:
        (city, state, postal), country = fake.us_city(rng), None
    rec = {
        "name": name, "notice_name": notice, "address_1": address_1, "address_2": address_2,
        "address_3": address_3, "city": city, "state": state, "postal_code": postal, "country": country,
    }
    # at most 6 printed lines: name, notice, street lines, city line, country
    while sum(rec[k] is not None for k in ("name", "notice_name", "address_1", "address_2", "address_3", "country")) + 1 > 6:
        for k in ("address_3", "notice_name", "address_2"):
            if rec[k] is not None:
                rec[k] = None
                break
    return rec


def _near_duplicate(rng: np.random.Generator, rec: dict) -> dict:
    dup = dict(rec)
    r = rng.random()
    words = (dup["address_1"] or "").split()
    if r < 0.35 and words and words[-1] in STREET_SUFFIX_LONG:
        dup["address_1"] = " ".join(words[:-1] + [STREET_SUFFIX_LONG[words[-1]]])
    elif r < 0.6 and len(dup["name"].split()) == 3 and len(dup["name"].split()[1]) == 1:
        first, _, last = dup["name"].split()
        dup["name"] = f"{first} {last}"
    elif r < 0.85 and dup["address_1"] is not None:
        dup["address_2"] = fake.unit_line(rng)
        dup["address_3"] = None
    # else: an exact duplicate (the same creditor listed twice)
    return dup


def generate_records(rng: np.random.Generator, n: int) -> list[dict]:
    records: list[dict] = []
    while len(records) < n:
        if records and rng.random() < 0.035:
            records.append(_near_duplicate(rng, records[int(rng.integers(len(records)))]))
        else:
            records.append(_record(rng))
    records.sort(key=lambda r: r["name"])  # stable: duplicates keep their generation order
    return records
