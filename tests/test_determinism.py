"""Same input, same output, byte for byte — across processes too.

Within one process two translations can agree while still depending on
something that changes between runs (set iteration order under a different
PYTHONHASHSEED, object ids, dict order built from sets).  So a sample of
corpus shaders is translated in two fresh interpreters with different hash
seeds, and every byte of code and reflection is compared.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "peer-corpus"
TARGETS = ("glsl120", "glsl330", "glsl450", "essl100", "essl300", "vulkan", "spirv", "wgsl")

# Runs in a child interpreter: prints one digest per (shader, target).
CHILD = r"""
import hashlib, json, sys
from pathlib import Path
from xlate import translate
from xlate.errors import XlateError
out = {}
for path in sys.argv[2:]:
    data = Path(path).read_bytes()
    for target in sys.argv[1].split(","):
        try:
            t = translate(data, target)
            blob = (t.code if isinstance(t.code, bytes) else t.code.encode()) + json.dumps(
                t.reflection, sort_keys=False).encode() + "\n".join(t.diagnostics).encode()
        except XlateError as e:
            blob = ("error: " + str(e)).encode()
        out[f"{Path(path).name}:{target}"] = hashlib.sha256(blob).hexdigest()
print(json.dumps(out, sort_keys=True))
"""


def _sample() -> list[str]:
    """Shaders that exercise the parts most likely to iterate over sets:
    relative addressing, loops, subroutines, packed outputs, sm1, CTAB names."""
    files = sorted((ROOT / "corpus").rglob("*.asm"))
    picks: list[str] = []
    if SHARED.is_dir():
        fx = sorted((SHARED / "fxc-wine" / "dxdecompiler").glob("*.bin"))
        picks += [str(p) for p in fx[::97]]
        picks += [str(p) for p in sorted((SHARED / "vkd3d").glob("*.d3dbc"))[::67]]
    return picks, files


def _child(targets: tuple[str, ...], paths: list[str], seed: str) -> dict:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    proc = subprocess.run([sys.executable, "-c", CHILD, ",".join(targets), *paths],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_translation_is_identical_across_processes(tmp_path):
    from xlate.bytecode.asm import assemble_bytes

    picks, asm_files = _sample()
    # The project's own corpus, assembled once, joins the sample.
    for f in asm_files[::6]:
        out = tmp_path / (f.parent.name + "_" + f.stem + ".bin")
        out.write_bytes(assemble_bytes(f.read_text(), source=str(f)))
        picks.append(str(out))
    assert len(picks) >= 15
    first = _child(TARGETS, picks, "1")
    second = _child(TARGETS, picks, "2024")
    assert first.keys() == second.keys()
    differ = sorted(k for k in first if first[k] != second[k])
    assert not differ, f"output depends on the process (hash seed): {differ[:10]}"


def test_translation_is_picklable_and_stable_in_process():
    from xlate import translate
    from xlate.bytecode.asm import assemble_bytes

    text = (ROOT / "corpus" / "ps_3_0" / "bloom_loops.asm").read_text()
    data = assemble_bytes(text)
    a = translate(data, "glsl330")
    b = pickle.loads(pickle.dumps(translate(data, "glsl330")))
    assert a == b
    assert hashlib.sha256(a.code.encode()).digest() == hashlib.sha256(b.code.encode()).digest()
