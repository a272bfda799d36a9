"""Records of a bankruptcy Schedule E/F, drawn from a seeded numpy Generator.

About one claim in eight is a priority claim (taxes, wages, domestic support), printed in
Part 1 with its priority and nonpriority amounts; the rest are general unsecured claims of
Part 2 (trade debt, credit cards, loans). The three checkboxes are mostly unchecked, with
disputed claims more common among trade creditors; a few claims leave a checkbox question
unanswered (null: no box printed). Priority claims come first, each part sorted by creditor.
"""

from __future__ import annotations

import numpy as np

from gtkit.synth import fake

COURTS = ["District of Delaware", "Southern District of New York", "Southern District of Texas",
          "District of New Jersey", "Northern District of Illinois", "Central District of California"]
PRIORITY_TYPES = ["Domestic support obligations", "Taxes and certain other debts you owe the government",
                  "Claims for death or personal injury while you were intoxicated",
                  "Wages, salaries, and commissions", "Contributions to employee benefit plans"]
NONPRIORITY_TYPES = ["Student loans", "Obligations arising out of a separation agreement or divorce",
                     "Debts to pension or profit-sharing plans", "Trade debt", "Credit card debt",
                     "Personal loan", "Medical services", "Utility services", "Lease obligations"]
PRIORITY_CREDITORS = ["INTERNAL REVENUE SERVICE", "STATE COMPTROLLER OF PUBLIC ACCOUNTS", "DEPARTMENT OF REVENUE",
                      "FRANCHISE TAX BOARD", "COUNTY TAX ASSESSOR", "DEPARTMENT OF LABOR"]


def generate_context(rng: np.random.Generator) -> dict:
    debtor = " ".join(fake.pick(rng, fake.COMPANY_WORDS) for _ in range(int(rng.integers(1, 3))))
    debtor += " " + fake.pick(rng, ["HOLDINGS, INC.", "GROUP LLC", "CORPORATION", "BRANDS, INC."])
    case = f"{int(rng.integers(19, 26))}-{int(rng.integers(10000, 13000))}"
    return {"debtor_name": debtor, "case_number": case, "court": fake.pick(rng, COURTS)}


def _box(rng: np.random.Generator, p: float) -> bool | None:
    r = rng.random()
    return None if r < 0.02 else bool(r < 0.02 + p)


def _claim(rng: np.random.Generator, priority: bool) -> dict:
    if priority:
        name = fake.pick(rng, PRIORITY_CREDITORS) if rng.random() < 0.6 else fake.person_name(rng)
    else:
        name = fake.company_name(rng) if rng.random() < 0.75 else fake.person_name(rng)
    city, state, zip5 = fake.us_city(rng)
    total = fake.money(rng, lo=25.0, hi=400_000.0)
    if priority:
        cents = int(round(total * 100))
        prio_cents = int(cents * (1.0 if rng.random() < 0.5 else float(rng.uniform(0.2, 0.95))))
        prio, nonprio = round(prio_cents / 100, 2), round((cents - prio_cents) / 100, 2)
    else:
        prio = nonprio = None
    year = int(rng.integers(2012, 2025))
    return {
        "creditor_name": name,
        "street": fake.street_line(rng),
        "street_2": fake.unit_line(rng) if rng.random() < 0.25 else None,
        "city_state_zip": f"{city}, {state} {zip5}",
        "account_last4": f"{int(rng.integers(0, 10000)):04d}" if rng.random() < 0.85 else None,
        "date_incurred": ("Various" if rng.random() < 0.1 else f"{int(rng.integers(1, 13)):02d}/{year}")
        if rng.random() < 0.93 else None,
        "total_claim": total,
        "priority_amount": prio,
        "nonpriority_amount": nonprio,
        "claim_type": fake.pick(rng, PRIORITY_TYPES if priority else NONPRIORITY_TYPES),
        "contingent": _box(rng, 0.12),
        "unliquidated": _box(rng, 0.18),
        "disputed": _box(rng, 0.22 if not priority else 0.08),
    }


def generate_records(rng: np.random.Generator, n: int) -> list[dict]:
    n_priority = max(1, int(round(n * 0.12))) if n > 1 else 0
    priority = sorted((_claim(rng, True) for _ in range(n_priority)), key=lambda c: c["creditor_name"])
    other = sorted((_claim(rng, False) for _ in range(n - n_priority)), key=lambda c: c["creditor_name"])
    return priority + other
