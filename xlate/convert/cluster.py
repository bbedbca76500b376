"""Conversion on a Dask distributed cluster (``--scheduler ADDRESS``).

Workers may not share this machine's file system, so each chunk carries
the files' bytes, and workers return the outputs instead of writing them;
this process writes them (atomically, as a local run does), fills the
cache and the manifest.  Files whose every target is already in the cache
are converted here without a round trip.  At most a few chunks per worker
thread are in flight, so memory stays bounded on a big tree.
"""

from __future__ import annotations

from dataclasses import replace

from .cache import cache_key
from .jobs import Job, WorkItem, convert_file, finish, run_chunk
from .run import _chunks


def run_on_cluster(work: list[WorkItem], job: Job, scheduler, cache):
    from distributed import Client, as_completed

    local_job = job
    remote_job = replace(job, out_root=None, cache_dir=None)
    remote: list[WorkItem] = []
    for item in work:
        digest = None
        if cache is not None:
            import hashlib

            digest = hashlib.sha256(item.data).hexdigest()
        if digest and all(cache.has(cache_key(digest, t, job.keys[t])) for t in job.targets):
            yield convert_file(item, local_job, cache)
        else:
            remote.append(item)
    if not remote:
        return
    own_client = not hasattr(scheduler, "submit")
    client = Client(scheduler) if own_client else scheduler
    try:
        threads = max(1, sum(client.nthreads().values()))
        chunks = _chunks(remote, threads)
        window = 4 * threads
        queue = as_completed()
        for chunk in chunks[:window]:
            queue.add(client.submit(run_chunk, chunk, remote_job, pure=False))
        next_chunk = window
        for future in queue:
            results = future.result()
            future.release()
            if next_chunk < len(chunks):
                queue.add(client.submit(run_chunk, chunks[next_chunk], remote_job, pure=False))
                next_chunk += 1
            for result in results:
                if result.entry is not None and result.pending:
                    finish(result, job.out_root, cache, job.keys)
                yield result
    finally:
        if own_client:
            client.close()
