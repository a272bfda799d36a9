"""Records of a county statement of votes cast, drawn from a seeded numpy Generator.

`n` is the number of precincts in the county. The statement has eight contests: five countywide
(every precinct votes) and three district contests (a congressional or legislative district, a
school trustee area, a city ward or a fire district: a run of neighbouring precincts). Each precinct
has its registered voters and ballots cast (the same in every contest it votes in); a contest's votes
in a precinct are the ballots cast times the number of seats, less undervotes, shared among the
candidates by shares that drift from precinct to precinct. Every total is a sum of the printed
integers, so precinct totals, candidate totals and the contest's total row reconcile exactly.
"""

from __future__ import annotations

import numpy as np

from gtkit.synth import fake

COUNTIES = ["Marion", "Franklin", "Washington", "Jefferson", "Madison", "Clay", "Lincoln", "Monroe", "Greene",
            "Sutter", "Yolo", "Tulare", "Pima", "Larimer", "Dane", "Polk"]
PLACES = ["Adams", "Bear Creek", "Cedar", "Dover", "Elm Grove", "Fairview", "Glendale", "Harmony", "Indian Hill",
          "Jackson", "Kingsley", "Lakeside", "Maple", "North Fork", "Oak Park", "Pleasant Valley", "Quarry",
          "Riverside", "Spring Lake", "Twin Oaks", "Union", "Valley View", "Westfield", "Willow Bend"]
PARTIES = ["DEM", "REP", "LIB", "GRN", "IND"]
# (rank on the ballot, contest name, vote for, kind): "partisan" draws party candidates,
# "nonpartisan" plain names, "measure" Yes and No
COUNTYWIDE = [(10, "President and Vice President", 1, "partisan"), (20, "United States Senator", 1, "partisan"),
              (30, "Governor", 1, "partisan"), (40, "Attorney General", 1, "partisan"),
              (60, "Judge of the Superior Court, Office 4", 1, "nonpartisan"),
              (70, "County Commissioner At Large", 2, "nonpartisan"), (72, "County Sheriff", 1, "nonpartisan"),
              (80, "Measure A: County Road Maintenance Sales Tax", 1, "measure"),
              (82, "Measure B: Library Parcel Tax Renewal", 1, "measure")]
DISTRICT = [(25, "Representative in Congress, District {k}", 1, "partisan"),
            (45, "State Senator, District {k}", 1, "partisan"),
            (50, "Member of the State Assembly, District {k}", 1, "partisan"),
            (75, "School Board Trustee, Trustee Area {k}", 2, "nonpartisan"),
            (76, "City Council Member, Ward {k}", 1, "nonpartisan"),
            (85, "Measure {m}: Fire Protection District Special Tax", 1, "measure")]
ELECTION_DAYS = [(2016, 8), (2018, 6), (2020, 3), (2022, 8), (2024, 5)]  # the Tuesday after the first Monday
COUNTYWIDE_CONTESTS = 5
DISTRICT_CONTESTS = 3


def generate_context(rng: np.random.Generator) -> dict:
    year, day = ELECTION_DAYS[int(rng.integers(len(ELECTION_DAYS)))]
    kind = fake.pick(rng, ["General Election", "Consolidated General Election", "Statewide General Election"])
    return {"county": f"{fake.pick(rng, COUNTIES)} County", "election": kind, "election_date": f"November {day}, {year}"}


def _candidates(rng: np.random.Generator, kind: str, vote_for: int) -> list[tuple[str, str | None]]:
    if kind == "measure":
        return [("Yes", None), ("No", None)]
    k = int(rng.integers(vote_for + 1, vote_for + 4)) if kind == "nonpartisan" else int(rng.integers(2, 6))
    names: list[str] = []
    while len(names) < k:
        name = fake.person_name(rng)
        if name not in names:
            names.append(name)
    if kind == "partisan":
        parties = ["DEM", "REP"] + list(rng.permutation(PARTIES[2:]))
        out = [(name, str(parties[i])) for i, name in enumerate(names)]
    else:
        out = [(name, None) for name in names]
    if rng.random() < 0.5:
        out.append(("Write-in", None))
    return out


def _votes(rng: np.random.Generator, ballots: list[int], candidates: list, vote_for: int) -> list[list[int]]:
    """Each precinct's votes per candidate: seats times ballots, less undervotes, shared by drifting shares."""
    strength = np.array([0.03 if name == "Write-in" else rng.uniform(0.5, 3.0) for name, _ in candidates])
    base = strength / strength.sum()
    rows = []
    for b in ballots:
        share = rng.dirichlet(base * 60 + 0.05)
        cast = int(round(b * vote_for * rng.uniform(0.78 if vote_for > 1 else 0.93, 0.99)))
        rows.append([int(v) for v in rng.multinomial(cast, share)])
    return rows


def generate_records(rng: np.random.Generator, n: int) -> list[dict]:
    codes = sorted(int(c) for c in rng.choice(np.arange(100, 100 + 4 * max(n, 1)), size=n, replace=False))
    places = [fake.pick(rng, PLACES) for _ in range(n)]
    precincts = [f"{c:04d} {p} {1 + int(rng.integers(6))}" for c, p in zip(codes, places)]
    registered = [int(rng.integers(180, 3600)) for _ in range(n)]
    ballots = [int(round(r * rng.uniform(0.42, 0.86))) for r in registered]
    chosen = [COUNTYWIDE[int(i)] for i in rng.choice(len(COUNTYWIDE), COUNTYWIDE_CONTESTS, replace=False)]
    spans = []
    for i in rng.choice(len(DISTRICT), DISTRICT_CONTESTS, replace=False):
        size = min(n, max(2, int(round(n * rng.uniform(0.12, 0.26)))))
        start = int(rng.integers(0, n - size + 1))
        rank, name, vote_for, kind = DISTRICT[int(i)]
        name = name.format(k=int(rng.integers(1, 9)), m=chr(ord("C") + int(rng.integers(0, 20))))
        spans.append(((rank, name, vote_for, kind), range(start, start + size)))
    contests = []
    for (rank, name, vote_for, kind), where in sorted([(c, range(n)) for c in chosen] + spans, key=lambda s: s[0][0]):
        candidates = _candidates(rng, kind, vote_for)
        votes = _votes(rng, [ballots[i] for i in where], candidates, vote_for)
        rows = [{"precinct": precincts[i], "registered_voters": registered[i], "ballots_cast": ballots[i],
                 "votes": [{"candidate": c, "votes": v} for (c, _), v in zip(candidates, vs)], "total_votes": sum(vs)}
                for i, vs in zip(where, votes)]
        contests.append({
            "contest": name, "vote_for": vote_for,
            "candidates": [{"candidate": c, "party": party, "total_votes": sum(vs[j] for vs in votes)}
                           for j, (c, party) in enumerate(candidates)],
            "precincts": rows,
            "total_registered_voters": sum(r["registered_voters"] for r in rows),
            "total_ballots_cast": sum(r["ballots_cast"] for r in rows),
            "total_votes": sum(r["total_votes"] for r in rows),
        })
    return contests


def check_record(contest: dict) -> str | None:
    """Why a contest (a `--data` record) cannot be printed as a statement of votes, or None.

    The candidate header is printed once per contest, so every precinct must list the contest's
    candidates in the header's order; every total must be the sum of what it totals."""
    names = [c["candidate"] for c in contest["candidates"]]
    where = f"contest {contest['contest']!r}"
    for p in contest["precincts"]:
        got = [v["candidate"] for v in p["votes"]]
        if got != names:
            return f"{where}: precinct {p['precinct']!r} lists candidates {got}, the contest's header has {names}"
        total = sum(v["votes"] for v in p["votes"])
        if p["total_votes"] != total:
            return (f"{where}: precinct {p['precinct']!r}: total_votes {p['total_votes']} is not the sum of its "
                    f"votes ({total})")
    for j, c in enumerate(contest["candidates"]):
        total = sum(p["votes"][j]["votes"] for p in contest["precincts"])
        if c["total_votes"] != total:
            return (f"{where}: candidate {c['candidate']!r}: total_votes {c['total_votes']} is not the sum of the "
                    f"precincts' votes ({total})")
    for key, field in (("total_registered_voters", "registered_voters"), ("total_ballots_cast", "ballots_cast"),
                       ("total_votes", "total_votes")):
        total = sum(p[field] for p in contest["precincts"])
        if contest[key] != total:
            return f"{where}: {key} {contest[key]} is not the sum of the precincts' {field} ({total})"
    return None
