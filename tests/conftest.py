import sys
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

# CI must be reproducible: the same examples every run, and no wall-clock deadlines on a shared machine.
settings.register_profile("gtkit", deadline=None, derandomize=True)
settings.load_profile("gtkit")


CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture()
def browser():  # type: ignore[no-untyped-def]
    """Debian's headless Chromium driven by Playwright (no browser download); the test is skipped without it."""
    from review_helpers import CHROMIUM_ARGS

    if not CHROMIUM.exists():
        pytest.skip("no Chromium at /usr/bin/chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture()
def fresh_family_cache():  # type: ignore[no-untyped-def]
    """The family registry read afresh before and after a test that changes what is on the search path."""
    from gtkit.synth import family as family_mod

    family_mod._cached.cache_clear()
    yield
    family_mod._cached.cache_clear()
