"""Rows of an adverse-event listing, drawn from a seeded numpy Generator.

Subjects (site-subject numbers) each report 0 to a dozen events over a 24-week study; rows are
sorted by subject and onset date, as the listing prints them. Each event is a MedDRA-style
preferred term with its system organ class and an investigator's verbatim term, often much longer
than the coded term (location, character, circumstances), so it wraps over several lines. Severity
leans mild; serious events are rare and usually severe; an ongoing event has no resolution date and
an outcome that says so; resolution never precedes onset.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from gtkit.synth import fake

SOC = {
    "gi": "Gastrointestinal disorders",
    "ns": "Nervous system disorders",
    "gen": "General disorders and administration site conditions",
    "inf": "Infections and infestations",
    "msk": "Musculoskeletal and connective tissue disorders",
    "skin": "Skin and subcutaneous tissue disorders",
    "resp": "Respiratory, thoracic and mediastinal disorders",
    "inv": "Investigations",
    "psy": "Psychiatric disorders",
    "vasc": "Vascular disorders",
    "card": "Cardiac disorders",
    "met": "Metabolism and nutrition disorders",
    "inj": "Injury, poisoning and procedural complications",
    "blood": "Blood and lymphatic system disorders",
    "ear": "Ear and labyrinth disorders",
    "eye": "Eye disorders",
    "ren": "Renal and urinary disorders",
}
# preferred term, its SOC, and verbatim phrasings an investigator might write for it
TERMS = [
    ("Headache", "ns", ["headache", "intermittent bilateral frontal headache", "throbbing headache worse in the mornings, relieved by paracetamol"]),
    ("Dizziness", "ns", ["dizziness", "light-headedness on standing", "episodic dizziness after dosing lasting about 30 minutes"]),
    ("Somnolence", "ns", ["drowsiness", "daytime sleepiness"]),
    ("Paraesthesia", "ns", ["tingling in both feet", "pins and needles sensation in fingers of left hand"]),
    ("Nausea", "gi", ["nausea", "nausea after morning dose", "intermittent nausea without vomiting, mostly postprandial"]),
    ("Vomiting", "gi", ["vomiting", "vomiting x2 on day of dosing"]),
    ("Diarrhoea", "gi", ["diarrhea", "loose stools", "diarrhoea up to 4 episodes per day, no blood or mucus"]),
    ("Constipation", "gi", ["constipation"]),
    ("Abdominal pain upper", "gi", ["epigastric pain", "upper abdominal discomfort after meals"]),
    ("Dyspepsia", "gi", ["indigestion", "heartburn"]),
    ("Fatigue", "gen", ["fatigue", "tiredness", "generalised fatigue interfering with usual daily activities"]),
    ("Pyrexia", "gen", ["fever", "fever 38.4 C", "low grade fever (max 37.9 C) without identified source"]),
    ("Injection site erythema", "gen", ["redness at injection site", "erythema at injection site left abdomen, 3 cm diameter"]),
    ("Oedema peripheral", "gen", ["ankle swelling", "bilateral lower leg oedema, pitting, grade 1"]),
    ("Nasopharyngitis", "inf", ["common cold", "cold symptoms", "runny nose and sore throat, viral upper respiratory infection"]),
    ("Upper respiratory tract infection", "inf", ["URTI", "upper respiratory tract infection"]),
    ("Urinary tract infection", "inf", ["UTI", "urinary tract infection treated with antibiotics"]),
    ("Influenza", "inf", ["flu", "influenza A confirmed by rapid test"]),
    ("COVID-19", "inf", ["COVID-19", "COVID-19 infection, positive PCR, mild symptoms"]),
    ("Arthralgia", "msk", ["joint pain", "pain in both knees", "arthralgia of hands and wrists, worse in the morning"]),
    ("Back pain", "msk", ["back pain", "lower back pain after lifting"]),
    ("Myalgia", "msk", ["muscle aches", "generalised muscle pain"]),
    ("Rash", "skin", ["rash", "maculopapular rash on trunk and upper arms, pruritic"]),
    ("Pruritus", "skin", ["itching", "generalised itching without rash"]),
    ("Cough", "resp", ["cough", "dry cough", "persistent non-productive cough for two weeks"]),
    ("Dyspnoea", "resp", ["shortness of breath", "shortness of breath on exertion (climbing one flight of stairs)"]),
    ("Alanine aminotransferase increased", "inv", ["ALT increased", "elevated ALT (3 x ULN) at week 4 visit"]),
    ("Blood creatine phosphokinase increased", "inv", ["CPK elevated", "raised CK after strenuous exercise"]),
    ("Weight decreased", "inv", ["weight loss", "weight loss of 4 kg since baseline"]),
    ("Insomnia", "psy", ["insomnia", "difficulty falling asleep"]),
    ("Anxiety", "psy", ["anxiety", "feeling anxious"]),
    ("Hypertension", "vasc", ["high blood pressure", "elevated blood pressure 152/96 mmHg at clinic visit"]),
    ("Hot flush", "vasc", ["hot flushes"]),
    ("Palpitations", "card", ["palpitations", "awareness of heartbeat in the evenings"]),
    ("Atrial fibrillation", "card", ["atrial fibrillation", "new onset atrial fibrillation requiring hospitalisation"]),
    ("Decreased appetite", "met", ["loss of appetite", "reduced appetite"]),
    ("Hypoglycaemia", "met", ["hypoglycemia", "symptomatic hypoglycaemia, glucose 3.1 mmol/L, resolved with oral glucose"]),
    ("Fall", "inj", ["fall", "fall at home, tripped over rug, bruised left hip"]),
    ("Contusion", "inj", ["bruise", "bruising of right forearm"]),
    ("Anaemia", "blood", ["anemia", "haemoglobin decreased to 10.1 g/dL"]),
    ("Vertigo", "ear", ["vertigo", "spinning sensation on turning head"]),
    ("Vision blurred", "eye", ["blurred vision", "intermittent blurred vision both eyes"]),
    ("Pollakiuria", "ren", ["frequent urination", "increased urinary frequency"]),
]
VISITS = ["Screening", "Day 1", "Week 2", "Week 4", "Week 8", "Week 12", "Week 16", "Week 24", "Unscheduled", "Follow-up"]
VISIT_DAYS = [-14, 1, 15, 29, 57, 85, 113, 169, None, 197]
RELATIONSHIP = ["Not related", "Unlikely related", "Possibly related", "Probably related", "Related"]
ACTIONS = ["Dose not changed", "Dose not changed", "Dose not changed", "Drug interrupted", "Dose reduced",
           "Drug withdrawn", "Not applicable"]
EXTRA = [" per subject", ", reported by phone", ", treated with over-the-counter medication",
         ", subject did not seek medical attention", ", resolved without treatment", ", see concomitant medication log"]
SPONSORS = ["Meridian Therapeutics Inc.", "Northwind Biopharma Ltd", "Apex Clinical Sciences AG", "Harbor Pharmaceuticals LLC"]


def _verbatim(rng: np.random.Generator, phrasings: list[str]) -> str:
    text = fake.pick(rng, phrasings)
    if rng.random() < 0.25:
        text += fake.pick(rng, EXTRA)
    if rng.random() < 0.4:
        text = text.upper()  # many sites write in capitals
    return text


def _event(rng: np.random.Generator, subject: str, start: dt.date, cutoff: dt.date) -> dict:
    pt, soc, phrasings = TERMS[int(rng.integers(len(TERMS)))]
    k = int(rng.integers(len(VISITS)))
    day = VISIT_DAYS[k] if VISIT_DAYS[k] is not None else int(rng.integers(2, 190))
    onset = start + dt.timedelta(days=day + int(rng.integers(-3, 4)))
    onset = min(onset, cutoff)
    serious = "Yes" if rng.random() < 0.05 else "No"
    severity = "Severe" if serious == "Yes" and rng.random() < 0.6 else fake.pick(rng, ["Mild"] * 6 + ["Moderate"] * 3 + ["Severe"])
    r = rng.random()
    resolution: dt.date | None = onset + dt.timedelta(days=int(rng.integers(0, 45)))
    if r < 0.72:
        outcome = "Recovered/resolved"
    elif r < 0.76:
        outcome = "Recovered/resolved with sequelae"
    elif r < 0.86:
        outcome, resolution = "Recovering/resolving", None
    elif r < 0.98:
        outcome, resolution = "Not recovered/not resolved", None
    elif serious == "Yes":
        outcome = "Fatal"
    else:
        outcome, resolution = "Unknown", None
    if resolution is not None and resolution > cutoff:
        outcome, resolution = "Recovering/resolving", None
    return {
        "subject_id": subject,
        "visit": VISITS[k],
        "reported_term": _verbatim(rng, phrasings),
        "preferred_term": pt,
        "system_organ_class": SOC[soc],
        "onset_date": onset.isoformat(),
        "resolution_date": resolution.isoformat() if resolution else None,
        "severity": severity,
        "serious": serious,
        "relationship": fake.pick(rng, RELATIONSHIP),
        "action_taken": "Drug withdrawn" if outcome == "Fatal" else fake.pick(rng, ACTIONS),
        "outcome": outcome,
    }


def generate_context(rng: np.random.Generator) -> dict:
    year = int(rng.integers(2019, 2025))
    cutoff = dt.date(year + 1, int(rng.integers(1, 13)), int(rng.integers(1, 29)))
    letters = "".join(chr(ord("A") + int(x)) for x in rng.integers(0, 26, 3))
    return {"sponsor": fake.pick(rng, SPONSORS), "protocol": f"{letters}-{int(rng.integers(100, 999))}-{int(rng.integers(201, 399))}",
            "data_cutoff": cutoff.isoformat(), "meddra_version": fake.pick(rng, ["25.0", "25.1", "26.0", "26.1", "27.0"])}


def generate_records(rng: np.random.Generator, n: int) -> list[dict]:
    cutoff = dt.date(2025, 6, 30)
    rows: list[dict] = []
    sites = [int(s) for s in rng.choice(np.arange(1001, 1099), size=24, replace=False)]
    subject_no = 0
    while len(rows) < n:
        subject_no += 1
        subject = f"{fake.pick(rng, sites)}-{subject_no:04d}"
        start = dt.date(2023, 1, 1) + dt.timedelta(days=int(rng.integers(0, 500)))
        events = [_event(rng, subject, start, cutoff) for _ in range(int(rng.integers(0, 13)))]
        rows.extend(sorted(events, key=lambda e: (e["onset_date"], e["preferred_term"])))
    rows = rows[:n]
    rows.sort(key=lambda e: e["subject_id"])  # stable: each subject's events stay in onset order
    return rows
