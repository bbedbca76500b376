"""The conversion cache: entries are written in place (no temporary file),
so a reader must take any damaged entry (a writer killed mid-write, a
flipped byte) as missing, delete it, and let the next writer put it again."""

from __future__ import annotations

import os

from xlate.bytecode.asm import assemble_bytes
from xlate.convert import convert
from xlate.convert.cache import Cache, CachedFile, CacheEntry

from .treekit import read_tree

ENTRY = CacheEntry((CachedFile(".glsl330.frag", b"void main() {}\n"), CachedFile(".glsl330.json", b"{}\n")),
                   ("a diagnostic",), "converted", None, "ps_2_0")
KEY = "ab" + "0" * 62


def test_round_trip_and_a_second_writer_leaves_the_entry(tmp_path):
    cache = Cache(tmp_path)
    assert cache.get(KEY) is None and not cache.has(KEY)
    cache.put(KEY, ENTRY)
    assert cache.get(KEY) == ENTRY and cache.has(KEY)
    assert [f.sha256 for f in cache.get(KEY).files] == [f.sha256 for f in ENTRY.files]
    path = cache._path(KEY)
    before = os.stat(path)
    cache.put(KEY, ENTRY)  # there already: not written again
    assert os.stat(path).st_ino == before.st_ino and os.stat(path).st_mtime_ns == before.st_mtime_ns
    assert not [n for n in os.listdir(os.path.dirname(path)) if n != os.path.basename(path)]  # no temporary file


def test_every_cut_and_every_flipped_byte_is_a_miss_that_heals(tmp_path):
    cache = Cache(tmp_path)
    cache.put(KEY, ENTRY)
    path = cache._path(KEY)
    whole = open(path, "rb").read()
    damaged = [whole[:n] for n in range(len(whole))]  # a writer killed after n bytes
    damaged += [whole[:n] + bytes([whole[n] ^ 0x20]) + whole[n + 1:] for n in range(len(whole))]
    damaged = [d for d in damaged if d != whole]
    for blob in damaged:
        with open(path, "wb") as f:
            f.write(blob)
        assert cache.get(KEY) is None, blob
        assert not os.path.exists(path), blob  # deleted, so that it is put again
        cache.put(KEY, ENTRY)
        assert cache.get(KEY) == ENTRY


def test_a_run_over_a_damaged_cache_gives_the_same_tree(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for i in range(6):
        (src / f"p{i}.pso").write_bytes(assemble_bytes(f"ps_2_0\ndef c1, {i}, 0, 0, 1\nadd r0, c0, c1\nmov oC0, r0\n"))
    cache_dir = tmp_path / "cache"
    convert([str(src)], tmp_path / "ref", ["glsl330"], jobs=1, cache_dir=cache_dir, progress="off")
    entries = sorted(p for p in cache_dir.rglob("*.entry"))
    assert len(entries) == 6
    for n, path in enumerate(entries):  # cut short, emptied, a payload byte changed
        blob = path.read_bytes()
        path.write_bytes(blob[: len(blob) // 2] if n % 3 == 0 else b"" if n % 3 == 1 else blob[:-2] + b"X\n")
    run = convert([str(src)], tmp_path / "out", ["glsl330"], jobs=1, cache_dir=cache_dir, progress="off")
    assert run.exit_code == 0
    assert read_tree(tmp_path / "out") == read_tree(tmp_path / "ref")
    cache = Cache(cache_dir)
    assert all(CacheEntry.decode(p.read_bytes()) for p in entries)  # healed: written again whole
    assert len(list(cache_dir.rglob("*.entry"))) == 6
