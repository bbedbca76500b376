"""``--scheduler``: the same conversion on a Dask cluster (a LocalCluster of two
worker processes here) writes the same tree, byte for byte, as a local run."""

from __future__ import annotations

import pytest

from xlate.convert import convert

from .treekit import build_tree, read_tree

distributed = pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install 'xlate[dask]')")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        yield c


def test_cluster_run_is_byte_identical_to_a_local_run(cluster, tmp_path):
    tree = build_tree(tmp_path / "src", sample=60)
    local = convert([str(tree.root)], tmp_path / "local", ["glsl330", "essl100"], jobs=2, use_cache=False, progress="off")
    remote = convert([str(tree.root)], tmp_path / "dask", ["glsl330", "essl100"], scheduler=cluster.scheduler_address,
                     cache_dir=tmp_path / "cache", progress="off")
    assert read_tree(tmp_path / "dask") == read_tree(tmp_path / "local")
    assert remote.exit_code == local.exit_code == 1
    # Again into a fresh folder: everything comes from the cache this process filled.
    cached = convert([str(tree.root)], tmp_path / "again", ["glsl330", "essl100"], scheduler=cluster.scheduler_address,
                     cache_dir=tmp_path / "cache", progress="off")
    assert read_tree(tmp_path / "again") == read_tree(tmp_path / "local")
    assert len(cached.entries) == len(local.entries)
    # The command line's --scheduler, without a cache: every file goes to the cluster.
    from click.testing import CliRunner

    from xlate.cli import main

    result = CliRunner().invoke(main, ["convert", str(tree.root), "-o", str(tmp_path / "cli"), "-t", "glsl330",
                                       "-t", "essl100", "--scheduler", cluster.scheduler_address, "--no-cache", "-q"])
    assert result.exit_code == 1, result.output
    assert read_tree(tmp_path / "cli") == read_tree(tmp_path / "local")
