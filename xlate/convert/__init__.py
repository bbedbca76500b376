"""``xlate convert``: a whole tree of shaders, effects and assembly files at once.

    from xlate.convert import convert
    run = convert(["assets/"], "out/", ["glsl330", "spirv"], options={"flip_y": True})
    run.exit_code, run.counts.to_json()

Modules, bottom up: ``detect`` (what a file holds, by content), ``walk``
(the files under SRC), ``writer`` (atomic writes), ``cache``
(content-addressed results), ``outputs``/``effects`` (how a translation
becomes files), ``jobs`` (the worker side: one file in, one manifest entry
out), ``lock`` (one run per OUT), ``manifest``, ``progress``, ``summary``, ``cluster`` (Dask) and
``run`` (one run, tying them together).
"""

from .cache import default_cache_dir
from .detect import Kind, detect
from .lock import OutputInUse
from .run import RunResult, convert
from .walk import SourceError

__all__ = ["Kind", "OutputInUse", "RunResult", "SourceError", "convert", "default_cache_dir", "detect"]
