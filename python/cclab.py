# SPDX-License-Identifier: BSD-3-Clause
"""cclab from Python: a scenario's rows, ready for pandas.

A thin ctypes layer over libcclab (include/cclab.h), so the figures are the
command line's own: `cclab.run("scenarios/demo.yaml")` returns the rows
`cclab run scenarios/demo.yaml` prints, as dicts with the --csv file's
column names (size_bytes, count, time_us, algbw_gbps, busbw_gbps, wrong,
...), so `pandas.DataFrame(cclab.run(path))` is the table.

    import cclab
    rows = cclab.run("scenarios/demo.yaml", sets={"sizes.max": "64K"})
    for r in rows:
        print(r["size_bytes"], r["busbw_gbps"])

The library is found through $CCLAB_LIB (a path to libcclab.so.0), then
where make install put it (or a source tree's build/), then the
loader's path.
Errors raise cclab.Error with the library's message (file:line:col for a
bad scenario).
"""
import ctypes
import math
import os

__all__ = ["Error", "Scenario", "run", "version"]

_LIBDIR = "@LIBDIR@"  # make install writes the installed library's folder
_SONAME = "libcclab.so.0"
_ERRLEN = 512


class Error(Exception):
    """A scenario, schedule or run the library refused, with its message."""


class _ScheduleInfo(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("bytes", ctypes.c_uint64),
                ("count", ctypes.c_uint64), ("nranks", ctypes.c_uint),
                ("ops", ctypes.c_uint64), ("max_rank_ops", ctypes.c_uint64),
                ("qps", ctypes.c_uint64), ("algorithm", ctypes.c_char * 32),
                ("protocol", ctypes.c_char * 16), ("channels", ctypes.c_uint),
                ("chunk_bytes", ctypes.c_uint64)]


class _Row(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("bytes", ctypes.c_uint64),
                ("count", ctypes.c_uint64), ("time_us", ctypes.c_double),
                ("algbw_gbs", ctypes.c_double), ("busbw_gbs", ctypes.c_double),
                ("wrong", ctypes.c_uint64), ("checked", ctypes.c_int),
                ("ok", ctypes.c_int), ("error", ctypes.c_char * 256),
                ("max_rank_data_bytes", ctypes.c_uint64), ("events", ctypes.c_uint64)]


class _RunOpts(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("check", ctypes.c_int),
                ("wall_limit_ms", ctypes.c_uint64), ("cancel", ctypes.POINTER(ctypes.c_bool))]


_EXECUTORS = {"sim": 0, "data": 1}


def _candidates():
    env = os.environ.get("CCLAB_LIB")
    if env:
        yield env
        return
    if not _LIBDIR.startswith("@"):
        yield os.path.join(_LIBDIR, _SONAME)
    else:  # not installed: the source tree's build
        here = os.path.dirname(os.path.abspath(__file__))
        yield os.path.join(here, os.pardir, "build", _SONAME)
    yield _SONAME


def _load():
    errors = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as e:
            errors.append(str(e))
    else:
        raise Error("libcclab not found (set CCLAB_LIB to libcclab.so.0): " + "; ".join(errors))
    P, E = ctypes.c_void_p, ctypes.c_char_p
    lib.cclab_version.restype = ctypes.c_char_p
    lib.cclab_scenario_load.argtypes = [E, ctypes.POINTER(E), ctypes.c_uint,
                                        ctypes.POINTER(P), E, ctypes.c_size_t]
    lib.cclab_scenario_free.argtypes = [P]
    lib.cclab_scenario_free.restype = None
    lib.cclab_scenario_name.argtypes = [P]
    lib.cclab_scenario_name.restype = ctypes.c_char_p
    lib.cclab_scenario_collective.argtypes = [P]
    lib.cclab_scenario_collective.restype = ctypes.c_char_p
    lib.cclab_scenario_nranks.argtypes = [P]
    lib.cclab_scenario_nranks.restype = ctypes.c_uint
    lib.cclab_scenario_sizes.argtypes = [P, ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
    lib.cclab_scenario_sizes.restype = ctypes.c_size_t
    lib.cclab_schedule_build.argtypes = [P, ctypes.c_uint64, ctypes.POINTER(P), E,
                                         ctypes.c_size_t]
    lib.cclab_schedule_free.argtypes = [P]
    lib.cclab_schedule_free.restype = None
    lib.cclab_schedule_info.argtypes = [P, ctypes.POINTER(_ScheduleInfo)]
    lib.cclab_run.argtypes = [P, P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(_Row), E,
                              ctypes.c_size_t]
    lib.cclab_run_size.argtypes = [P, ctypes.c_uint64, ctypes.c_int, ctypes.POINTER(_Row), E,
                                   ctypes.c_size_t]
    lib.cclab_run_with.argtypes = [P, P, ctypes.c_int, ctypes.POINTER(_RunOpts),
                                   ctypes.POINTER(_Row), E, ctypes.c_size_t]
    return lib


_lib = None


def _L():
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib


def version():
    """The library's version, "0.1.0"."""
    return _L().cclab_version().decode()


def _none_if_nan(x):
    return None if math.isnan(x) else x


class Scenario:
    """A loaded scenario file (docs/yaml.md), with --set style overrides."""

    def __init__(self, path, sets=None):
        lib = _L()
        items = [f"{k}={v}" for k, v in (sets or {}).items()]
        arr = (ctypes.c_char_p * max(len(items), 1))(*[s.encode() for s in items])
        err = ctypes.create_string_buffer(_ERRLEN)
        handle = ctypes.c_void_p()
        rc = lib.cclab_scenario_load(os.fsencode(path), arr, len(items), ctypes.byref(handle),
                                     err, _ERRLEN)
        if rc:
            raise Error(err.value.decode(errors="replace"))
        self._h = handle

    def _handle(self):
        if not getattr(self, "_h", None):
            raise Error("the scenario is closed")
        return self._h

    def close(self):
        if getattr(self, "_h", None):
            _L().cclab_scenario_free(self._h)
            self._h = None

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def name(self):
        return _L().cclab_scenario_name(self._handle()).decode()

    @property
    def collective(self):
        return _L().cclab_scenario_collective(self._handle()).decode()

    @property
    def nranks(self):
        return _L().cclab_scenario_nranks(self._handle())

    def sizes(self):
        """The sizes (bytes) the scenario's loop runs, in order."""
        n = _L().cclab_scenario_sizes(self._handle(), None, 0)
        arr = (ctypes.c_uint64 * n)()
        _L().cclab_scenario_sizes(self._handle(), arr, n)
        return list(arr)

    def schedule(self, size):
        """What one size's schedule holds: ops, QPs, algorithm, protocol, ..."""
        lib = _L()
        err = ctypes.create_string_buffer(_ERRLEN)
        s = ctypes.c_void_p()
        if lib.cclab_schedule_build(self._handle(), size, ctypes.byref(s), err, _ERRLEN):
            raise Error(err.value.decode(errors="replace"))
        try:
            info = _ScheduleInfo(size=ctypes.sizeof(_ScheduleInfo))
            lib.cclab_schedule_info(s, ctypes.byref(info))
        finally:
            lib.cclab_schedule_free(s)
        return {"size_bytes": info.bytes, "count": info.count, "nranks": info.nranks,
                "ops": info.ops, "max_rank_ops": info.max_rank_ops, "qps": info.qps,
                "algorithm": info.algorithm.decode(), "protocol": info.protocol.decode(),
                "channels": info.channels, "chunk_bytes": info.chunk_bytes}

    def run_size(self, size, executor="sim", wall_limit_s=None):
        """One size on the simulator ("sim") or the data executor ("data");
        wall_limit_s stops a simulation after that much real time (the row
        then has ok False and the reason in error)."""
        if executor not in _EXECUTORS:
            raise Error(f"executor {executor!r}: sim or data")
        lib = _L()
        err = ctypes.create_string_buffer(_ERRLEN)
        sched = ctypes.c_void_p()
        if lib.cclab_schedule_build(self._handle(), size, ctypes.byref(sched), err, _ERRLEN):
            raise Error(err.value.decode(errors="replace"))
        row = _Row(size=ctypes.sizeof(_Row))
        opts = _RunOpts(size=ctypes.sizeof(_RunOpts), check=-1,
                        wall_limit_ms=int(wall_limit_s * 1000) if wall_limit_s else 0)
        try:
            rc = lib.cclab_run_with(self._handle(), sched, _EXECUTORS[executor],
                                    ctypes.byref(opts), ctypes.byref(row), err, _ERRLEN)
        finally:
            lib.cclab_schedule_free(sched)
        if rc:
            raise Error(err.value.decode(errors="replace"))
        return {"scenario": self.name, "executor": executor, "collective": self.collective,
                "nranks": self.nranks, "size_bytes": row.bytes, "count": row.count,
                "time_us": _none_if_nan(row.time_us),
                "algbw_gbps": _none_if_nan(row.algbw_gbs),
                "busbw_gbps": _none_if_nan(row.busbw_gbs),
                "wrong": row.wrong if row.checked else None, "ok": bool(row.ok),
                "error": row.error.decode(errors="replace"),
                "max_rank_data_bytes": row.max_rank_data_bytes, "events": row.events}

    def run(self, executor="sim"):
        """Every size of the scenario, as rows."""
        return [self.run_size(size, executor) for size in self.sizes()]


def run(path, sets=None, executor="sim"):
    """The rows of `cclab run PATH` for one executor, as dicts."""
    with Scenario(path, sets) as sc:
        return sc.run(executor)
