"""Records of a clinical protocol deviation log, drawn from a seeded numpy Generator.

Deviations are numbered in order and dated increasingly; about one in ten is site-level (no
subject). Each has a thread of 0 to 8 comments (monitor, site, medical monitor), timestamped
after the deviation and in order; long threads make an entry run across a page break.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from gtkit.synth import fake

CATEGORIES = {
    "Informed consent": ["Subject signed an outdated version of the informed consent form before screening procedures.",
                         "Informed consent was not documented before the first study procedure.",
                         "Re-consent to the amended protocol was obtained after the next scheduled visit."],
    "Visit window": ["Week {w} visit occurred {d} days outside the protocol-defined window.",
                     "Follow-up visit was missed; the subject was contacted by telephone instead."],
    "Eligibility": ["Subject was randomized although the screening creatinine clearance was below the inclusion threshold.",
                    "Exclusion criterion on prior therapy was not verified before randomization."],
    "Investigational product": ["Dose of study drug was administered {d} hours late because of a pharmacy delay.",
                                "Study drug was stored outside the labeled temperature range for {d} hours.",
                                "Subject took the wrong kit number for {d} days."],
    "Laboratory": ["Central laboratory sample for week {w} was not collected.",
                   "Pharmacokinetic sample was drawn {d} minutes outside the window."],
    "Safety reporting": ["Serious adverse event was reported to the sponsor {d} days after site awareness."],
}
SEVERITY = ["Minor", "Major", "Critical"]
ROLES = ["CRA", "Site", "PI", "Medical Monitor", "QA", "Study Manager"]
REPLIES = ["Site notified; retraining scheduled.", "Root cause documented in the note to file.",
           "Corrective action: checklist updated to include the window calculation.",
           "Reviewed with the investigator; no impact on subject safety.",
           "Data excluded from the per-protocol analysis set.", "Query raised in EDC, awaiting site response.",
           "Site response received and accepted. Closing.", "Escalated to the medical monitor for assessment.",
           "IRB notified as required by local regulations.", "Repeat occurrence at this site; see the site-level CAPA."]
SITE_NAMES = ["Lakeside Research Center", "Northgate Clinical Trials", "University Hospital Clinic",
              "Riverside Medical Group", "Summit Oncology Associates", "Harbor View Research Institute"]


def generate_context(rng: np.random.Generator) -> dict:
    prefix = "".join(chr(ord("A") + int(rng.integers(26))) for _ in range(3))
    sponsor = fake.pick(rng, fake.COMPANY_WORDS).title() + " " + fake.pick(rng, ["Therapeutics", "Pharma", "Biosciences"])
    return {"protocol_number": f"{prefix}-{int(rng.integers(100, 999))}-{int(rng.integers(2019, 2025))}",
            "sponsor": sponsor}


def generate_records(rng: np.random.Generator, n: int) -> list[dict]:
    sites = [(f"{int(rng.integers(100, 999))}", fake.pick(rng, SITE_NAMES)) for _ in range(max(3, n // 15))]
    day = dt.datetime(2023, 1, 9, 8, 0)
    out = []
    for i in range(n):
        day += dt.timedelta(days=int(rng.integers(0, 4)))
        site_no, site_name = sites[int(rng.integers(len(sites)))]
        category = fake.pick(rng, list(CATEGORIES))
        text = fake.pick(rng, CATEGORIES[category]).format(w=int(rng.integers(2, 52)), d=int(rng.integers(2, 30)))
        n_comments = int(min(8, rng.geometric(0.35) - 1)) if rng.random() < 0.9 else 8
        t = day + dt.timedelta(hours=int(rng.integers(2, 72)))
        comments = []
        for _ in range(n_comments):
            t += dt.timedelta(hours=int(rng.integers(1, 120)), minutes=int(rng.integers(0, 60)))
            author = f"{fake.pick(rng, fake.FIRST)[0]}. {fake.pick(rng, fake.LAST).title()} ({fake.pick(rng, ROLES)})"
            comments.append({"timestamp": t.strftime("%Y-%m-%d %H:%M"), "author": author, "text": fake.pick(rng, REPLIES)})
        out.append({
            "deviation_id": f"PD-{i + 1:04d}",
            "site": f"{site_no} {site_name}",
            "subject_id": f"{site_no}-{int(rng.integers(1, 200)):04d}" if rng.random() < 0.9 else None,
            "date": day.strftime("%Y-%m-%d"),
            "category": category,
            "severity": SEVERITY[int(rng.choice(3, p=[0.6, 0.33, 0.07]))],
            "description": text,
            "comments": comments,
        })
    return out
