"""Records of a county schedule of expenditures, drawn from a seeded numpy Generator.

`n` is the number of line items, spread over funds of 2 to 6 departments with 3 to 30 lines
each. Amounts are whole cents; every subtotal and the grand total are sums of cents, so they
reconcile to the cent. A few lines are negative (refunds, reimbursements).
"""

from __future__ import annotations

import numpy as np

from gtkit.synth import fake

FUNDS = [("101", "General Fund"), ("201", "Road and Bridge Fund"), ("215", "Health Department Fund"),
         ("230", "Sheriff Special Revenue Fund"), ("301", "Debt Service Fund"), ("401", "Capital Projects Fund"),
         ("510", "Solid Waste Enterprise Fund"), ("520", "Water and Sewer Fund"), ("610", "Self-Insurance Fund"),
         ("701", "Library Fund"), ("720", "Parks and Recreation Fund"), ("810", "Emergency Services Fund")]
DEPARTMENTS = ["County Commission", "County Clerk", "Treasurer", "Assessor", "Sheriff", "Jail", "Public Works",
               "Highway Maintenance", "Health Services", "Planning and Zoning", "Elections", "Information Technology",
               "Human Resources", "Facilities", "Parks Maintenance", "Library Services", "Emergency Management",
               "District Attorney", "Public Defender", "Juvenile Services", "Veterans Services", "Extension Office"]
ACCOUNTS = [("5110", "Salaries and wages"), ("5120", "Overtime"), ("5130", "Part-time wages"),
            ("5210", "Retirement contributions"), ("5220", "Health insurance"), ("5230", "Workers compensation"),
            ("5310", "Professional services"), ("5320", "Legal services"), ("5330", "Audit and accounting"),
            ("5410", "Office supplies"), ("5420", "Fuel and lubricants"), ("5430", "Uniforms"),
            ("5510", "Utilities"), ("5520", "Telephone and internet"), ("5610", "Repairs and maintenance"),
            ("5620", "Vehicle maintenance"), ("5710", "Travel and training"), ("5720", "Dues and subscriptions"),
            ("5810", "Rentals and leases"), ("5910", "Insurance premiums"), ("6110", "Capital outlay - equipment"),
            ("6120", "Capital outlay - vehicles"), ("6210", "Principal payments"), ("6220", "Interest payments"),
            ("4990", "Reimbursements"), ("4980", "Refund of prior year expenditure")]
STATES = ["Marion", "Franklin", "Washington", "Jefferson", "Madison", "Clay", "Lincoln", "Monroe", "Greene"]


def generate_context(rng: np.random.Generator) -> dict:
    year = int(rng.integers(2019, 2025))
    return {"county": f"{fake.pick(rng, STATES)} County", "fiscal_year": f"June 30, {year}"}


def generate_records(rng: np.random.Generator, n: int) -> list[dict]:
    funds: list[dict] = []
    left = n
    fund_order = list(rng.permutation(len(FUNDS)))
    while left > 0:
        code, name = FUNDS[int(fund_order[len(funds) % len(FUNDS)])]
        if len(funds) >= len(FUNDS):
            code = f"{code}{len(funds) // len(FUNDS)}"
        depts = []
        names = list(rng.choice(len(DEPARTMENTS), size=int(rng.integers(2, 7)), replace=False))
        for d in names:
            if left <= 0:
                break
            k = min(left, int(rng.integers(3, 31)))
            left -= k
            lines = []
            for _ in range(k):
                account, desc = ACCOUNTS[int(rng.integers(len(ACCOUNTS)))]
                cents = int(round(fake.money(rng, lo=50.0, hi=900_000.0) * 100))
                if account.startswith("49"):
                    cents = -cents // 10
                lines.append({"account": account, "description": desc, "amount": cents})
            depts.append({"department": DEPARTMENTS[int(d)], "line_items": lines})
        funds.append({"fund_code": code, "fund_name": name, "departments": depts})
    for fund in funds:  # whole cents summed exactly, then turned into dollars
        fund_cents = 0
        for dept in fund["departments"]:
            dept_cents = sum(li["amount"] for li in dept["line_items"])
            for li in dept["line_items"]:
                li["amount"] = li["amount"] / 100
            dept["department_total"] = dept_cents / 100
            fund_cents += dept_cents
        fund["fund_total"] = fund_cents / 100
        fund["_cents"] = fund_cents
    return [{k: v for k, v in f.items() if k != "_cents"} for f in funds]


def complete_expected(expected: dict) -> None:
    """The grand total: the sum of the fund totals, in whole cents."""
    expected["grand_total"] = sum(int(round(f["fund_total"] * 100)) for f in expected["funds"]) / 100
