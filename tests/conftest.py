import sys
from pathlib import Path

from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

# CI must be reproducible: the same examples every run, and no wall-clock deadlines on a shared machine.
settings.register_profile("gtkit", deadline=None, derandomize=True)
settings.load_profile("gtkit")
