"""Rows of a Form 13F information table, drawn from a seeded numpy Generator.

A manager's filing lists thousands of positions sorted by issuer name. Issuers are a pool of
well-known US-listed names as 13F filings abbreviate them ("BERKSHIRE HATHAWAY INC DEL") and
made-up ones built from word pools; each issuer has one CUSIP issuer code, and each class its own
issue code, so a CUSIP's check digit is valid (`fake.cusip`) and the same class always carries
the same CUSIP. Most rows are common stock in shares; some are options (PUT/CALL, shares =
contracts x 100), convertible notes (PRN, a principal amount) or ADRs, preferreds and classes.
The same security often appears again under another investment discretion or other managers.
Value = shares x price, rounded to the dollar; the voting columns add up to the shares. The
summary figures (entry and value totals) are derived from the rows (`complete_expected`).
"""

from __future__ import annotations

import numpy as np

from gtkit.synth import fake

KNOWN_ISSUERS = [
    "3M CO", "ABBOTT LABS", "ABBVIE INC", "ADOBE INC", "ADVANCED MICRO DEVICES INC", "AFLAC INC",
    "AIR PRODS & CHEMS INC", "ALPHABET INC", "AMAZON COM INC", "AMERICAN EXPRESS CO", "AMERICAN TOWER CORP NEW",
    "AMGEN INC", "ANALOG DEVICES INC", "APPLE INC", "APPLIED MATLS INC", "ARCHER DANIELS MIDLAND CO",
    "AT&T INC", "AUTOMATIC DATA PROCESSING IN", "BANK AMERICA CORP", "BERKSHIRE HATHAWAY INC DEL",
    "BLACKROCK INC", "BOEING CO", "BOOKING HOLDINGS INC", "BRISTOL-MYERS SQUIBB CO", "BROADCOM INC",
    "CATERPILLAR INC", "CHEVRON CORP NEW", "CHUBB LIMITED", "CISCO SYS INC", "CITIGROUP INC", "COCA COLA CO",
    "COLGATE PALMOLIVE CO", "COMCAST CORP NEW", "CONOCOPHILLIPS", "COSTCO WHSL CORP NEW", "CVS HEALTH CORP",
    "DANAHER CORPORATION", "DEERE & CO", "DOMINION ENERGY INC", "DUKE ENERGY CORP NEW", "ELI LILLY & CO",
    "EMERSON ELEC CO", "EXXON MOBIL CORP", "FEDEX CORP", "GENERAL DYNAMICS CORP", "GENERAL ELECTRIC CO",
    "GENERAL MLS INC", "GILEAD SCIENCES INC", "GOLDMAN SACHS GROUP INC", "HOME DEPOT INC", "HONEYWELL INTL INC",
    "INTEL CORP", "INTERNATIONAL BUSINESS MACHS", "INTUIT", "JOHNSON & JOHNSON", "JPMORGAN CHASE & CO",
    "KIMBERLY-CLARK CORP", "LOCKHEED MARTIN CORP", "LOWES COS INC", "MASTERCARD INCORPORATED", "MCDONALDS CORP",
    "MEDTRONIC PLC", "MERCK & CO INC", "META PLATFORMS INC", "MICROSOFT CORP", "MONDELEZ INTL INC",
    "MORGAN STANLEY", "NETFLIX INC", "NEXTERA ENERGY INC", "NIKE INC", "NVIDIA CORPORATION", "ORACLE CORP",
    "PEPSICO INC", "PFIZER INC", "PHILIP MORRIS INTL INC", "PROCTER AND GAMBLE CO", "QUALCOMM INC",
    "RAYTHEON TECHNOLOGIES CORP", "SALESFORCE INC", "SCHWAB CHARLES CORP", "SOUTHERN CO", "STARBUCKS CORP",
    "TAIWAN SEMICONDUCTOR MFG LTD", "TESLA INC", "TEXAS INSTRS INC", "THERMO FISHER SCIENTIFIC INC",
    "TJX COS INC NEW", "UNION PAC CORP", "UNITED PARCEL SERVICE INC", "UNITEDHEALTH GROUP INC", "US BANCORP DEL",
    "VERIZON COMMUNICATIONS INC", "VISA INC", "WALMART INC", "WALT DISNEY CO", "WELLS FARGO CO NEW",
    "ISHARES TR", "SPDR S&P 500 ETF TR", "VANGUARD INDEX FDS", "INVESCO QQQ TR", "SELECT SECTOR SPDR TR",
    "VANGUARD WORLD FDS", "SCHWAB STRATEGIC TR", "VANGUARD SCOTTSDALE FDS", "ISHARES INC", "SPDR SER TR",
]
ETF_CLASSES = ["CORE S&P500 ETF", "RUSSELL 2000 ETF", "MSCI EAFE ETF", "IBOXX INV CP ETF", "TR UNIT", "UNIT SER 1",
               "TECHNOLOGY", "FINANCIAL", "HEALTH CARE", "ENERGY", "INDL", "VALUE ETF", "GROWTH ETF",
               "TOTAL STK MKT", "S&P 500 ETF SHS", "CORE US AGGBD ET", "1-3 YR TREAS BD", "SHORT TERM BOND"]
FORMS = ["INC", "INC", "INC", "CORP", "CORP", "CO", "HLDGS INC", "GROUP INC", "LTD", "PLC", "N V", "SA", "INC DEL",
         "CORP NEW", "INC NEW", "TR", "LP", "HOLDINGS CORP", "BANCORP INC", "FINL CORP"]
EXTRA_WORDS = ("ACADIA ALLEGHENY AMERIS ARCOSA AVIENT BRIXMOR CADENCE CALERES CARGOJET CORECIVIC DORMAN ENPRO "
               "ESSENTIAL FIRSTCASH GENPACT GLACIER HANCOCK HEXCEL INSPERITY KADANT KNOWLES LANCASTER MANHATTAN "
               "MERIT NOVANTA OLLIES OMNICELL PATTERSON PERFICIENT QUAKER RAMBUS SANMINA SEMTECH SKYWEST STEPAN "
               "TANDEM TREX UNIFIRST VERITEX VIAVI WATTS WINMARK ZURN").split()
CLASSES_COMMON = ["COM", "COM", "COM", "COM", "COM NEW", "CL A", "SHS", "COM PAR $0.01", "ORD SHS"]
DISCRETION = ["SOLE", "DFND", "OTR"]
OTHER_CLASSES = ["SPONSORED ADR", "CL B", "CL C", "PFD SER A", "DEP SHS", "UNIT 99/99/9999"]
# each class title its own two-digit issue code, so an issuer's classes have distinct CUSIPs
ISSUE_CODES = {t: f"{10 + 3 * i:02d}" for i, t in enumerate(dict.fromkeys(CLASSES_COMMON + OTHER_CLASSES + ETF_CLASSES))}


def _issuer_name(rng: np.random.Generator) -> str:
    words = [fake.pick(rng, fake.COMPANY_WORDS if rng.random() < 0.6 else EXTRA_WORDS)]
    if rng.random() < 0.55:
        words.append(fake.pick(rng, fake.COMPANY_TRADES))
    if rng.random() < 0.1:
        words.append(fake.pick(rng, ["& CO", "INTL", "AMER", "RES", "FINL", "PPTYS", "COMMUNICATIONS"]))
    return " ".join(words) + " " + fake.pick(rng, FORMS)


def _issuers(rng: np.random.Generator, n: int) -> list[tuple[str, str]]:
    """(name, CUSIP issuer code) of about n distinct issuers: the known ones first, then made-up ones."""
    names = list(KNOWN_ISSUERS[: max(1, min(len(KNOWN_ISSUERS), n))])
    seen = set(names)
    while len(names) < n:
        name = _issuer_name(rng)
        if name not in seen:
            seen.add(name)
            names.append(name)
    codes: set[str] = set()
    out = []
    for name in names:
        code = fake.cusip_issuer(rng)
        while code in codes:
            code = fake.cusip_issuer(rng)
        codes.add(code)
        out.append((name, code))
    return out


def _security(rng: np.random.Generator, name: str) -> tuple[str, str, str]:
    """(title of class, issue code, kind) of one of the issuer's securities: kind 'SH', 'PRN' or 'OPT'."""
    etf = name.endswith((" TR", " FDS", "ISHARES INC"))
    r = rng.random()
    if etf:
        title = fake.pick(rng, ETF_CLASSES)
        return title, ISSUE_CODES[title], "SH"
    if r < 0.05:
        rate = f"{rng.integers(0, 9)}.{fake.pick(rng, ['000', '125', '250', '375', '500', '750', '875'])}%"
        due = f"{int(rng.integers(1, 13))}/{int(rng.integers(1, 29))}"
        return f"NOTE {rate} {due}", "A" + chr(ord("A") + int(rng.integers(26))), "PRN"
    if r < 0.12:
        return "CALL" if rng.random() < 0.5 else "PUT", "10", "OPT"
    title = fake.pick(rng, OTHER_CLASSES) if r < 0.19 else fake.pick(rng, CLASSES_COMMON)
    return title, ISSUE_CODES[title], "SH"


def _voting(rng: np.random.Generator, shares: int, discretion: str) -> tuple[int, int, int]:
    r = rng.random()
    if discretion == "SOLE" and r < 0.7:
        return shares, 0, 0
    if r < 0.15:
        return 0, 0, shares
    a = int(shares * rng.uniform(0.0, 1.0))
    b = int((shares - a) * rng.uniform(0.0, 1.0)) if discretion != "SOLE" else 0
    return a, b, shares - a - b


def _rows(rng: np.random.Generator, name: str, code: str) -> list[dict]:
    title, issue, kind = _security(rng, name)
    price = float(np.exp(rng.uniform(np.log(2.0), np.log(900.0))))
    if kind == "PRN":
        amount = int(rng.integers(1, 5000)) * 1000
        value = int(round(amount * rng.uniform(0.85, 1.35)))
    else:
        amount = int(round(float(np.exp(rng.uniform(np.log(50), np.log(4_000_000))))))
        if kind == "OPT":
            amount = max(1, amount // 100) * 100
        value = int(round(amount * price))
    base = {
        "name_of_issuer": name,
        "title_of_class": "COM" if kind == "OPT" else title,
        "cusip": fake.cusip(code, issue),
        "value": value,
        "shares_or_principal_amount": amount,
        "sh_prn": "PRN" if kind == "PRN" else "SH",
        "put_call": title if kind == "OPT" else None,
    }
    rows = []
    for _ in range(1 + (int(rng.integers(1, 4)) if rng.random() < 0.12 else 0)):  # the same security again
        discretion = DISCRETION[0] if rng.random() < 0.6 else fake.pick(rng, DISCRETION[1:])
        others = None
        if discretion != "SOLE" or rng.random() < 0.1:
            k = int(rng.integers(1, 3))
            others = ",".join(str(m) for m in sorted(set(int(x) for x in rng.integers(1, 9, k))))
        row = dict(base, investment_discretion=discretion, other_managers=others)
        if rows:  # a part of the position held under other managers
            row["shares_or_principal_amount"] = max(1, int(base["shares_or_principal_amount"] * rng.uniform(0.05, 0.9)))
            row["value"] = int(round(row["shares_or_principal_amount"] * base["value"] / base["shares_or_principal_amount"]))
        sole, shared, none = _voting(rng, row["shares_or_principal_amount"], discretion)
        if kind != "SH":
            sole, shared, none = 0, 0, 0
        row.update(voting_sole=sole, voting_shared=shared, voting_none=none)
        rows.append(row)
    return rows


def generate_context(rng: np.random.Generator) -> dict:
    year = int(rng.integers(2019, 2026))
    month, day = fake.pick(rng, [(3, 31), (6, 30), (9, 30), (12, 31)])
    filer = " ".join([fake.pick(rng, fake.COMPANY_WORDS), fake.pick(rng, fake.COMPANY_WORDS)]) + " " + fake.pick(
        rng, ["CAPITAL MANAGEMENT LLC", "ASSET MANAGEMENT LP", "ADVISORS LLC", "INVESTMENT PARTNERS LP",
              "WEALTH MANAGEMENT INC", "TRUST CO"])
    return {"filer_name": filer, "report_period": f"{month:02d}-{day:02d}-{year}",
            "file_number": f"028-{int(rng.integers(10000, 99999))}"}


def generate_records(rng: np.random.Generator, n: int) -> list[dict]:
    issuers = _issuers(rng, max(1, int(n * 0.85)))
    rows: list[dict] = []
    while len(rows) < n:
        name, code = issuers[int(rng.integers(len(issuers)))]
        rows.extend(_rows(rng, name, code))
    rows = rows[:n]
    rows.sort(key=lambda r: (r["name_of_issuer"], r["title_of_class"], r["cusip"]))
    return rows


def complete_expected(expected: dict) -> None:
    """The summary figures: the number of rows and the sum of the VALUE column."""
    rows = expected.get("holdings") or []
    expected["entry_total"] = len(rows)
    expected["value_total"] = sum(r["value"] for r in rows)
