"""What translating a shader imports: only what it uses.

A batch conversion starts a process per worker and pays the translator's
import in each (issue #12), so the costly packages load on first use:
networkx only to report unsound calls (``ir/cfg.py``), the preshader
package only for a shader with a PRES comment (``api.py``).  Each check runs
in a fresh interpreter, the only place where "not imported" means anything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_SCRIPT = """
import json, sys
from xlate.bytecode.asm import assemble_bytes
from xlate import translate
from xlate.errors import XlateError
blob = assemble_bytes(sys.argv[1])
before = set(sys.modules)
try:
    code, error = bool(translate(blob, "glsl330").code), None
except XlateError as exc:
    code, error = False, str(exc)
print(json.dumps({"code": code, "error": error, "loaded": sorted(set(sys.modules) - before),
                  "at_start": sorted(m for m in before if m.split(".")[0] in ("networkx", "xlate"))}))
"""


def _translate_fresh(asm: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", _SCRIPT, asm], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120, check=True)
    return json.loads(done.stdout)


def test_a_plain_shader_imports_neither_networkx_nor_the_preshader_package():
    seen = _translate_fresh("vs_2_0\ndcl_position v0\nmov oPos, v0\n")
    assert seen["code"]
    loaded = seen["loaded"] + seen["at_start"]
    assert not [m for m in loaded if m.split(".")[0] == "networkx"]
    assert not [m for m in loaded if m.startswith("xlate.preshader")]


def test_a_shader_with_sound_calls_translates_without_networkx():
    seen = _translate_fresh("vs_2_0\ndcl_position v0\ncall l0\nmov oPos, r0\nret\n"
                            "label l0\ncall l1\nret\nlabel l1\nmov r0, v0\nret\n")
    assert seen["code"]
    assert not [m for m in seen["loaded"] + seen["at_start"] if m.split(".")[0] == "networkx"]


def test_recursion_is_reported_through_networkx():
    seen = _translate_fresh("vs_2_0\ndcl_position v0\ncall l0\nmov oPos, v0\nret\n"
                            "label l0\ncall l0\nret\n")
    assert not seen["code"]
    assert "recursive calls (l0 -> l0)" in seen["error"]
    assert "networkx" in seen["loaded"]
