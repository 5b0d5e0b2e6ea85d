"""Pitwall client for Python: push a run's progress, counters, metrics, artifacts and events to a
Pitwall server from any script (extraction loops, training, generation).

One file, standard library only, Python 3.9+: copy it next to your script (air-gapped GPU hosts
included) and::

    from pitwall import Pitwall

    pw = Pitwall()  # reads PITWALL_URL and PITWALL_TOKEN
    with pw.run(kind="extraction", name="hidden states 914K", total=914000, unit="samples") as run:
        for i, sample in enumerate(samples):
            ...
            run.progress(i + 1, counters={"s3.uploaded": n_up, "s3.inflight": k})
            run.metrics(i, loss=0.5)

Calls never wait on the network. Frames (wire protocol v1, lib/protocol/frames.ts in the Pitwall
repository) go to a bounded in-memory queue that a background daemon thread sends in batches to
``POST {url}/api/ingest``, retrying with exponential backoff while the server is unreachable.
Delivery is at-least-once and the server deduplicates frames by id, so nothing is stored twice.
Problems are reported through the ``logging`` logger named ``"pitwall"``, never raised into the
loop; only arguments that can never be valid (an unknown run kind, a bad counter name, a step
that is not an integer) raise ``ValueError``/``TypeError``, on their first use.
"""

import atexit
import http.client
import itertools
import json
import logging
import math
import operator
import os
import random
import re
import socket
import sys
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
import uuid
import weakref
from collections import deque
from typing import Any, Callable, Deque, Dict, List, Mapping, NamedTuple, Optional, Sequence, Set, Tuple

__version__ = "0.1.0"
"""Version of this client (sent in the ``hello`` frame as ``pitwall-py/<version>``)."""

PROTOCOL_VERSION = 1
"""Wire protocol version of every frame (``v``)."""

CLIENT_NAME = "pitwall-py/" + __version__

BOOT_ID = str(uuid.uuid4())
"""Identifies this process (``bootId``): counters are cumulative per boot, so a restarted worker
gets a new one and the server keeps run totals monotonic across the restart."""

RUN_KINDS = ("benchmark", "extraction", "generation", "training", "eval", "serving")
END_STATUSES = ("succeeded", "failed", "cancelled", "ended")
EVENT_LEVELS = ("debug", "info", "warn", "error")

DEFAULT_MAX_QUEUE_FRAMES = 100_000
"""Default bound on frames held in memory (queued + being sent). Typical frames are 150-400
bytes, so the default holds about 15-40 MB; ``max_queue_bytes`` bounds the bytes as well."""
DEFAULT_MAX_QUEUE_BYTES = 64 * 1024 * 1024
"""Default bound on the serialised size of frames held in memory, in bytes (64 MiB)."""
DEFAULT_MAX_BATCH_FRAMES = 1000
"""Default largest number of frames per HTTP request (the server accepts 10,000)."""
DEFAULT_MAX_BATCH_BYTES = 1024 * 1024
"""Default largest HTTP request body in bytes (1 MiB; the server accepts 16 MiB)."""

__all__ = [
    "init",
    "log",
    "log_metrics",
    "progress",
    "event",
    "artifact",
    "finish",
    "current_run",
    "sync",
    "main",
    "default_spool_root",
    "Pitwall",
    "Run",
    "FrameError",
    "SpoolLockedError",
    "BOOT_ID",
    "PROTOCOL_VERSION",
    "RUN_KINDS",
    "END_STATUSES",
    "EVENT_LEVELS",
    "__version__",
]

_logger = logging.getLogger("pitwall")

_MAX_SAFE_INT = 2**53 - 1
_STEP_MIN = -(2**63)
_STEP_MAX = 2**63 - 1
_MAX_METRIC_POINTS_PER_FRAME = 10_000
_COUNTER_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.\-/]*")
_HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_checked_counter_names: Set[str] = set()
_BASE_BACKOFF_S = 0.5
_DOWN_LOG_EVERY_S = 60.0
_MAX_ERROR_LOGS_PER_MINUTE = 10
_KEEP_ERRORS = 1000


class FrameError(NamedTuple):
    """A frame the server rejected (it is not retried): its id, type, run key, error code
    (``invalid_frame``, ``unknown_run``, ...; see docs/protocol.md) and message."""

    frame_id: str
    frame_type: str
    run: Optional[str]
    code: str
    message: str


class _Frame:
    """One serialised frame waiting in the queue. ``seq`` orders frames; ``progress`` holds the
    frame as a dict for run.progress frames so that they can be coalesced. With a spool,
    ``seg``/``offset`` say where its line is; ``text`` is None while it is paged out to disk."""

    __slots__ = ("seq", "id", "type", "run", "owner", "text", "size", "progress", "seg", "offset")

    def __init__(self, obj: Optional[Dict[str, Any]], owner: "Optional[Run]" = None, *,
                 raw: Optional[Tuple[str, str, Optional[str], str]] = None) -> None:
        self.seq = 0
        self.owner = owner
        self.seg: "Optional[_Segment]" = None
        self.offset = 0
        if raw is not None:  # (id, type, run, text) already serialised
            self.id, self.type, self.run, text = raw
            self.text: Optional[str] = text
            self.progress: Optional[Dict[str, Any]] = None
        else:
            assert obj is not None
            self.id = obj["id"]
            self.type = obj["type"]
            self.run = obj.get("run")
            self.text = _dumps(obj)
            self.progress = obj if self.type == "run.progress" else None
        self.size = len(self.text)


def _dumps(obj: Any) -> str:
    # allow_nan (the default) writes bare NaN / Infinity / -Infinity, which Pitwall accepts.
    return json.dumps(obj, separators=(",", ":"), default=_json_default)


def _json_default(value: Any) -> Any:
    """Makes config values JSON-friendly: numpy scalars/arrays via item()/tolist(), sets as lists,
    anything else as its str()."""
    for attr in ("item", "tolist"):
        fn = getattr(value, attr, None)
        if callable(fn):
            try:
                return fn()
            except (TypeError, ValueError):
                pass
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    return str(value)


def _now_ms() -> int:
    return int(time.time() * 1000)


_id_prefix = str(uuid.uuid4())[:24]
_id_counter = itertools.count(random.getrandbits(40))


def _new_id() -> str:
    """A frame id in uuid form: 74 random bits per process, then a counter (cheaper than uuid4
    per frame, unique per process; renewed after fork)."""
    return "%s%012x" % (_id_prefix, next(_id_counter) & 0xFFFFFFFFFFFF)


def _renew_id_prefix() -> None:
    global _id_prefix, _id_counter
    _id_prefix = str(uuid.uuid4())[:24]
    _id_counter = itertools.count(random.getrandbits(40))


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _default_worker_id() -> str:
    host = socket.gethostname().split(".")[0] or "host"
    return _truncate("{}-{}".format(host, os.getpid()), 100)


def _slot_worker_id(slot: int) -> str:
    host = socket.gethostname().split(".")[0] or "host"
    return _truncate(host if slot == 0 else "{}.{}".format(host, slot), 100)


def _check_counter_name(name: Any) -> None:
    if not isinstance(name, str) or len(name) > 100 or not _COUNTER_NAME.fullmatch(name):
        raise ValueError(
            "invalid counter name {!r}: start with a letter, then letters, digits, '.', '_', '-', '/' "
            "(at most 100 characters)".format(name)
        )
    _checked_counter_names.add(name)


def _step(step: Any) -> Any:
    """A 64-bit step as the protocol wants it: an int, or a decimal string beyond 2^53."""
    if isinstance(step, bool):
        raise TypeError("step must be an integer, not a bool")
    if isinstance(step, float):
        if not step.is_integer():
            raise TypeError("step must be an integer, got {!r}".format(step))
        value = int(step)
    else:
        try:
            value = operator.index(step)
        except TypeError:
            raise TypeError("step must be an integer, got {}".format(type(step).__name__)) from None
    if value < _STEP_MIN or value > _STEP_MAX:
        raise ValueError("step {} is outside the signed 64-bit range".format(value))
    return value if -_MAX_SAFE_INT <= value <= _MAX_SAFE_INT else str(value)


def _as_number(value: Any) -> Optional[float]:
    """int/float (numpy scalars, 0-d tensors) as a number, or None when it is not one."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


_FLOAT_REPR = float.__repr__
_key_fragments: Dict[Any, str] = {}


def _key_fragment(key: Any) -> str:
    """``{"key":<key>,"step":`` for a valid metric key (cached; at most 100,000 keys)."""
    if not isinstance(key, str) or not 1 <= len(key) <= 200:
        raise ValueError("metric keys are strings of 1 to 200 characters, got {!r}".format(key))
    frag = '{"key":' + json.dumps(key) + ',"step":'
    if len(_key_fragments) < 100_000:
        _key_fragments[key] = frag
    return frag


def _non_finite_text(value: float) -> str:
    # Bare tokens, as json.dumps writes them and the server accepts.
    if value != value:
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


class _LogThrottle:
    """At most ``limit`` log lines per key per minute; says how many were suppressed."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._windows: Dict[str, List[float]] = {}

    def allow(self, key: str, now: float) -> Tuple[bool, int]:
        window = self._windows.setdefault(key, [now, 0.0, 0.0])  # start, logged, suppressed
        if now - window[0] >= 60.0:
            suppressed = int(window[2])
            window[0], window[1], window[2] = now, 0.0, 0.0
        else:
            suppressed = 0
        if window[1] < self._limit:
            window[1] += 1
            return True, suppressed
        window[2] += 1
        return False, 0


# --------------------------------------------------------------------------------------------
# Spool: frames on local disk before the call returns


DEFAULT_MAX_SPOOL_BYTES = 1024 ** 3
"""Default bound on a client's spool on disk, in bytes (1 GiB). Over it the oldest run.metrics
and run.event frames are dropped (with a warning); run.start and run.end never are."""
_SEGMENT_BYTES = 16 * 1024 * 1024
_SEGMENT = re.compile(r"seg-(\d{8})\.jsonl")
_FSYNC_EVERY_S = 1.0
_RECOVER_IN_MEMORY_BYTES = 16 * 1024 * 1024


class SpoolLockedError(RuntimeError):
    """Another live process holds the spool folder."""


class _Segment:
    """One append-only spool file ``seg-NNNNNNNN.jsonl``: one frame per line, exactly the JSON
    sent on the wire. Deleted once every frame in it is settled (acked, rejected or dropped)."""

    __slots__ = ("path", "fd", "size", "live", "dirty", "active")

    def __init__(self, path: str, fd: int, size: int) -> None:
        self.path = path
        self.fd = fd
        self.size = size
        self.live = 0
        self.dirty = False
        self.active = False


class _Spool:
    """A spool folder held (locked) by one client. Layout: ``seg-00000001.jsonl``... (frames in
    the order they were made, one per line) and ``lock`` (``{"pid", "host"}`` of the holder).
    A frame is pending while its segment exists: a new holder resends every frame of every
    segment (the server deduplicates by id, so ones acked before are only acked again). A line
    cut short by a kill mid-write is skipped (that frame's call never returned). Not
    thread-safe: the client calls it with its lock held, except :meth:`sync`."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        #: Which of the run key's folders this is (0 for ``<key>``, n for ``<key>.<n>``).
        self.slot = 0
        os.makedirs(folder, exist_ok=True)
        _take_lock(folder)
        self.segments: List[_Segment] = []
        self.total_bytes = 0
        self.skipped_lines = 0
        self.recovered: List[_Frame] = []
        self._loaded_bytes = 0
        self._closed = False
        last = 0
        for name in sorted(os.listdir(folder)):
            m = _SEGMENT.fullmatch(name)
            if not m:
                continue
            last = max(last, int(m.group(1)))
            path = os.path.join(folder, name)
            fd = os.open(path, os.O_RDWR)
            seg = _Segment(path, fd, os.fstat(fd).st_size)
            self._load(seg)
            if seg.live:
                self.segments.append(seg)
                self.total_bytes += seg.size
            else:
                os.close(fd)
                os.unlink(path)
        self._next = last + 1
        self.active = self._new_segment()

    def _load(self, seg: _Segment) -> None:
        with open(seg.fd, "rb", closefd=False) as f:
            offset = 0
            for line in f:
                start = offset
                offset += len(line)
                if not line.endswith(b"\n"):
                    self.skipped_lines += 1  # cut short by a kill mid-write: never returned to the caller
                    continue
                try:
                    text = line[:-1].decode("utf-8")
                    obj = json.loads(text)
                    raw = (str(obj["id"]), str(obj["type"]), obj.get("run"), text)
                except (ValueError, KeyError, TypeError, UnicodeDecodeError):
                    self.skipped_lines += 1
                    continue
                frame = _Frame(None, raw=raw)
                if raw[1] == "run.progress":
                    frame.progress = obj
                elif self._loaded_bytes > _RECOVER_IN_MEMORY_BYTES:
                    frame.text = None  # read back from disk when its turn comes
                self._loaded_bytes += frame.size
                frame.seg, frame.offset = seg, start
                seg.live += 1
                self.recovered.append(frame)

    def _new_segment(self) -> _Segment:
        path = os.path.join(self.folder, "seg-%08d.jsonl" % self._next)
        self._next += 1
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        seg = _Segment(path, fd, 0)
        seg.active = True
        self.segments.append(seg)
        return seg

    def append(self, frame: _Frame) -> None:
        """Writes the frame's line (one write(2): in the page cache when this returns, so a
        killed process loses nothing; fsync comes within a second, from :meth:`sync`)."""
        seg = self.active
        if seg.size >= _SEGMENT_BYTES:
            seg.active = False
            if seg.live == 0:
                self._drop(seg)
            seg = self.active = self._new_segment()
        data = (frame.text + "\n").encode("utf-8")  # type: ignore[operator]
        os.write(seg.fd, data)
        frame.seg, frame.offset = seg, seg.size
        seg.size += len(data)
        seg.live += 1
        seg.dirty = True
        self.total_bytes += len(data)

    def read(self, frame: _Frame) -> str:
        """The text of a paged-out frame, read back from its segment."""
        assert frame.seg is not None
        data = os.pread(frame.seg.fd, frame.size * 4 + 1, frame.offset)
        end = data.find(b"\n")
        return data[: end if end >= 0 else len(data)].decode("utf-8")

    def settle(self, frame: _Frame) -> None:
        """The frame no longer needs its line (acked, rejected, dropped or coalesced)."""
        seg = frame.seg
        if seg is None:
            return
        frame.seg = None
        seg.live -= 1
        if seg.live <= 0 and not seg.active:
            self._drop(seg)

    def _drop(self, seg: _Segment) -> None:
        if seg in self.segments:
            self.segments.remove(seg)
            self.total_bytes -= seg.size
        try:
            os.close(seg.fd)
        except OSError:
            pass
        try:
            os.unlink(seg.path)
        except OSError:
            pass

    def dirty_fds(self) -> List[int]:
        fds = [s.fd for s in self.segments if s.dirty]
        for s in self.segments:
            s.dirty = False
        return fds

    def close(self) -> None:
        """Releases the folder; segments holding unsettled frames stay for the next holder
        (same run key) or ``python -m pitwall sync``. An empty folder is removed."""
        if self._closed:
            return
        self._closed = True
        for seg in list(self.segments):
            if seg.live <= 0:
                self._drop(seg)
            else:
                try:
                    os.fsync(seg.fd)
                    os.close(seg.fd)
                except OSError:
                    pass
        _release_lock(self.folder)
        try:
            os.rmdir(self.folder)
        except OSError:
            pass


def _take_lock(folder: str) -> None:
    path = os.path.join(folder, "lock")
    me = json.dumps({"pid": os.getpid(), "host": socket.gethostname()})
    for _ in range(3):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            with os.fdopen(fd, "w") as f:
                f.write(me)
            return
        except FileExistsError:
            pass
        holder: Dict[str, Any] = {}
        try:
            with open(path, encoding="utf-8") as f:
                holder = json.load(f)
        except (OSError, ValueError):
            pass  # unreadable or half-written: stale
        pid = holder.get("pid") if isinstance(holder, dict) else None
        if isinstance(pid, int) and (holder.get("host") != socket.gethostname() or pid == os.getpid() or _alive(pid)):
            raise SpoolLockedError("spool folder {} is in use by process {} on {}".format(folder, pid, holder.get("host")))
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
    raise SpoolLockedError("spool folder {} changed hands while taking it".format(folder))


def _release_lock(folder: str) -> None:
    try:
        os.unlink(os.path.join(folder, "lock"))
    except OSError:
        pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except PermissionError:
        return True
    except OSError:
        return False


def default_spool_root() -> str:
    """Where spools live unless told otherwise: ``$PITWALL_SPOOL_DIR``, else
    ``$XDG_CACHE_HOME/pitwall/spool`` (``~/.cache/pitwall/spool``)."""
    root = os.environ.get("PITWALL_SPOOL_DIR")
    if root:
        return root
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "pitwall", "spool")


def _open_spool_for_key(root: str, key: str) -> _Spool:
    """Opens ``<root>/<run key>`` (characters outside ``[A-Za-z0-9._-]`` become ``_``), or
    ``<key>.1``, ``<key>.2``... when a live process holds it (several workers of one run). A
    restarted worker takes over its dead predecessor's folder and resends what it left."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", key)[:150] or "run"
    for n in range(1000):
        folder = os.path.join(root, safe if n == 0 else "{}.{}".format(safe, n))
        try:
            spool = _Spool(folder)
        except SpoolLockedError:
            continue
        spool.slot = n
        return spool
    raise SpoolLockedError("no free spool folder for run {!r} under {}".format(key, root))


def _spool_folders(path: str) -> List[str]:
    """``path`` itself when it holds segments, else its sub-folders that do."""
    def has_segments(folder: str) -> bool:
        try:
            return any(_SEGMENT.fullmatch(n) for n in os.listdir(folder))
        except OSError:
            return False
    if has_segments(path):
        return [path]
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return []
    return [os.path.join(path, n) for n in names if has_segments(os.path.join(path, n))]


_instances: "weakref.WeakSet[Pitwall]" = weakref.WeakSet()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirected POST would turn into a GET and lose its body: surface the redirect instead."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


class Pitwall:
    """A connection to one Pitwall server: owns the frame queue and the background sender.

    ``url`` and ``token`` default to the ``PITWALL_URL`` and ``PITWALL_TOKEN`` environment
    variables (a worker token: ``npx pitwall token create <host>``).

    Keyword arguments (times in seconds, sizes in bytes):

    - ``worker_id``: names this worker within a run (``run.progress`` ``workerId``, at most 100
      characters). Default: with a spool (the default), ``<short hostname>`` for the first live
      process of a run key on this host and ``<short hostname>.<n>`` for the n-th concurrent one
      (the spool folder it holds), so a restarted job continues its worker's progress and
      counters; without a spool ``<short hostname>-<pid>``. Pass one (``"gpu0"``) to choose.
    - ``boot_id``: this process's boot id (default :data:`BOOT_ID`, a uuid per process).
    - ``min_interval_s``: at most one ``run.progress`` frame per run per interval (default 1 s);
      the latest reading is always sent on flush and when the run ends.
    - ``flush_timeout_s``: how long leaving a ``with`` block, :meth:`Run.end`, :meth:`flush` and
      interpreter exit wait for the queue to drain (default 30 s).
    - ``request_timeout_s``: timeout of one HTTP request (default 30 s).
    - ``max_queue_frames`` / ``max_queue_bytes``: memory bound of the queue (default 100,000
      frames / 64 MiB). Over the bound, run.progress frames are first coalesced (only the latest
      reading per run, worker and boot is kept); only if that is not enough are the oldest
      run.metrics and run.event frames, then run.artifact frames, dropped, with a warning.
      run.start and run.end frames are never dropped.
    - ``max_batch_frames`` / ``max_batch_bytes``: largest HTTP request (default 1000 frames /
      1 MiB).
    - ``max_backoff_s``: longest wait between retries while the server is unreachable (default
      30 s); waits grow from 0.5 s, doubling, with random jitter.
    - ``clock``: monotonic seconds, for tests (default ``time.monotonic``).
    - ``spool``: keep every frame on local disk until the server has acknowledged it (see the
      README, "Spool"): ``True`` for :func:`default_spool_root`, a folder to use as the root,
      or ``False``/``None`` (default: on when ``PITWALL_SPOOL_DIR`` is set). Each run key gets
      a folder under the root; a restart with the same run key resends what was left.
    - ``max_spool_bytes``: disk bound of the spool (default 1 GiB). With a spool, frames over
      the memory bound are paged out to disk instead of dropped; only over this bound are the
      oldest run.metrics and run.event frames dropped.
    - ``give_up_after``: a request answered HTTP 500 (a server error, not an outage: those are
      502/503/504 or no answer) is retried in smaller batches until the failing frame is alone;
      once that frame alone was answered 500 this many times in a row (default 5; 0 never), it is
      given up on: recorded in :attr:`errors` with code ``gave_up``, one warning logged, and the
      frames behind it are sent.

    ``url`` may list several servers separated by commas (``http://a:8080,http://b:8080``,
    instances sharing one database): on a connection error or HTTP 5xx the next one is tried.
    Frame ids stay the same, so a frame committed by one instance is only acked by another.

    :raises ValueError: when no URL or token is given or set, or a URL is not http(s).
    """

    def __init__(
        self,
        url: Optional[str] = None,
        token: Optional[str] = None,
        *,
        worker_id: Optional[str] = None,
        boot_id: Optional[str] = None,
        min_interval_s: float = 1.0,
        flush_timeout_s: float = 30.0,
        request_timeout_s: float = 30.0,
        max_queue_frames: int = DEFAULT_MAX_QUEUE_FRAMES,
        max_queue_bytes: int = DEFAULT_MAX_QUEUE_BYTES,
        max_batch_frames: int = DEFAULT_MAX_BATCH_FRAMES,
        max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
        max_backoff_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        give_up_after: int = 5,
        spool: Any = None,
        max_spool_bytes: int = DEFAULT_MAX_SPOOL_BYTES,
    ) -> None:
        url = url if url is not None else os.environ.get("PITWALL_URL", "")
        token = token if token is not None else os.environ.get("PITWALL_TOKEN", "")
        if not url:
            raise ValueError("no Pitwall URL: pass url= or set PITWALL_URL (e.g. http://pitwall-host:8080)")
        urls = [u.strip().rstrip("/") for u in url.split(",") if u.strip()]
        for u in urls:
            if not u.startswith(("http://", "https://")) or not urllib.parse.urlsplit(u).netloc:
                raise ValueError("Pitwall URL must look like http(s)://host:port, got {!r}".format(u))
        if not urls:
            raise ValueError("no Pitwall URL: pass url= or set PITWALL_URL (e.g. http://pitwall-host:8080)")
        if not token:
            raise ValueError("no Pitwall token: pass token= or set PITWALL_TOKEN (npx pitwall token create <host>)")
        self.urls: List[str] = urls
        """Every server URL given, in failover order."""
        self._url_index = 0
        self._failovers_in_row = 0
        self._token = token
        self.worker_id = _truncate(worker_id, 100) if worker_id else _default_worker_id()
        # A default worker id follows the spool slot once a run opens one (see run()).
        self._worker_id_given = bool(worker_id)
        self.boot_id = boot_id or BOOT_ID
        self.min_interval_s = float(min_interval_s)
        self.flush_timeout_s = float(flush_timeout_s)
        self.request_timeout_s = float(request_timeout_s)
        self.max_queue_frames = max(10, int(max_queue_frames))
        self.max_queue_bytes = max(64 * 1024, int(max_queue_bytes))
        self.max_batch_frames = max(1, min(10_000, int(max_batch_frames)))
        self.max_batch_bytes = max(1024, min(16 * 1024 * 1024, int(max_batch_bytes)))
        self.max_backoff_s = max(_BASE_BACKOFF_S, float(max_backoff_s))
        self._clock = clock
        self.give_up_after = max(0, int(give_up_after))
        self._poison_id: Optional[str] = None
        self._poison_strikes = 0

        self.errors: Deque[FrameError] = deque(maxlen=_KEEP_ERRORS)
        """Frames the server rejected, latest last (at most 1000 kept)."""
        self.sent_frames = 0
        """Frames the server accepted (including ones it had already stored)."""
        self.rejected_frames = 0
        """Frames the server rejected; see :attr:`errors`."""
        self.coalesced_frames = 0
        """run.progress frames merged into a later one because the queue was full."""
        self.dropped_frames = 0
        """Frames dropped because the queue stayed full (logged as warnings)."""
        self.last_error: Optional[str] = None
        """The last transport problem (unreachable, HTTP status), or None after a success."""

        if spool is None:
            spool = bool(os.environ.get("PITWALL_SPOOL_DIR"))
        self.spool_root: Optional[str] = None
        """Root folder of this client's spool, or None without a spool."""
        if spool is True:
            self.spool_root = default_spool_root()
        elif spool:
            self.spool_root = os.fspath(spool)
        self.max_spool_bytes = max(1024 * 1024, int(max_spool_bytes))
        self._spool: Optional[_Spool] = None
        self._fsync_thread: Optional[threading.Thread] = None
        self._disk_check_at = self.max_spool_bytes

        self._opener = urllib.request.build_opener(_NoRedirect())
        self._init_sync()
        self._queue: Deque[_Frame] = deque()
        self._inflight: List[_Frame] = []
        self._held_bytes = 0
        self._seq = 0
        self._compact_frames_at = self.max_queue_frames
        self._compact_bytes_at = self.max_queue_bytes
        self._runs: List[Run] = []
        self._hello_sent = False
        self._closed = False
        self._stopping = False
        self._wake = False
        self._idle = False  # the sender waits for frames (not for a retry): pushes must wake it
        self._retry_at = 0.0
        self._failures = 0
        self._down_since: Optional[float] = None
        self._last_down_log = 0.0
        self._batch_cap = self.max_batch_frames
        self._throttle = _LogThrottle(_MAX_ERROR_LOGS_PER_MINUTE)
        _instances.add(self)

    @property
    def url(self) -> str:
        """The server URL in use (the first of :attr:`urls` until a failover)."""
        return self.urls[self._url_index]

    @property
    def _ingest_url(self) -> str:
        return self.urls[self._url_index] + "/api/ingest"

    @property
    def spool_folder(self) -> Optional[str]:
        """The spool folder this client writes to (opened at its first run), or None."""
        return self._spool.folder if self._spool is not None else None

    def _init_sync(self) -> None:
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._thread: Optional[threading.Thread] = None

    # ----------------------------------------------------------------------------------------
    # Public API

    def run(
        self,
        kind: str,
        name: str,
        *,
        key: Optional[str] = None,
        total: Optional[int] = None,
        unit: Optional[str] = None,
        config: Optional[Mapping[str, Any]] = None,
        tags: Optional[Sequence[str]] = None,
        notes: Optional[str] = None,
        host: Optional[str] = None,
        stall_after_s: Optional[int] = None,
        worker_id: Optional[str] = None,
    ) -> "Run":
        """Starts a run (queues ``run.start``) and returns it; use it as a context manager to end
        it with ``succeeded``/``failed`` automatically.

        ``kind``: one of :data:`RUN_KINDS`. ``key``: the run's client key (at most 200 chars);
        default ``<kind>-<uuid4>``; pass the same key again (e.g. after a restart) to continue a
        run. ``total``: expected items in all; ``unit``: what the items are (``samples``).
        ``config``: JSON-like settings (model, engine, flags). ``host``: where the work runs
        (default the token's host). ``stall_after_s``: seconds without a push after which the
        run shows as stale (5 s .. 7 days, server default 120). ``worker_id`` overrides the
        client's for this run.

        :raises ValueError: for an unknown kind, an empty name, a key over 200 characters, a bad
            host name or a stall_after_s out of range.
        """
        if kind not in RUN_KINDS:
            raise ValueError("kind must be one of {}, got {!r}".format(", ".join(RUN_KINDS), kind))
        name = _truncate(str(name).strip(), 300)
        if not name:
            raise ValueError("a run needs a non-empty name")
        key = key if key is not None else "{}-{}".format(kind, uuid.uuid4())
        if not isinstance(key, str) or not 1 <= len(key) <= 200:
            raise ValueError("run key must be a string of 1 to 200 characters")
        frame: Dict[str, Any] = {"v": PROTOCOL_VERSION, "id": _new_id(), "type": "run.start", "run": key, "name": name, "kind": kind,
                 "startedAt": _now_ms()}
        if host is not None:
            if len(host) > 100 or not _HOST_NAME.fullmatch(host):
                raise ValueError("invalid host name {!r}: letters, digits, '.', '_' and '-'".format(host))
            frame["host"] = host
        if total is not None:
            count = _count_or_none(total)
            if count is None:
                raise ValueError("total must be a non-negative integer, got {!r}".format(total))
            frame["total"] = count
        if unit is not None:
            frame["unit"] = _truncate(str(unit), 50)
        if config is not None:
            frame["config"] = dict(config)
        if tags is not None:
            frame["tags"] = [_truncate(str(t), 100) for t in tags if str(t)][:50]
        if notes is not None:
            frame["notes"] = _truncate(str(notes), 10_000)
        if stall_after_s is not None:
            if not 5 <= int(stall_after_s) <= 7 * 86_400:
                raise ValueError("stall_after_s must be between 5 s and 7 days")
            frame["stallAfterS"] = int(stall_after_s)
        start = _Frame(frame)
        frames = [start]
        with self._cond:
            if self.spool_root is not None and self._spool is None and not self._closed:
                self._open_spool_locked(key, frames)
                if self._spool is not None and not self._worker_id_given:
                    # The worker a restarted process continues: the spool slot it takes over
                    # (slot 0 is <host>; concurrent processes of one run hold .1, .2 ...), so a
                    # resumed job's progress and counters continue its predecessor's instead of
                    # counting next to them as another worker.
                    self.worker_id = _slot_worker_id(self._spool.slot)
            wid = _truncate(worker_id, 100) if worker_id else self.worker_id
            run = Run(self, key, name, kind, wid)
            start.owner = run
            if not self._hello_sent:
                self._hello_sent = True
                hello = {"v": PROTOCOL_VERSION, "id": _new_id(), "type": "hello", "client": CLIENT_NAME,
                         "workerId": self.worker_id}
                frames.insert(0, _Frame(hello))  # then what a dead predecessor left, then this run.start
            self._runs.append(run)
            self._push_locked(frames)
        return run

    def _open_spool_locked(self, key: str, frames: List[_Frame]) -> None:
        """Opens the run's spool folder and queues what a dead predecessor left in it, right
        after ``hello`` (before this run's own frames). A spool that cannot be opened (disk
        full, permissions) leaves the client memory-only, with an error logged."""
        assert self.spool_root is not None
        try:
            spool = _open_spool_for_key(self.spool_root, key)
        except (OSError, SpoolLockedError) as err:
            _logger.error("pitwall: cannot open a spool under %s (%s); frames are kept in memory only", self.spool_root, err)
            self.spool_root = None
            return
        self._attach_spool_locked(spool, frames)

    def _attach_spool_locked(self, spool: "_Spool", frames: List[_Frame]) -> None:
        self._spool = spool
        if spool.recovered:
            _logger.warning("pitwall: resending %d frame(s) left in %s by an earlier process%s", len(spool.recovered), spool.folder,
                        " ({} cut-short line(s) skipped)".format(spool.skipped_lines) if spool.skipped_lines else "")
            at = 1 if frames and frames[0].type == "hello" else 0
            frames[at:at] = spool.recovered
            spool.recovered = []
        thread = threading.Thread(target=self._fsync_main, name="pitwall-fsync", daemon=True)
        thread.start()
        self._fsync_thread = thread

    def _fsync_main(self) -> None:
        # fsync batched: at most once a second, off the caller's thread, never holding the lock
        # during the fsync itself (a slow disk must not stall the training loop).
        while True:
            time.sleep(_FSYNC_EVERY_S)
            with self._cond:
                spool = self._spool
                if spool is None or spool._closed:
                    return
                fds = spool.dirty_fds()
            for fd in fds:
                try:
                    os.fsync(fd)
                except OSError:
                    pass  # closed meanwhile (segment settled and deleted)

    def flush(self, timeout_s: Optional[float] = None) -> bool:
        """Sends everything queued so far (including each run's latest progress) and waits until
        the server has answered for it, at most ``timeout_s`` seconds (default
        ``flush_timeout_s``). Cuts a retry wait short once. Returns True when every frame queued
        before the call was accepted or rejected, False on timeout (the frames stay queued and
        are still retried)."""
        timeout = self.flush_timeout_s if timeout_s is None else max(0.0, float(timeout_s))
        deadline = time.monotonic() + timeout
        with self._cond:
            for run in self._runs:
                if run._pending is not None:
                    self._emit_progress_locked(run, self._clock())
            target = self._seq
            if self._done_through_locked(target):
                return True
            self._wake = True
            self._ensure_thread_locked()
            self._cond.notify_all()
            while not self._done_through_locked(target):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return True

    def close(self, timeout_s: Optional[float] = None) -> bool:
        """Flushes (see :meth:`flush`), then stops the background sender. Frames still queued
        are dropped with a warning. Later calls on runs of this client are ignored. Returns
        the flush result."""
        flushed = self.flush(timeout_s)
        with self._cond:
            left = len(self._queue) + len(self._inflight)
            self._closed = True
            self._stopping = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=1.0)
        with self._cond:
            folder = self._close_spool_locked()
        if left:
            if folder:
                _logger.warning("pitwall: closing with %d frame(s) not delivered to %s; they stay in the spool %s "
                            "(sent by the next process with the same run key, or `python -m pitwall sync %s`)", left, self.url, folder, folder)
            else:
                _logger.warning("pitwall: closing with %d frame(s) not delivered to %s; they are lost", left, self.url)
        return flushed

    def _close_spool_locked(self) -> Optional[str]:
        """Closes the spool (unsettled frames stay on disk); returns its folder, or None."""
        spool = self._spool
        if spool is None:
            return None
        self._spool = None
        for f in list(self._inflight) + list(self._queue):
            f.seg = None
        spool.close()
        return spool.folder

    def stats(self) -> Dict[str, Any]:
        """A snapshot of the client's state: ``queued`` (frames waiting, including ones being
        sent), ``queued_bytes``, ``sent``, ``rejected``, ``coalesced``, ``dropped``,
        ``last_error`` and ``down_s`` (seconds the server has been unreachable, or None)."""
        with self._cond:
            down = None if self._down_since is None else max(0.0, self._clock() - self._down_since)
            return {
                "queued": len(self._queue) + len(self._inflight),
                "queued_bytes": self._held_bytes,
                "sent": self.sent_frames,
                "rejected": self.rejected_frames,
                "coalesced": self.coalesced_frames,
                "dropped": self.dropped_frames,
                "last_error": self.last_error,
                "down_s": down,
            }

    def __enter__(self) -> "Pitwall":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.close()

    # ----------------------------------------------------------------------------------------
    # Queue (every *_locked method runs with self._cond held)

    def _push(self, frames: List[_Frame]) -> None:
        with self._cond:
            self._push_locked(frames)

    def _push_locked(self, frames: List[_Frame]) -> None:
        if self._closed:
            ok, _ = self._throttle.allow("closed", self._clock())
            if ok:
                _logger.warning("pitwall: client is closed; %s frame dropped", frames[0].type)
            self.dropped_frames += len(frames)
            return
        spool = self._spool
        for f in frames:
            self._seq += 1
            f.seq = self._seq
            self._queue.append(f)
            if f.text is not None:
                self._held_bytes += f.size
            if spool is not None and f.seg is None and f.type != "hello":
                try:
                    spool.append(f)
                except OSError as err:
                    self._spool_failed_locked(err)
                    spool = None
        if spool is not None:
            if self._held_bytes > self._compact_bytes_at:
                self._page_out_locked()
            if spool.total_bytes > self._disk_check_at:
                self._enforce_disk_bound_locked()
        else:
            held = len(self._queue) + len(self._inflight)
            if held > self._compact_frames_at or self._held_bytes > self._compact_bytes_at:
                self._compact_locked()
        self._ensure_thread_locked()
        # Wake the sender only when it waits for work: waking it during a retry wait on every
        # push would cost a thread switch per call in a tight loop.
        if self._idle:
            self._cond.notify_all()

    def _settle_frame_locked(self, frame: _Frame) -> None:
        """The frame left the queue for good (acked, rejected, given up, dropped, coalesced)."""
        if frame.text is not None:
            self._held_bytes -= frame.size
        if frame.seg is not None and self._spool is not None:
            self._spool.settle(frame)

    def _spool_failed_locked(self, err: BaseException) -> None:
        _logger.error("pitwall: cannot write to the spool %s (%s); frames are kept in memory only from now on",
                  self._spool.folder if self._spool else "?", err)
        self._spool = None
        self.spool_root = None

    def _page_out_locked(self) -> None:
        """With a spool: keeps the texts of the first frames in memory up to half the memory
        bound and drops the others' (they are read back from the spool when their turn comes).
        Progress frames stay whole (they may be coalesced)."""
        budget = self.max_queue_bytes // 2
        for f in self._queue:
            if f.text is None:
                continue
            if budget > 0:
                budget -= f.size
                continue
            if f.seg is not None and f.progress is None:
                f.text = None
                self._held_bytes -= f.size
        self._compact_bytes_at = max(self.max_queue_bytes, self._held_bytes + self.max_queue_bytes // 10)

    def _enforce_disk_bound_locked(self) -> None:
        """Over ``max_spool_bytes`` on disk: coalesces progress, then drops the oldest metrics
        and events until the spool is under 90% of the bound (segments are deleted once every
        frame in them is settled). run.start, run.end and artifacts are kept."""
        spool = self._spool
        assert spool is not None
        target = int(self.max_spool_bytes * 0.9)
        self._coalesce_progress_locked()
        dropped: Dict[str, int] = {}
        if spool.total_bytes > target:
            kept: Deque[_Frame] = deque()
            for f in self._queue:
                if spool.total_bytes > target and f.type in ("run.metrics", "run.event", "run.output"):
                    dropped[f.type] = dropped.get(f.type, 0) + 1
                    self._settle_frame_locked(f)
                else:
                    kept.append(f)
            self._queue = kept
        if dropped:
            total = sum(dropped.values())
            self.dropped_frames += total
            _logger.warning("pitwall: spool over its bound of %d bytes (server unreachable?): dropped the %d oldest frames: %s",
                        self.max_spool_bytes, total, ", ".join("{} {}".format(n, t) for t, n in sorted(dropped.items())))
        self._disk_check_at = max(self.max_spool_bytes, spool.total_bytes + self.max_spool_bytes // 10)

    def _done_through_locked(self, seq: int) -> bool:
        """True when no frame with a sequence number <= seq is queued or being sent."""
        first = self._inflight[0].seq if self._inflight else (self._queue[0].seq if self._queue else None)
        return first is None or first > seq

    def _emit_progress_locked(self, run: "Run", now: float) -> None:
        pending = run._pending
        run._pending = None
        run._progress_sent_at = now
        if pending is None:
            return
        frame: Dict[str, Any] = {"v": PROTOCOL_VERSION, "id": _new_id(), "type": "run.progress", "run": run.key,
                 "workerId": run.worker_id, "bootId": self.boot_id, "ts": pending["ts"]}
        for field in ("done", "total"):
            if field in pending:
                count = _count_or_none(pending[field])
                if count is None:
                    run._warn_once(field, "progress {} must be a non-negative integer, got {!r}; not sent".format(field, pending[field]))
                else:
                    frame[field] = count
        if "unit" in pending:
            frame["unit"] = _truncate(str(pending["unit"]), 50) or "items"
        counters: Dict[str, Any] = {}
        for name, value in pending["counters"].items():
            number = _as_number(value)
            if number is None or not math.isfinite(number) or number < 0 or number > _MAX_SAFE_INT:
                run._warn_once("counter:" + name, "counter {!r} must be a finite number >= 0, got {!r}; not sent".format(name, value))
                continue
            counters[name] = number
        if counters:
            frame["counters"] = counters
        self._push_locked([_Frame(frame, run)])

    def _next_progress_due_locked(self) -> Optional[float]:
        due: Optional[float] = None
        for run in self._runs:
            if run._pending is not None:
                t = run._progress_sent_at + self.min_interval_s
                due = t if due is None else min(due, t)
        return due

    def _emit_due_progress_locked(self, now: float) -> None:
        for run in self._runs:
            if run._pending is not None and now >= run._progress_sent_at + self.min_interval_s:
                self._emit_progress_locked(run, now)

    def _coalesce_progress_locked(self) -> None:
        """Merges the queued run.progress frames of each (run, worker, boot) into its latest."""
        groups: Dict[Tuple[Any, ...], List[_Frame]] = {}
        for f in self._queue:
            if f.progress is not None:
                groups.setdefault((f.run, f.progress.get("workerId"), f.progress.get("bootId")), []).append(f)
        merged_away: Set[int] = set()
        for frames in groups.values():
            if len(frames) < 2:
                continue
            latest = frames[-1]
            merged: Dict[str, Any] = {}
            counters: Dict[str, Any] = {}
            for f in frames:
                assert f.progress is not None
                merged.update(f.progress)
                counters.update(f.progress.get("counters", {}))
            if counters:
                merged["counters"] = counters
            # A fresh id: the latest frame may have been sent before (a retried batch whose
            # answer was lost), and the server would ignore new content under a known id.
            merged["id"] = _new_id()
            replacement = _Frame(merged, latest.owner)
            self._settle_frame_locked(latest)
            latest.id, latest.text, latest.size, latest.progress = replacement.id, replacement.text, replacement.size, merged
            self._held_bytes += latest.size
            if self._spool is not None:
                try:
                    self._spool.append(latest)
                except OSError as err:
                    self._spool_failed_locked(err)
            for f in frames[:-1]:
                merged_away.add(id(f))
        if merged_away:
            kept: Deque[_Frame] = deque()
            for f in self._queue:
                if id(f) in merged_away:
                    self._settle_frame_locked(f)
                else:
                    kept.append(f)
            self._queue = kept
            self.coalesced_frames += len(merged_away)

    def _compact_locked(self) -> None:
        """Brings the queue under 90% of its bounds: first merges queued run.progress frames of
        one (run, worker, boot) into the latest one (counters are cumulative, so the latest
        reading carries everything), then drops the oldest metrics/events, then artifacts."""
        target_frames = int(self.max_queue_frames * 0.9)
        target_bytes = int(self.max_queue_bytes * 0.9)

        def over() -> bool:
            return len(self._queue) + len(self._inflight) > target_frames or self._held_bytes > target_bytes

        self._coalesce_progress_locked()
        dropped: Dict[str, int] = {}
        for droppable in (("run.metrics", "run.event", "run.output"), ("run.artifact",)):
            if not over():
                break
            excess_frames = len(self._queue) + len(self._inflight) - target_frames
            excess_bytes = self._held_bytes - target_bytes
            kept: Deque[_Frame] = deque()
            for f in self._queue:
                if (excess_frames > 0 or excess_bytes > 0) and f.type in droppable:
                    excess_frames -= 1
                    excess_bytes -= f.size
                    self._held_bytes -= f.size
                    dropped[f.type] = dropped.get(f.type, 0) + 1
                else:
                    kept.append(f)
            self._queue = kept
        if dropped:
            total = sum(dropped.values())
            self.dropped_frames += total
            down = "" if self._down_since is None else " (server unreachable for {:.0f} s)".format(self._clock() - self._down_since)
            _logger.warning(
                "pitwall: queue full (%d frames / %d bytes held, bound %d / %d)%s: dropped the %d oldest frames: %s",
                len(self._queue) + len(self._inflight), self._held_bytes, self.max_queue_frames, self.max_queue_bytes,
                down, total, ", ".join("{} {}".format(n, t) for t, n in sorted(dropped.items())),
            )
        # If what is left cannot be dropped (run.start/run.end, one progress per worker), do not
        # rescan on every push: wait until another 10% has accumulated.
        held = len(self._queue) + len(self._inflight)
        self._compact_frames_at = max(self.max_queue_frames, held + self.max_queue_frames // 10)
        self._compact_bytes_at = max(self.max_queue_bytes, self._held_bytes + self.max_queue_bytes // 10)

    # ----------------------------------------------------------------------------------------
    # Sender thread

    def _ensure_thread_locked(self) -> None:
        if self._stopping or (self._thread is not None and self._thread.is_alive()):
            return
        thread = threading.Thread(target=self._sender_main, name="pitwall-sender", daemon=True)
        try:
            thread.start()
        except RuntimeError as err:  # interpreter shutting down
            _logger.error("pitwall: cannot start the sender thread (%s); frames stay queued", err)
            return
        self._thread = thread

    def _sender_main(self) -> None:
        while True:
            with self._cond:
                batch = self._next_batch_locked()
            if batch is None:
                return
            try:
                outcome = self._post(batch)
            except Exception as err:  # never let the sender die: keep the frames and retry
                _logger.exception("pitwall: unexpected error while sending")
                outcome = ("retry", "unexpected error: {!r}".format(err), None)
            with self._cond:
                self._settle_locked(batch, outcome)
                self._inflight = []
                self._cond.notify_all()

    def _next_batch_locked(self) -> Optional[List[_Frame]]:
        """Waits until there is something to send and no retry wait pending; takes a batch off
        the front of the queue (it is put back in front if the send fails)."""
        while True:
            if self._stopping:
                return None
            now = self._clock()
            self._emit_due_progress_locked(now)
            timeout: Optional[float] = None
            if self._queue:
                if self._wake or now >= self._retry_at:
                    self._wake = False
                    break
                timeout = self._retry_at - now
            else:
                self._wake = False
            due = self._next_progress_due_locked()
            if due is not None:
                wait = max(0.001, due - now)
                timeout = wait if timeout is None else min(timeout, wait)
            self._idle = not self._queue
            try:
                self._cond.wait(timeout)
            finally:
                self._idle = False
        batch: List[_Frame] = []
        size = 2
        while self._queue and len(batch) < self._batch_cap:
            f = self._queue[0]
            if f.text is None:  # paged out: read it back from the spool
                try:
                    f.text = self._spool.read(f) if self._spool is not None else None
                except OSError as err:
                    _logger.error("pitwall: cannot read frame %s back from the spool (%s); dropped", f.id, err)
                if f.text is None:
                    self._queue.popleft()
                    self.dropped_frames += 1
                    continue
                self._held_bytes += f.size
            if batch and size + f.size + 1 > self.max_batch_bytes:
                break
            batch.append(self._queue.popleft())
            size += f.size + 1
        self._inflight = batch
        return batch

    def _post(self, batch: List[_Frame]) -> Tuple[Any, ...]:
        """Sends one batch. Returns ("ok", results), ("retry", reason, status),
        ("config", reason, status) for a problem a person must fix (token, URL), or
        ("reject", reason, status, code) when the server refused this request for good."""
        body = ("[" + ",".join(f.text or "" for f in batch) + "]").encode("utf-8")
        request = urllib.request.Request(
            self._ingest_url,
            data=body,
            method="POST",
            headers={
                "Authorization": "Bearer " + self._token,
                "Content-Type": "application/json",
                "User-Agent": CLIENT_NAME,
            },
        )
        try:
            with self._opener.open(request, timeout=self.request_timeout_s) as response:
                raw = response.read()
        except urllib.error.HTTPError as err:
            status = err.code
            try:
                raw = err.read() or b""
            except Exception:
                raw = b""
            finally:
                err.close()
            code, message = _error_body(raw)
            reason = "HTTP {}{}".format(status, ": " + message if message else "")
            if status in (401, 403):
                return ("config", "{} - the server refused the token (check PITWALL_TOKEN; create one with "
                                  "`npx pitwall token create <host>`)".format(reason), status)
            if 300 <= status < 400:
                location = err.headers.get("Location") if err.headers is not None else None
                return ("config", "HTTP {} redirect to {} - set the Pitwall URL to the final address".format(status, location), status)
            if status in (404, 405):
                return ("config", "{} - is {} a Pitwall server?".format(reason, self.url), status)
            if status in (408, 425, 429) or status >= 500:
                return ("retry", reason, status)
            return ("reject", reason, status, code or "http_{}".format(status))
        except (urllib.error.URLError, OSError, http.client.HTTPException) as err:
            return ("retry", _describe_network_error(err), None)
        try:
            parsed = json.loads(raw.decode("utf-8"))
            results = parsed["results"]
            if not isinstance(results, list):
                raise ValueError("results is not a list")
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as err:
            return ("retry", "unexpected answer from {} ({}): {!r}".format(self._ingest_url, err, raw[:200]), None)
        return ("ok", results)

    def _settle_locked(self, batch: List[_Frame], outcome: Tuple[Any, ...]) -> None:
        now = self._clock()
        kind = outcome[0]
        if kind == "ok":
            results = outcome[1]
            if self._down_since is not None:
                _logger.warning("pitwall: reached %s again after %.0f s; sending the queued frames", self.url, now - self._down_since)
            self._down_since = None
            self._failures = 0
            self._failovers_in_row = 0
            self._retry_at = 0.0
            self.last_error = None
            self._poison_id, self._poison_strikes = None, 0
            self._batch_cap = min(self.max_batch_frames, self._batch_cap * 2)
            for i, f in enumerate(batch):
                self._settle_frame_locked(f)
                result = results[i] if i < len(results) else None
                if isinstance(result, dict) and result.get("ok") is False:
                    self._reject_locked(f, str(result.get("code") or "rejected"), str(result.get("message") or ""))
                else:
                    self.sent_frames += 1
            if not self._queue:
                self._compact_frames_at = self.max_queue_frames
                self._compact_bytes_at = self.max_queue_bytes
            return
        if kind == "reject":
            reason, code = outcome[1], outcome[3]
            if len(batch) > 1:
                # Isolate the frame the server refuses: resend in smaller batches.
                self._queue.extendleft(reversed(batch))
                self._batch_cap = max(1, len(batch) // 2)
                return
            self._settle_frame_locked(batch[0])
            self._reject_locked(batch[0], code, reason)
            return
        if kind == "retry" and outcome[2] == 500 and self._isolate_server_error_locked(batch, outcome[1]):
            return
        # retry / config: keep the frames in front, in order, and wait before the next attempt.
        reason = outcome[1]
        self._queue.extendleft(reversed(batch))
        self.last_error = reason
        if kind == "retry" and len(self.urls) > 1 and (outcome[2] is None or outcome[2] >= 500):
            # Several instances: try the next one at once; back off only after a full round.
            previous = self.url
            self._url_index = (self._url_index + 1) % len(self.urls)
            self._failovers_in_row += 1
            _logger.warning("pitwall: %s failed (%s); failing over to %s", previous, reason, self.url)
            if self._failovers_in_row < len(self.urls):
                self._retry_at = now
                return
            self._failovers_in_row = 0
        self._failures += 1
        if kind == "config":
            delay = self.max_backoff_s
        else:
            delay = min(self.max_backoff_s, _BASE_BACKOFF_S * (2 ** min(self._failures - 1, 30)))
        delay = delay / 2 + random.uniform(0, delay / 2)
        self._retry_at = now + delay
        held = len(self._queue) + len(self._inflight)
        if self._down_since is None:
            self._down_since = now
            self._last_down_log = now
            level = logging.ERROR if kind == "config" else logging.WARNING
            _logger.log(level, "pitwall: cannot deliver to %s: %s; keeping %d frame(s) and retrying (waits up to %g s)",
                    self._ingest_url, reason, held, self.max_backoff_s)
        elif now - self._last_down_log >= _DOWN_LOG_EVERY_S:
            self._last_down_log = now
            level = logging.ERROR if kind == "config" else logging.WARNING
            _logger.log(level, "pitwall: still cannot deliver to %s after %.0f s: %s; %d frame(s) queued",
                    self._ingest_url, now - self._down_since, reason, held)
        else:
            _logger.debug("pitwall: send failed (%s); retrying in %.1f s", reason, delay)

    def _isolate_server_error_locked(self, batch: List[_Frame], reason: str) -> bool:
        """HTTP 500 for ``batch``: a frame in it may be poison. Shrinks the batch to isolate it;
        once the same frame alone failed ``give_up_after`` times in a row, drops it (one warning,
        code ``gave_up``) and returns True; otherwise returns False (the caller backs off)."""
        if self.give_up_after <= 0:
            return False
        if len(batch) > 1:
            self._batch_cap = max(1, len(batch) // 2)
            return False
        frame = batch[0]
        if frame.id != self._poison_id:
            self._poison_id, self._poison_strikes = frame.id, 0
        self._poison_strikes += 1
        if self._poison_strikes < self.give_up_after:
            return False
        self._poison_id, self._poison_strikes = None, 0
        self._settle_frame_locked(frame)
        message = "the server answered {} for this frame alone {} times in a row; giving up on it".format(reason, self.give_up_after)
        error = FrameError(frame.id, frame.type, frame.run, "gave_up", message)
        self.errors.append(error)
        self.rejected_frames += 1
        if frame.owner is not None and len(frame.owner.errors) < _KEEP_ERRORS:
            frame.owner.errors.append(error)
        _logger.warning("pitwall: gave up on %s frame %s (run %r): %s", frame.type, frame.id, frame.run, message)
        return True

    def _reject_locked(self, frame: _Frame, code: str, message: str) -> None:
        error = FrameError(frame.id, frame.type, frame.run, code, message)
        self.errors.append(error)
        self.rejected_frames += 1
        if frame.owner is not None and len(frame.owner.errors) < _KEEP_ERRORS:
            frame.owner.errors.append(error)
        allowed, suppressed = self._throttle.allow("reject", self._clock())
        if suppressed:
            _logger.warning("pitwall: %d more rejected frame(s) were not logged", suppressed)
        if allowed:
            _logger.warning("pitwall: server rejected %s frame %s (run %r): %s: %s", frame.type, frame.id, frame.run, code, message)

    def _after_fork_in_child(self) -> None:
        # The child has a copy of the queue but no sender thread, and the lock may have been
        # held by the parent's thread: start afresh. The parent still sends what it queued.
        self._init_sync()
        self._queue = deque()
        self._inflight = []
        self._held_bytes = 0
        # The parent keeps its spool (its lock, its files); a child that pushes opens its own.
        self._spool = None
        self._fsync_thread = None

    def _at_exit(self) -> None:
        with self._cond:
            if self._closed:
                return
            open_runs = [r.key for r in self._runs if not r._ended]
        for key in open_runs:
            _logger.warning("pitwall: run %r was not ended before exit (use `with pw.run(...)` or run.end()); "
                        "it will show as stale", key)
        # While the server is unreachable, the run's end already waited flush_timeout_s: make
        # one short last attempt instead of holding the exit for the full timeout again.
        timeout = self.flush_timeout_s if self._down_since is None else min(self.flush_timeout_s, 5.0)
        if not self.flush(timeout):
            with self._cond:
                left = len(self._queue) + len(self._inflight)
                self._stopping = True
                self._cond.notify_all()
                folder = self._close_spool_locked()
            if folder:
                _logger.warning("pitwall: %d frame(s) could not be delivered to %s before exit (%s); they stay in the spool %s "
                            "(sent by the next process with the same run key, or `python -m pitwall sync %s`)",
                            left, self.url, self.last_error or "timed out", folder, folder)
            else:
                _logger.warning("pitwall: %d frame(s) could not be delivered to %s before exit (%s); they are lost",
                            left, self.url, self.last_error or "timed out")
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
            self._close_spool_locked()


class Run:
    """A run being pushed to Pitwall. Created by :meth:`Pitwall.run`; thread-safe.

    Attributes: ``key`` (the run's client key), ``name``, ``kind``, ``worker_id``, and
    ``errors``: the :class:`FrameError` list of this run's frames the server rejected.
    """

    def __init__(self, client: Pitwall, key: str, name: str, kind: str, worker_id: str) -> None:
        self._pw = client
        self.key = key
        self.name = name
        self.kind = kind
        self.worker_id = worker_id
        self.errors: List[FrameError] = []
        self._key_json = json.dumps(key)
        self._pending: Optional[Dict[str, Any]] = None
        self._progress_sent_at = -math.inf
        self._ended = False
        self._warned: Set[str] = set()

    def progress(
        self,
        done: Optional[int] = None,
        total: Optional[int] = None,
        unit: Optional[str] = None,
        counters: Optional[Mapping[str, float]] = None,
    ) -> None:
        """Records where this worker stands; cheap enough for every iteration of a tight loop.

        ``done``: items completed so far by this worker (absolute, not an increment; a resumed
        worker may jump ahead). ``total``: items this worker will do in all, when it differs
        from the run's total. ``unit``: what the items are. ``counters``: cumulative values
        since this process started, e.g. ``{"s3.uploaded": files, "s3.bytes": bytes,
        "local.deleted": files}``; names ending in ``inflight`` (``s3.inflight``) or starting
        with ``disk.`` (``disk.freeBytes``, bytes) are gauges, sent as current values.

        At most one frame per ``min_interval_s`` is sent; readings in between are merged (later
        values win, counters merged by name) and the latest is always sent on flush and before
        ``run.end``. The time of the latest call is the reading's timestamp.

        :raises ValueError: for a counter name the protocol does not accept.
        """
        if counters:
            for name in counters:
                if name not in _checked_counter_names:
                    _check_counter_name(name)
        if self._ended:
            self._warn_once("progress-after-end", "progress after the run ended is ignored")
            return
        ts = _now_ms()
        pw = self._pw
        with pw._cond:
            pending = self._pending
            fresh = pending is None
            if pending is None:
                pending = self._pending = {"counters": {}}
            if done is not None:
                pending["done"] = done
            if total is not None:
                pending["total"] = total
            if unit is not None:
                pending["unit"] = unit
            if counters:
                pending["counters"].update(counters)
            pending["ts"] = ts
            now = pw._clock()
            if now - self._progress_sent_at >= pw.min_interval_s:
                pw._emit_progress_locked(self, now)
            elif fresh and pw._idle:
                pw._cond.notify_all()  # let the sender schedule this reading

    def metrics(self, step: int, values: Optional[Mapping[str, Any]] = None, /, **named: Any) -> None:
        """Records metric values at an integer ``step`` (64-bit; a step sent again replaces the
        value): ``run.metrics(step, loss=0.5, lr=3e-4)``, or a mapping for keys that are not
        Python identifiers: ``run.metrics(step, {"train/loss": 0.5})``. Values are floats; NaN
        and +-Infinity are kept as such. A value that is not a number is logged and skipped.

        :raises TypeError: when ``step`` is not an integer. :raises ValueError: for a step
            outside the signed 64-bit range or a key that is empty or over 200 characters.
        """
        # Hot path (a training loop may call this tens of thousands of times a second): the
        # frame's JSON is assembled from cached per-key fragments instead of json.dumps.
        s = step if type(step) is int and -_MAX_SAFE_INT <= step <= _MAX_SAFE_INT else _step(step)
        mid = (str(s) if type(s) is int else '"' + str(s) + '"') + ',"value":'
        end = ',"ts":%d}' % _now_ms()
        cache = _key_fragments
        parts: List[str] = []
        append = parts.append
        for pairs in (values.items() if values else (), named.items()):
            for key, value in pairs:
                frag = cache.get(key)
                if frag is None:
                    frag = _key_fragment(key)
                t = type(value)
                if t is float and value - value == 0.0:
                    append(f"{frag}{mid}{value!r}")
                    continue
                if t is int and -_MAX_SAFE_INT <= value <= _MAX_SAFE_INT:
                    append(f"{frag}{mid}{value}")
                    continue
                number = _as_number(value)
                try:
                    number = float(number)  # type: ignore[arg-type]
                except (TypeError, ValueError, OverflowError):
                    self._warn_once("metric:" + key, "metric {!r} is not a number ({!r}); skipped".format(key, value))
                    continue
                append(f"{frag}{mid}{_FLOAT_REPR(number) if number - number == 0.0 else _non_finite_text(number)}")
        if not parts:
            return
        head = '{"v":1,"id":"'
        middle = '","type":"run.metrics","run":' + self._key_json + ',"points":['
        frames = []
        for start in range(0, len(parts), _MAX_METRIC_POINTS_PER_FRAME):
            fid = _new_id()
            text = head + fid + middle + (end + ",").join(parts[start:start + _MAX_METRIC_POINTS_PER_FRAME]) + end + "]}"
            frames.append(_Frame(None, self, raw=(fid, "run.metrics", self.key, text)))
        self._pw._push(frames)

    def artifact(self, uri: str, kind: str = "file", size_bytes: Optional[int] = None, step: Optional[int] = None) -> None:
        """Records an artifact: a checkpoint or uploaded object (``s3://bucket/key``); sending
        the same ``uri`` again updates it. ``kind``: ``checkpoint``, ``upload``, ... (at most 50
        characters). ``size_bytes``: its size in bytes. ``step``: the training step it belongs to.

        :raises ValueError: for an empty or over-long (2000 characters) uri or kind, a negative
            size, or a step outside the signed 64-bit range. :raises TypeError: for a step that
            is not an integer.
        """
        uri = str(uri)
        kind = str(kind)
        if not 1 <= len(uri) <= 2000:
            raise ValueError("artifact uri must have 1 to 2000 characters")
        if not 1 <= len(kind) <= 50:
            raise ValueError("artifact kind must have 1 to 50 characters")
        frame: Dict[str, Any] = {"v": PROTOCOL_VERSION, "id": _new_id(), "type": "run.artifact", "run": self.key, "kind": kind,
                 "uri": uri, "ts": _now_ms()}
        if size_bytes is not None:
            size = _count_or_none(size_bytes)
            if size is None:
                raise ValueError("size_bytes must be a non-negative integer, got {!r}".format(size_bytes))
            frame["sizeBytes"] = size
        if step is not None:
            frame["step"] = _step(step)
        self._pw._push([_Frame(frame, self)])

    def event(self, message: str, level: str = "info") -> None:
        """Records a log line worth keeping on the run page. ``level``: ``debug``, ``info``,
        ``warn`` (or ``warning``) or ``error``. Messages over 10,000 characters are truncated;
        an empty message is skipped.

        :raises ValueError: for an unknown level.
        """
        if level == "warning":
            level = "warn"
        if level not in EVENT_LEVELS:
            raise ValueError("level must be one of {}, got {!r}".format(", ".join(EVENT_LEVELS), level))
        text = _truncate(str(message), 10_000)
        if not text:
            return
        frame = {"v": PROTOCOL_VERSION, "id": _new_id(), "type": "run.event", "run": self.key, "level": level,
                 "message": text, "ts": _now_ms()}
        self._pw._push([_Frame(frame, self)])

    def output(self, *lines: str) -> None:
        """Appends lines to the run's live output tail (the run page's "Output" panel, with search;
        the server keeps the last 200 lines). Each argument may hold several lines ("\\n"); lines
        over 4,000 characters are truncated; sent 200 lines per frame.
        """
        flat = [_truncate(part, 4000) for text in lines for part in str(text).splitlines()]
        for i in range(0, len(flat), 200):
            frame = {"v": PROTOCOL_VERSION, "id": _new_id(), "type": "run.output", "run": self.key,
                     "lines": flat[i:i + 200]}
            self._pw._push([_Frame(frame, self)])

    def end(
        self,
        status: str = "succeeded",
        error: Optional[str] = None,
        exit_code: Optional[int] = None,
        output_tail: Optional[Sequence[str]] = None,
        flush_timeout_s: Optional[float] = None,
    ) -> bool:
        """Ends the run: sends the latest progress, then ``run.end`` with ``status``
        (``succeeded``, ``failed``, ``cancelled`` or ``ended``: stopped, outcome unknown), ``error`` (at most 10,000 characters kept),
        the process ``exit_code`` and ``output_tail`` (last lines of output, at most 200), then
        waits up to ``flush_timeout_s`` (default the client's ``flush_timeout_s``; 0 to not wait)
        for delivery. Returns True when everything was delivered, False when it did not wait or
        timed out (frames keep being retried in the background). A second call does nothing.

        :raises ValueError: for an unknown status.
        """
        if status not in END_STATUSES:
            raise ValueError("status must be one of {}, got {!r}".format(", ".join(END_STATUSES), status))
        frame: Dict[str, Any] = {"v": PROTOCOL_VERSION, "id": _new_id(), "type": "run.end", "run": self.key, "status": status,
                 "endedAt": _now_ms()}
        if error is not None:
            frame["error"] = _truncate(str(error), 10_000)
        if exit_code is not None:
            frame["exitCode"] = max(-(2**31), min(2**31 - 1, int(exit_code)))
        if output_tail is not None:
            frame["outputTail"] = [_truncate(str(line), 4000) for line in list(output_tail)[-200:]]
        pw = self._pw
        with pw._cond:
            if self._ended:
                return True
            self._ended = True
            for view in self.__dict__.get("_workers", {}).values():
                if not view._ended:
                    view._ended = True
                    pw._emit_progress_locked(view, pw._clock())
                    if view in pw._runs:
                        pw._runs.remove(view)
            pw._emit_progress_locked(self, pw._clock())
            pw._push_locked([_Frame(frame, self)])
            if self in pw._runs:
                pw._runs.remove(self)
        if flush_timeout_s is not None and flush_timeout_s <= 0:
            return False
        delivered = pw.flush(flush_timeout_s)
        if not delivered:
            _logger.warning("pitwall: run %r ended, but not every frame reached %s yet (%s); still retrying in the background",
                        self.key, pw.url, pw.last_error or "timed out")
        return delivered

    def worker(self, worker_id: str) -> "Run":
        """This run as seen by another worker (e.g. a nested progress bar, a thread): its
        :meth:`progress` reports under ``worker_id`` (at most 100 characters); other calls go
        to the same run. No frame is sent until it reports. Calling it again with the same id
        returns the same object."""
        wid = _truncate(str(worker_id), 100) or self.worker_id
        if wid == self.worker_id:
            return self
        pw = self._pw
        with pw._cond:
            views = self.__dict__.setdefault("_workers", {})
            view = views.get(wid)
            if view is None:
                view = views[wid] = Run(pw, self.key, self.name, self.kind, wid)
                pw._runs.append(view)
            return view

    def flush(self, timeout_s: Optional[float] = None) -> bool:
        """Same as :meth:`Pitwall.flush` on this run's client."""
        return self._pw.flush(timeout_s)

    def __enter__(self) -> "Run":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        # Ends the run with the block's outcome; never swallows or masks the exception.
        try:
            if exc_type is None:
                self.end("succeeded")
            elif issubclass(exc_type, KeyboardInterrupt):
                self.end("cancelled", error="KeyboardInterrupt")
            elif issubclass(exc_type, SystemExit) and exc.code in (None, 0):
                self.end("succeeded", exit_code=0)
            else:
                text = "".join(traceback.format_exception_only(exc_type, exc)).strip()
                lines = "".join(traceback.format_exception(exc_type, exc, tb)).splitlines()
                exit_code = exc.code if issubclass(exc_type, SystemExit) and isinstance(exc.code, int) else None
                self.end("failed", error=text, exit_code=exit_code, output_tail=lines)
        except Exception:
            _logger.exception("pitwall: could not end run %r", self.key)

    def _warn_once(self, what: str, message: str) -> None:
        if what in self._warned:
            return
        self._warned.add(what)
        _logger.warning("pitwall: run %r: %s", self.key, message)


def _count_or_none(value: Any) -> Optional[int]:
    """A non-negative integer count that fits a JS safe integer, or None."""
    if isinstance(value, bool):
        return int(value)
    number = _as_number(value)
    if number is None or not math.isfinite(number) or number < 0 or number > _MAX_SAFE_INT:
        return None
    return int(number)


def _error_body(raw: bytes) -> Tuple[Optional[str], str]:
    """(code, message) from a Pitwall error body ``{"error": {"code", "message"}}``."""
    try:
        error = json.loads(raw.decode("utf-8"))["error"]
        return str(error.get("code")), str(error.get("message", ""))
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        return None, raw[:200].decode("utf-8", "replace").strip()


def _describe_network_error(err: BaseException) -> str:
    reason = getattr(err, "reason", None)
    if reason is not None:
        return "unreachable ({})".format(reason)
    return "unreachable ({}: {})".format(type(err).__name__, err)


# --------------------------------------------------------------------------------------------
# Module-level API: one run per process, configured from the environment

_default_client: Optional[Pitwall] = None
_default_run: "Optional[Run]" = None
_default_step = 0
_warned_unconfigured = False
_uncaught: Optional[BaseException] = None
_module_lock = threading.Lock()


def init(
    kind: str = "training",
    name: Optional[str] = None,
    config: Optional[Mapping[str, Any]] = None,
    *,
    key: Optional[str] = None,
    total: Optional[int] = None,
    unit: Optional[str] = None,
    tags: Optional[Sequence[str]] = None,
    notes: Optional[str] = None,
    url: Optional[str] = None,
    token: Optional[str] = None,
    spool: Any = True,
    **client_options: Any,
) -> "Optional[Run]":
    """Starts this process's run and returns it (or None when Pitwall is not configured).

    Reads ``PITWALL_URL`` (several comma-separated URLs fail over) and ``PITWALL_TOKEN`` unless
    ``url``/``token`` are given; when either is missing, logs one warning and every module
    function does nothing. ``key``: the run key (default ``PITWALL_RUN_KEY``, set by
    ``pitwall run``, else a new one): pass the same key after a restart to continue the run
    and resend what the killed process left in its spool. ``name`` defaults to the script's
    file name. ``spool`` (default on): see :class:`Pitwall`. Other keyword arguments go to
    :class:`Pitwall`. A second call ends the previous run first. When the interpreter exits
    with the run still open, it ends ``succeeded``, or ``failed`` after an uncaught exception.

    :raises ValueError: for an unknown kind or bad options (as :meth:`Pitwall.run`).
    """
    global _default_client, _default_run, _default_step, _warned_unconfigured
    if kind not in RUN_KINDS:
        raise ValueError("kind must be one of {}, got {!r}".format(", ".join(RUN_KINDS), kind))
    url = url if url is not None else os.environ.get("PITWALL_URL", "")
    token = token if token is not None else os.environ.get("PITWALL_TOKEN", "")
    if not url or not token:
        if not _warned_unconfigured:
            _warned_unconfigured = True
            _logger.warning("pitwall: PITWALL_URL and PITWALL_TOKEN are not both set; this run is not reported")
        return None
    if _default_run is not None:
        finish()
    with _module_lock:
        if _default_client is None or _default_client._closed:
            _default_client = Pitwall(url, token, spool=spool, **client_options)
        if name is None:
            main = sys.modules.get("__main__")
            name = os.path.basename(getattr(main, "__file__", None) or "") or "python"
        key = key or os.environ.get("PITWALL_RUN_KEY") or None
        _default_run = _default_client.run(kind=kind, name=name, key=key, total=total, unit=unit, config=config, tags=tags, notes=notes)
        _default_step = 0
        _install_excepthook()
        return _default_run


def current_run() -> "Optional[Run]":
    """The run :func:`init` started (None before it, after :func:`finish`, or unconfigured)."""
    return _default_run


def log_metrics(values: Mapping[str, Any], step: Optional[int] = None) -> None:
    """Same as :func:`log`."""
    log(values, step)


def log(values: Mapping[str, Any], step: Optional[int] = None) -> None:
    """Records metric values (``{"loss": 0.5, "eval/acc": 0.9}``) at ``step``; without a step,
    one more than the previous call's (starting at 0). Does nothing before :func:`init`.

    :raises TypeError: for a non-integer step (see :meth:`Run.metrics`).
    """
    global _default_step
    run = _default_run
    if run is None:
        return
    if step is None:
        step = _default_step
    run.metrics(step, values)
    if type(step) is int:
        _default_step = step + 1


def progress(done: Optional[int] = None, total: Optional[int] = None, unit: Optional[str] = None,
             counters: Optional[Mapping[str, float]] = None) -> None:
    """Where this process stands (see :meth:`Run.progress`). Does nothing before :func:`init`."""
    run = _default_run
    if run is not None:
        run.progress(done, total=total, unit=unit, counters=counters)


def event(message: str, level: str = "info") -> None:
    """A log line for the run page (see :meth:`Run.event`). Does nothing before :func:`init`."""
    run = _default_run
    if run is not None:
        run.event(message, level)


def artifact(uri: str, kind: str = "file", size_bytes: Optional[int] = None, step: Optional[int] = None) -> None:
    """A checkpoint or uploaded object (see :meth:`Run.artifact`). Does nothing before :func:`init`."""
    run = _default_run
    if run is not None:
        run.artifact(uri, kind=kind, size_bytes=size_bytes, step=step)


def finish(status: str = "succeeded", error: Optional[str] = None, flush_timeout_s: Optional[float] = None) -> bool:
    """Ends the run :func:`init` started (see :meth:`Run.end`) and waits for delivery; returns
    True when everything was acknowledged (what is not stays in the spool). True when there is
    no run."""
    global _default_run
    run = _default_run
    if run is None:
        return True
    _default_run = None
    return run.end(status, error=error, flush_timeout_s=flush_timeout_s)


_excepthook_installed = False


def _install_excepthook() -> None:
    global _excepthook_installed
    if _excepthook_installed:
        return
    _excepthook_installed = True
    previous = sys.excepthook

    def hook(exc_type: Any, exc: Any, tb: Any) -> None:
        global _uncaught
        _uncaught = exc
        previous(exc_type, exc, tb)

    sys.excepthook = hook


def _finish_default_run_at_exit() -> None:
    run = _default_run
    if run is None or run._ended:
        return
    exc = _uncaught
    try:
        if exc is None:
            finish("succeeded")
        elif isinstance(exc, KeyboardInterrupt):
            finish("cancelled", error="KeyboardInterrupt")
        else:
            finish("failed", error="".join(traceback.format_exception_only(type(exc), exc)).strip())
    except Exception:
        _logger.exception("pitwall: could not end run %r at exit", run.key)


# --------------------------------------------------------------------------------------------
# `python -m pitwall sync DIR` (or `python pitwall.py sync DIR` for the single-file copy)


def sync(path: str, url: Optional[str] = None, token: Optional[str] = None, timeout_s: float = 600.0) -> Dict[str, int]:
    """Uploads every spool folder at or under ``path`` (one copied from an air-gapped host, or
    left by a killed job) and removes what the server acknowledged. Returns ``{"folders",
    "frames", "delivered", "rejected", "left"}`` (``left``: still on disk, e.g. after a time-out).

    :raises ValueError: as :class:`Pitwall` (no URL/token). :raises SpoolLockedError: when a
        live process holds a folder.
    """
    totals = {"folders": 0, "frames": 0, "delivered": 0, "rejected": 0, "left": 0}
    for folder in _spool_folders(path):
        spool = _Spool(folder)
        pw = Pitwall(url, token, spool=False, flush_timeout_s=timeout_s)
        frames = spool.recovered
        with pw._cond:
            pw._attach_spool_locked(spool, [])
        # hello first: the server learns the client; the spooled frames keep their ids.
        hello = _Frame({"v": PROTOCOL_VERSION, "id": _new_id(), "type": "hello", "client": CLIENT_NAME + " sync",
                        "workerId": pw.worker_id})
        pw._push([hello] + frames)
        delivered = pw.flush(timeout_s)
        stats = pw.stats()
        totals["folders"] += 1
        totals["frames"] += len(frames)
        totals["rejected"] += stats["rejected"]
        totals["delivered"] += stats["sent"] - 1 if stats["sent"] else 0
        totals["left"] += stats["queued"]
        if not delivered:
            _logger.warning("pitwall: %s: %d frame(s) not delivered (%s); run sync again", folder, stats["queued"], pw.last_error)
        pw.close(timeout_s=0)
    return totals


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command line: ``python -m pitwall sync DIR [--url URL] [--token TOKEN] [--timeout S]``.
    Exit 0 when everything was delivered, 1 when frames were rejected or left, 2 on bad usage."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m pitwall", description="Pitwall Python client tools.")
    sub = parser.add_subparsers(dest="command")
    p_sync = sub.add_parser("sync", help="upload spool folders (from an air-gapped host or a killed job)")
    p_sync.add_argument("dir", help="a spool folder, or a folder of spool folders (e.g. ~/.cache/pitwall/spool)")
    p_sync.add_argument("--url", default=None, help="server URL(s), comma-separated (default PITWALL_URL)")
    p_sync.add_argument("--token", default=None, help="worker token (default PITWALL_TOKEN)")
    p_sync.add_argument("--timeout", type=float, default=600.0, help="seconds to wait per folder (default 600)")
    sub.add_parser("version", help="print the client version")
    args = parser.parse_args(argv)
    if args.command == "version":
        print(__version__)
        return 0
    if args.command != "sync":
        parser.print_help()
        return 2
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, format="%(message)s")
    if not _spool_folders(args.dir):
        print("no spool found at {}".format(args.dir), file=sys.stderr)
        return 2
    try:
        totals = sync(args.dir, url=args.url, token=args.token, timeout_s=args.timeout)
    except (ValueError, SpoolLockedError) as err:
        print("pitwall sync: {}".format(err), file=sys.stderr)
        return 2
    print("synced {folders} folder(s): {frames} frame(s), {delivered} delivered, {rejected} rejected, {left} left".format(**totals))
    return 0 if totals["rejected"] == 0 and totals["left"] == 0 else 1


@atexit.register
def _flush_all_at_exit() -> None:
    _finish_default_run_at_exit()
    for client in list(_instances):
        try:
            client._at_exit()
        except Exception:
            _logger.exception("pitwall: error while flushing at exit")


def _reinit_after_fork() -> None:
    _renew_id_prefix()
    for client in list(_instances):
        client._after_fork_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reinit_after_fork)



if __name__ == "__main__":
    sys.exit(main())
