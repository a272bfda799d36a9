"""Realistic-looking names, addresses, amounts and identifiers, drawn from a numpy Generator.

Family generators build their records from these helpers. Every function takes the
Generator it draws from: there is no module-level random state. The word pools are
plain data (common US surnames and given names, street names, real city/state/ZIP
prefixes) so records look like the filings they imitate without copying anyone.
"""

from __future__ import annotations

import numpy as np

LAST = (  # noqa: SIM905 - a word pool reads as words; a literal of quoted names would not
    "SMITH JOHNSON WILLIAMS BROWN JONES GARCIA MILLER DAVIS RODRIGUEZ MARTINEZ HERNANDEZ LOPEZ GONZALEZ "
    "WILSON ANDERSON THOMAS TAYLOR MOORE JACKSON MARTIN LEE PEREZ THOMPSON WHITE HARRIS SANCHEZ CLARK "
    "RAMIREZ LEWIS ROBINSON WALKER YOUNG ALLEN KING WRIGHT SCOTT TORRES NGUYEN HILL FLORES GREEN ADAMS "
    "NELSON BAKER HALL RIVERA CAMPBELL MITCHELL CARTER ROBERTS GOMEZ PHILLIPS EVANS TURNER DIAZ PARKER "
    "CRUZ EDWARDS COLLINS REYES STEWART MORRIS MORALES MURPHY COOK ROGERS GUTIERREZ ORTIZ MORGAN COOPER "
    "PETERSON BAILEY REED KELLY HOWARD RAMOS KIM COX WARD RICHARDSON WATSON BROOKS CHAVEZ WOOD JAMES "
    "BENNETT GRAY MENDOZA RUIZ HUGHES PRICE ALVAREZ CASTILLO SANDERS PATEL MYERS LONG ROSS FOSTER JIMENEZ "
    "POWELL JENKINS PERRY RUSSELL SULLIVAN BELL COLEMAN BUTLER HENDERSON BARNES GONZALES FISHER VASQUEZ "
    "SIMMONS ROMERO JORDAN PATTERSON ALEXANDER HAMILTON GRAHAM REYNOLDS GRIFFIN WALLACE MORENO WEST COLE "
    "HAYES BRYANT HERRERA GIBSON ELLIS TRAN MEDINA AGUILAR STEVENS MURRAY FORD CASTRO MARSHALL OWENS "
    "HARRISON FERNANDEZ MCDONALD WOODS WASHINGTON KENNEDY WELLS VARGAS HENRY CHEN FREEMAN WEBB TUCKER "
    "GUZMAN BURNS CRAWFORD OLSON SIMPSON PORTER HUNTER GORDON MENDEZ SILVA SHAW SNYDER MASON DIXON MUNOZ "
    "HUNT HICKS HOLMES PALMER WAGNER BLACK ROBERTSON BOYD ROSE STONE SALAZAR FOX WARREN MILLS MEYER RICE "
    "SCHMIDT GARZA DANIELS FERGUSON NICHOLS STEPHENS SOTO WEAVER RYAN GARDNER PAYNE GRANT DUNN KELLEY "
    "SPENCER HAWKINS ARNOLD PIERCE VAZQUEZ HANSEN PETERS SANTOS HART BRADLEY KNIGHT ELLIOTT CUNNINGHAM "
    "O'BRIEN O'CONNOR MCCARTHY DELEON VAN DYKE ST CLAIR"
).split()
LAST = [w for w in LAST if w not in ("VAN", "DYKE", "ST", "CLAIR")] + ["VAN DYKE", "ST CLAIR", "DE LA CRUZ"]

FIRST = (  # noqa: SIM905 - a word pool reads as words; a literal of quoted names would not
    "JAMES MARY ROBERT PATRICIA JOHN JENNIFER MICHAEL LINDA DAVID ELIZABETH WILLIAM BARBARA RICHARD SUSAN "
    "JOSEPH JESSICA THOMAS SARAH CHARLES KAREN CHRISTOPHER LISA DANIEL NANCY MATTHEW BETTY ANTHONY MARGARET "
    "MARK SANDRA DONALD ASHLEY STEVEN KIMBERLY PAUL EMILY ANDREW DONNA JOSHUA MICHELLE KENNETH CAROL KEVIN "
    "AMANDA BRIAN DOROTHY GEORGE MELISSA TIMOTHY DEBORAH RONALD STEPHANIE EDWARD REBECCA JASON SHARON "
    "JEFFREY LAURA RYAN CYNTHIA JACOB KATHLEEN GARY AMY NICHOLAS ANGELA ERIC SHIRLEY JONATHAN ANNA STEPHEN "
    "BRENDA LARRY PAMELA JUSTIN EMMA SCOTT NICOLE BRANDON HELEN BENJAMIN SAMANTHA SAMUEL KATHERINE GREGORY "
    "CHRISTINE ALEXANDER DEBRA FRANK RACHEL PATRICK CAROLYN RAYMOND JANET JACK CATHERINE DENNIS MARIA JERRY "
    "HEATHER TYLER DIANE AARON RUTH JOSE JULIE ADAM OLIVIA NATHAN JOYCE HENRY VIRGINIA DOUGLAS VICTORIA "
    "ZACHARY KELLY PETER LAUREN KYLE CHRISTINA ETHAN JOAN WALTER EVELYN NOAH JUDITH JEREMY MEGAN CHRISTIAN "
    "ANDREA KEITH CHERYL ROGER HANNAH TERRY JACQUELINE GERALD MARTHA HAROLD GLORIA SEAN TERESA AUSTIN ANN "
    "CARL SARA ARTHUR MADISON LAWRENCE FRANCES DYLAN KATHRYN JESSE JANICE JORDAN JEAN BRYAN ABIGAIL BILLY "
    "ALICE JOE JUDY BRUCE SOPHIA GABRIEL GRACE LOGAN DENISE ALBERT AMBER WILLIE DORIS ALAN MARILYN JUAN "
    "DANIELLE WAYNE BEVERLY ELIJAH ISABELLA RANDY THERESA ROY DIANA VINCENT NATALIE RALPH BRITTANY EUGENE "
    "CHARLOTTE RUSSELL MARIE BOBBY KAYLA MASON ALEXIS PHILIP LORI LUIS"
).split()

SUFFIX_PERSON = ["JR", "SR", "II", "III", "IV"]

STREETS = (  # noqa: SIM905 - a word pool reads as words; a literal of quoted names would not
    "MAIN OAK PINE MAPLE CEDAR ELM WASHINGTON LAKE HILL PARK WALNUT SPRING NORTH RIDGE CHURCH WILLOW "
    "MILL SUNSET RAILROAD JACKSON CHERRY HIGHLAND FRANKLIN MEADOW FOREST LINCOLN JEFFERSON MADISON CENTER "
    "ADAMS DOGWOOD RIVER VALLEY BROADWAY MARKET UNION CHESTNUT HICKORY SYCAMORE LAUREL MAGNOLIA PROSPECT "
    "HARBOR COLLEGE ELMWOOD FAIRVIEW LOCUST GROVE ORCHARD SCHOOL STATE WATER BIRCH BEECH ASPEN "
    "MONROE HAMILTON KINGS QUEEN ROYAL PEACHTREE COMMERCE INDUSTRIAL TECHNOLOGY CORPORATE EXECUTIVE"
).split()
STREET_TYPES = ["ST", "AVE", "RD", "DR", "LN", "BLVD", "CT", "PL", "WAY", "PKWY", "HWY", "CIR", "TER"]
DIRECTIONS = ["N", "S", "E", "W", "NE", "NW", "SE", "SW"]
UNITS = ["APT", "STE", "UNIT", "FL", "RM", "BLDG"]

# city, state, three-digit ZIP prefix (real combinations)
CITIES: list[tuple[str, str, str]] = [
    ("NEW YORK", "NY", "100"), ("BROOKLYN", "NY", "112"), ("BUFFALO", "NY", "142"), ("ALBANY", "NY", "122"),
    ("LOS ANGELES", "CA", "900"), ("SAN DIEGO", "CA", "921"), ("SAN FRANCISCO", "CA", "941"),
    ("SACRAMENTO", "CA", "958"), ("FRESNO", "CA", "937"), ("OAKLAND", "CA", "946"), ("SAN JOSE", "CA", "951"),
    ("CHICAGO", "IL", "606"), ("SPRINGFIELD", "IL", "627"), ("PEORIA", "IL", "616"), ("HOUSTON", "TX", "770"),
    ("DALLAS", "TX", "752"), ("AUSTIN", "TX", "787"), ("SAN ANTONIO", "TX", "782"), ("EL PASO", "TX", "799"),
    ("FORT WORTH", "TX", "761"), ("PHOENIX", "AZ", "850"), ("TUCSON", "AZ", "857"), ("PHILADELPHIA", "PA", "191"),
    ("PITTSBURGH", "PA", "152"), ("ALLENTOWN", "PA", "181"), ("JACKSONVILLE", "FL", "322"), ("MIAMI", "FL", "331"),
    ("TAMPA", "FL", "336"), ("ORLANDO", "FL", "328"), ("TALLAHASSEE", "FL", "323"), ("COLUMBUS", "OH", "432"),
    ("CLEVELAND", "OH", "441"), ("CINCINNATI", "OH", "452"), ("TOLEDO", "OH", "436"), ("CHARLOTTE", "NC", "282"),
    ("RALEIGH", "NC", "276"), ("GREENSBORO", "NC", "274"), ("INDIANAPOLIS", "IN", "462"), ("FORT WAYNE", "IN", "468"),
    ("SEATTLE", "WA", "981"), ("SPOKANE", "WA", "992"), ("TACOMA", "WA", "984"), ("DENVER", "CO", "802"),
    ("COLORADO SPRINGS", "CO", "809"), ("BOSTON", "MA", "021"), ("WORCESTER", "MA", "016"),
    ("NASHVILLE", "TN", "372"), ("MEMPHIS", "TN", "381"), ("KNOXVILLE", "TN", "379"), ("DETROIT", "MI", "482"),
    ("GRAND RAPIDS", "MI", "495"), ("LANSING", "MI", "489"), ("PORTLAND", "OR", "972"), ("EUGENE", "OR", "974"),
    ("LAS VEGAS", "NV", "891"), ("RENO", "NV", "895"), ("BALTIMORE", "MD", "212"), ("MILWAUKEE", "WI", "532"),
    ("MADISON", "WI", "537"), ("ALBUQUERQUE", "NM", "871"), ("KANSAS CITY", "MO", "641"), ("ST LOUIS", "MO", "631"),
    ("ATLANTA", "GA", "303"), ("SAVANNAH", "GA", "314"), ("OMAHA", "NE", "681"), ("MINNEAPOLIS", "MN", "554"),
    ("SAINT PAUL", "MN", "551"), ("NEW ORLEANS", "LA", "701"), ("BATON ROUGE", "LA", "708"), ("WICHITA", "KS", "672"),
    ("NEWARK", "NJ", "071"), ("JERSEY CITY", "NJ", "073"), ("TRENTON", "NJ", "086"), ("WILMINGTON", "DE", "198"),
    ("DOVER", "DE", "199"), ("RICHMOND", "VA", "232"), ("NORFOLK", "VA", "235"), ("BIRMINGHAM", "AL", "352"),
    ("LOUISVILLE", "KY", "402"), ("LEXINGTON", "KY", "405"), ("SALT LAKE CITY", "UT", "841"), ("BOISE", "ID", "837"),
    ("HARTFORD", "CT", "061"), ("STAMFORD", "CT", "069"), ("PROVIDENCE", "RI", "029"), ("DES MOINES", "IA", "503"),
    ("LITTLE ROCK", "AR", "722"), ("JACKSON", "MS", "392"), ("OKLAHOMA CITY", "OK", "731"), ("TULSA", "OK", "741"),
    ("CHARLESTON", "SC", "294"), ("COLUMBIA", "SC", "292"), ("ANCHORAGE", "AK", "995"), ("HONOLULU", "HI", "968"),
    ("BURLINGTON", "VT", "054"), ("MANCHESTER", "NH", "031"), ("PORTLAND", "ME", "041"), ("BILLINGS", "MT", "591"),
    ("FARGO", "ND", "581"), ("SIOUX FALLS", "SD", "571"), ("CHEYENNE", "WY", "820"), ("WASHINGTON", "DC", "200"),
]

# foreign addresses: (city, province or None, postal code pattern, country)
FOREIGN: list[tuple[str, str | None, str, str]] = [
    ("TORONTO", "ON", "M5V 2T6", "CANADA"), ("VANCOUVER", "BC", "V6B 1A1", "CANADA"),
    ("MONTREAL", "QC", "H3B 4W8", "CANADA"), ("LONDON", None, "EC2V 7HH", "UNITED KINGDOM"),
    ("MANCHESTER", None, "M1 1AE", "UNITED KINGDOM"), ("DUBLIN", None, "D02 X285", "IRELAND"),
    ("SYDNEY", "NSW", "2000", "AUSTRALIA"), ("MELBOURNE", "VIC", "3000", "AUSTRALIA"),
    ("SINGAPORE", None, "048583", "SINGAPORE"), ("HONG KONG", None, "999077", "HONG KONG"),
    ("TOKYO", None, "100-0005", "JAPAN"), ("FRANKFURT", None, "60311", "GERMANY"),
    ("PARIS", None, "75008", "FRANCE"), ("ZURICH", None, "8001", "SWITZERLAND"),
    ("MEXICO CITY", "CDMX", "06600", "MEXICO"), ("SAO PAULO", "SP", "01310-100", "BRAZIL"),
    ("TEL AVIV", None, "6473424", "ISRAEL"), ("SEOUL", None, "04524", "REPUBLIC OF KOREA"),
    ("GRAND CAYMAN", None, "KY1-1104", "CAYMAN ISLANDS"), ("HAMILTON", None, "HM 11", "BERMUDA"),
]

COMPANY_WORDS = (  # noqa: SIM905 - a word pool reads as words; a literal of quoted names would not
    "ACME ATLAS SUMMIT PINNACLE HORIZON MERIDIAN FRONTIER KEYSTONE LIBERTY PIONEER HERITAGE BLUE RIVER "
    "GOLDEN EAGLE NORTHERN SOUTHERN EASTERN WESTERN CENTRAL NATIONAL AMERICAN UNITED GLOBAL PACIFIC "
    "ATLANTIC MIDWEST CAPITAL COASTAL PREMIER ALLIANCE STERLING BEACON CORNERSTONE EVERGREEN REGENCY "
    "TRINITY APEX VERTEX NOVA LANDMARK PARAGON CRESCENT HARBOR MAPLE OAKWOOD REDWOOD SILVERLINE TRIDENT"
).split()
COMPANY_TRADES = (  # noqa: SIM905 - a word pool reads as words; a literal of quoted names would not
    "LOGISTICS SUPPLY PLUMBING ELECTRIC MECHANICAL STAFFING CONSULTING PRINTING PACKAGING FREIGHT "
    "MARKETING SOLUTIONS SYSTEMS TECHNOLOGIES PROPERTIES HOLDINGS SERVICES INDUSTRIES MANUFACTURING "
    "DISTRIBUTORS FOODS PAPER CHEMICAL ENERGY MEDIA TELECOM ROOFING LANDSCAPING JANITORIAL SECURITY"
).split()
COMPANY_FORMS = ["INC", "LLC", "CORP", "CO", "LTD", "LP", "LLP", "INC.", "CORPORATION", "COMPANY"]
BANKS = [
    "JPMORGAN CHASE BANK NATIONAL ASSOCIATION", "BANK OF AMERICA NA", "WELLS FARGO BANK NA", "CITIBANK NA",
    "U.S. BANK NATIONAL ASSOCIATION", "PNC BANK NA", "TRUIST BANK", "CAPITAL ONE NA", "TD BANK NA",
    "FIFTH THIRD BANK NATIONAL ASSOCIATION", "THE BANK OF NEW YORK MELLON", "STATE STREET BANK AND TRUST COMPANY",
    "KEYBANK NATIONAL ASSOCIATION", "REGIONS BANK", "CITIZENS BANK NA", "HUNTINGTON NATIONAL BANK",
]
AGENCIES = [
    "INTERNAL REVENUE SERVICE", "SECURITIES AND EXCHANGE COMMISSION", "OFFICE OF THE UNITED STATES TRUSTEE",
    "DEPARTMENT OF LABOR", "FRANCHISE TAX BOARD", "DEPARTMENT OF REVENUE", "PENSION BENEFIT GUARANTY CORPORATION",
    "ENVIRONMENTAL PROTECTION AGENCY", "DEPARTMENT OF TAXATION AND FINANCE", "OFFICE OF UNEMPLOYMENT COMPENSATION",
]
NOTICE_PREFIXES = ["ATTN:", "C/O", "ATTN", "ATTENTION:"]
NOTICE_ROLES = [
    "GENERAL COUNSEL", "LEGAL DEPARTMENT", "BANKRUPTCY DEPARTMENT", "ACCOUNTS RECEIVABLE", "CREDIT MANAGER",
    "PRESIDENT OR MANAGING AGENT", "CORPORATE TRUST ADMINISTRATION", "INSOLVENCY UNIT", "COLLECTIONS",
]


def pick(rng: np.random.Generator, pool):
    return pool[int(rng.integers(len(pool)))]


def person_name(rng: np.random.Generator, *, last_first: bool = False) -> str:
    last, first = pick(rng, LAST), pick(rng, FIRST)
    middle = chr(ord("A") + int(rng.integers(26))) if rng.random() < 0.45 else None
    suffix = pick(rng, SUFFIX_PERSON) if rng.random() < 0.04 else None
    if last_first:
        parts = [last, first] + ([middle] if middle else []) + ([suffix] if suffix else [])
    else:
        parts = [first] + ([middle] if middle else []) + [last] + ([suffix] if suffix else [])
    return " ".join(parts)


def company_name(rng: np.random.Generator) -> str:
    r = rng.random()
    if r < 0.07:
        return pick(rng, BANKS)
    words = [pick(rng, COMPANY_WORDS)]
    if rng.random() < 0.3:
        words.append(pick(rng, COMPANY_WORDS))
    words.append(pick(rng, COMPANY_TRADES))
    if rng.random() < 0.12:
        words.append(pick(rng, ["AND", "&"]))
        words.append(pick(rng, COMPANY_TRADES))
    form = pick(rng, COMPANY_FORMS)
    return " ".join(words) + ("," if rng.random() < 0.5 else "") + " " + form


def street_line(rng: np.random.Generator) -> str:
    r = rng.random()
    if r < 0.1:
        return f"PO BOX {int(rng.integers(1, 99999))}"
    number = int(rng.integers(1, 20000)) if rng.random() < 0.8 else int(rng.integers(1, 300))
    parts = [str(number)]
    if rng.random() < 0.2:
        parts.append(pick(rng, DIRECTIONS))
    parts.append(pick(rng, STREETS))
    if rng.random() < 0.08:
        parts.append(pick(rng, STREETS))
    parts.append(pick(rng, STREET_TYPES))
    return " ".join(parts)


def unit_line(rng: np.random.Generator) -> str:
    return f"{pick(rng, UNITS)} {int(rng.integers(1, 2500))}"


def us_city(rng: np.random.Generator) -> tuple[str, str, str]:
    city, state, prefix = pick(rng, CITIES)
    zip5 = f"{prefix}{int(rng.integers(0, 100)):02d}"
    if rng.random() < 0.25:
        zip5 += f"-{int(rng.integers(0, 10000)):04d}"
    return city, state, zip5


def money(rng: np.random.Generator, *, lo: float = 0.5, hi: float = 250_000.0) -> float:
    """A dollar amount with cents, log-uniform between lo and hi (most are small)."""
    cents = round(float(np.exp(rng.uniform(np.log(lo), np.log(hi)))) * 100)
    return round(cents / 100, 2)


_CUSIP_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ*@#"  # a character's value is its index


def cusip_check_digit(base: str) -> str:
    """The check digit of an 8-character CUSIP base (issuer code of 6, issue code of 2).

    "Double add double" (modulus 10): each character's value (digits 0-9, letters A-Z 10-35, `*` 36,
    `@` 37, `#` 38) is doubled at the even positions (2nd, 4th, ... counting from 1), the digits of
    every value are summed, and the check digit is (10 - sum mod 10) mod 10.
    """
    if len(base) != 8:
        raise ValueError(f"a CUSIP base has 8 characters, got {base!r}")
    total = 0
    for i, ch in enumerate(base.upper()):
        v = _CUSIP_CHARS.index(ch)
        if i % 2 == 1:
            v *= 2
        total += v // 10 + v % 10
    return str((10 - total % 10) % 10)


def cusip_issuer(rng: np.random.Generator) -> str:
    """A 6-character CUSIP issuer code: mostly digits, sometimes ending in letters, as US issuers have."""
    digits = "".join(str(int(d)) for d in rng.integers(0, 10, 6))
    if rng.random() < 0.25:
        digits = digits[:5] + _CUSIP_CHARS[int(rng.integers(10, 36))]
    return digits


def cusip(issuer: str, issue: str) -> str:
    """The 9-character CUSIP of an issue (issue code "10" for common stock, "20" preferred, ...)."""
    return issuer + issue + cusip_check_digit(issuer + issue)
