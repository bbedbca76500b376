"""The fuzz campaign of issue 16 (``scripts/fuzz``): hostile input through
every entry point of xlate, in worker processes with per-input limits.

Not part of the installed package (pyproject installs ``xlate*`` only): it
shares its corpus and hostile-input helpers with the tests
(``tests/corpus.py``, ``tests/hostile.py``) and needs the peer corpus for
its seeds.  Modules:

* ``inputs``   -- input ``i`` of an entry point, from (seed, entry, i) alone;
* ``effects``  -- structure-aware mutations of fx_2_0 effects;
* ``entries``  -- one input through one entry point, and its checks;
* ``pool``     -- N worker processes under time and memory limits;
* ``log``      -- the campaign log (``fuzz/campaign.jsonl``) and its totals;
* ``campaign`` -- the command line.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (str(ROOT / "tests"), str(ROOT)):  # corpus.py and hostile.py live with the tests
    if _path not in sys.path:
        sys.path.insert(0, _path)
