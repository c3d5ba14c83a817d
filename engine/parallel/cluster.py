"""Where heavy work runs: in this process, on a local Dask cluster, or on a remote one.

The one module that knows about Dask (`dask.distributed`).  Heavy commands (labelling,
training, evaluation, matches, tournaments, tuning) cut their work into independent units (a
batch of positions, a batch of games, a share of a training batch) and hand them to a
`Cluster`, which runs `fn(unit, *shared)` for each and gives the results back as they finish
(`run`) or in order (`map`).  Three places to run, one interface:

- `workers=0`: in this process, one unit after another (debugging, tests, profiling);
- `workers=N`: a `distributed.LocalCluster` of N single-threaded worker processes, started
  for the command and closed after it (the default: one per core);
- `scheduler="tcp://HOST:PORT"`: an existing cluster (`dask scheduler` on one machine,
  `dask worker tcp://HOST:PORT` on each of the others).

Units must be pure functions of their arguments, each drawing its randomness from a seed
derived from its own index: then the results do not depend on how many workers there are,
and a unit lost with a worker that died is simply run again elsewhere (the scheduler does
this by itself) with the same result.  Checkpoints stay with the callers, which write each
result as it arrives, so an interrupted command resumes from its own files.

State that is costly to build on a worker (a loaded policy, a GTP engine process) is kept per
worker process by `worker_cache(key, factory)`, and numba loads its compiled kernels from the
on-disk cache once per worker process, not per unit.  Each unit's compute time is measured on
the worker, so `overhead()` tells what share of the workers' time went to scheduling,
transfers and idling rather than to the units themselves.
"""
import logging
import os
import pickle
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager

import click

_CACHE = {}


def default_workers():
    return os.cpu_count() or 1


def worker_cache(key, factory):
    """The object `factory()` made for `key` in this process, made once and then reused by
    every unit this process runs (keys are values: pickled arguments, tuples of settings)."""
    if key not in _CACHE:
        _CACHE[key] = factory()
    return _CACHE[key]


def drop_cached(key):
    """Forget (and close, if it can be closed) the cached object of `key`, e.g. an engine
    that failed: the next unit starts a fresh one."""
    obj = _CACHE.pop(key, None)
    if obj is not None and hasattr(obj, "close"):
        obj.close()


def close_cached(prefix=None):
    """Close every cached object (whose key's first item is `prefix`, when given): the end of
    a command, so that no engine process outlives it on a long-lived worker."""
    for key in [k for k in _CACHE if prefix is None or (isinstance(k, tuple) and k[0] == prefix)]:
        drop_cached(key)


def value_key(prefix, *parts):
    """A cache key made of values, for factories and settings that are equal without being
    the same object (every unit unpickles its own copy of them).  What pickle cannot take by
    value (a lambda, a local class) is keyed by identity: reused within this process only."""
    try:
        return (prefix, pickle.dumps(parts))
    except (pickle.PicklingError, AttributeError, TypeError):
        return (prefix, tuple(id(p) for p in parts))


def split(items, slots, per_slot=4, most=None):
    """`items` cut into consecutive parts, about `per_slot` a worker slot (so that a slow part
    does not leave the others idle at the end), each at most `most` long."""
    items = list(items)
    size = max(1, -(-len(items) // (per_slot * max(1, slots))))
    if most:
        size = min(size, most)
    return [items[k:k + size] for k in range(0, len(items), size)]


def _timed(fn, unit, *shared):
    """Run one unit on a worker: (result, seconds of compute)."""
    start = time.perf_counter()
    result = fn(unit, *shared)
    return result, time.perf_counter() - start


class Cluster:
    """Runs work units; `slots` of them at once.  Subclasses say where."""

    slots = 1
    where = "in-process"
    remote = False        # True: units are pickled and sent to other processes

    def __init__(self):
        self.busy = 0.0       # seconds the units computed
        self.wall = 0.0       # seconds `run` waited for them, times the slots

    def share(self, obj):
        """A handle for a large argument that many units take (sent once to each worker)."""
        return obj

    def run(self, fn, units, *shared):
        """Yield (index, result) of fn(unit, *shared) for every unit, as they finish.  An
        exception raised by a unit is raised here (after the worker's retries)."""
        raise NotImplementedError

    def map(self, fn, units, *shared):
        """[fn(unit, *shared) for unit in units], computed on the cluster."""
        out = [None] * len(units)
        for i, result in self.run(fn, units, *shared):
            out[i] = result
        return out

    def on_workers(self, fn, *args):
        """Call fn(*args) once in every worker process (clean-up of worker_cache)."""
        fn(*args)

    def overhead(self):
        """Share of the workers' time not spent computing units (0 when nothing ran)."""
        return max(0.0, 1.0 - self.busy / self.wall) if self.wall > 0 else 0.0

    def report(self):
        return {"where": self.where, "workers": self.slots, "busy_s": round(self.busy, 2),
                "wall_s": round(self.wall / max(1, self.slots), 2),
                "overhead": round(self.overhead(), 4)}

    def close(self):
        pass


class InProcess(Cluster):
    """Every unit in this process, in order: no Dask at all."""

    def run(self, fn, units, *shared):
        for i, unit in enumerate(units):
            start = time.perf_counter()
            result, seconds = _timed(fn, unit, *shared)
            self.busy += seconds
            self.wall += time.perf_counter() - start
            yield i, result


class Threads(Cluster):
    """Units on `n` threads of this process: for compiled units that release the GIL and are
    too small to be worth shipping to another process (a training batch of two positions
    takes milliseconds; a Dask round trip costs a few)."""

    def __init__(self, n=None):
        super().__init__()
        self.slots = n or default_workers()
        self.where = f"threads ({self.slots})"
        self.pool = ThreadPoolExecutor(self.slots)

    def run(self, fn, units, *shared):
        start = time.perf_counter()
        futures = {self.pool.submit(_timed, fn, unit, *shared): i for i, unit in enumerate(units)}
        try:
            for future in as_completed(futures):
                result, seconds = future.result()
                self.busy += seconds
                yield futures[future], result
        finally:
            for f in futures:
                f.cancel()
            self.wall += (time.perf_counter() - start) * self.slots

    def close(self):
        self.pool.shutdown()


class DaskCluster(Cluster):
    """Units as Dask tasks: on a LocalCluster of `workers` processes, or on the cluster whose
    scheduler is at `scheduler`."""

    remote = True

    def __init__(self, workers=None, scheduler=None):
        super().__init__()
        from distributed import Client, LocalCluster
        self.local = None
        if scheduler:
            self.client = Client(scheduler, timeout=30)
            self.where = scheduler
        else:
            # One thread per worker: the units hold the GIL between compiled calls and many
            # keep engine processes of their own; a dashboard on a free port when bokeh is
            # there (installed with dask[diagnostics]).
            workers = workers or default_workers()
            self.local = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      dashboard_address=":0", silence_logs=logging.ERROR)
            self.client = Client(self.local)
            self.where = f"local ({workers} processes)"
        self.slots = max(1, sum(self.client.nthreads().values()))

    @property
    def dashboard(self):
        return self.client.dashboard_link

    def share(self, obj):
        return self.client.scatter(obj, broadcast=True, hash=False)

    def run(self, fn, units, *shared):
        from distributed import as_completed as completed
        start = time.perf_counter()
        index = {}
        futures = []
        for i, unit in enumerate(units):
            # pure=False: equal units (e.g. two seeds that collide) are still separate tasks.
            f = self.client.submit(_timed, fn, unit, *shared, pure=False)
            index[f.key] = i
            futures.append(f)
        try:
            for future, (result, seconds) in completed(futures, with_results=True):
                self.busy += seconds
                yield index[future.key], result
        finally:
            # Units not collected (an error, an interrupt) are not left running.
            self.client.cancel([f for f in futures if not f.done()])
            self.slots = max(1, sum(self.client.nthreads().values()))
            self.wall += (time.perf_counter() - start) * self.slots

    def on_workers(self, fn, *args):
        self.client.run(fn, *args)

    def close(self):
        self.client.close()
        if self.local is not None:
            self.local.close()


def open_cluster(workers=None, scheduler=None):
    """The Cluster for the options `--workers N` (0: in this process; default one per core)
    and `--scheduler ADDRESS`."""
    if scheduler:
        return DaskCluster(scheduler=scheduler)
    workers = default_workers() if workers is None else workers
    if workers == 0:
        return InProcess()
    return DaskCluster(workers=workers)


@contextmanager
def cluster_for(workers=None, scheduler=None, log=None):
    """open_cluster for the length of a command; says where it runs (and the dashboard) on
    `log` (stderr), and closes the cluster whatever happens."""
    cluster = open_cluster(workers, scheduler)
    try:
        if log is not None and isinstance(cluster, DaskCluster):
            link = cluster.dashboard
            log(f"dask: {cluster.where}, {cluster.slots} workers"
                + (f", dashboard {link}" if link else ""))
        yield cluster
    finally:
        cluster.close()


def cluster_options(f):
    """The `--workers` and `--scheduler` options of every heavy command."""
    f = click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
                     help="Run on this Dask cluster instead of local worker processes.")(f)
    # --parallel: the name these commands had before they ran on Dask (old scripts keep working).
    return click.option("--workers", "--parallel", "workers", default=None,
                        type=click.IntRange(0),
                        help="Local Dask worker processes (default: one per core; 0: "
                             "everything in this process, for debugging).")(f)
