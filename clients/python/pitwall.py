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
import json
import logging
import math
import operator
import os
import random
import re
import socket
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
    "Pitwall",
    "Run",
    "FrameError",
    "BOOT_ID",
    "PROTOCOL_VERSION",
    "RUN_KINDS",
    "END_STATUSES",
    "EVENT_LEVELS",
    "__version__",
]

log = logging.getLogger("pitwall")

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
    frame as a dict for run.progress frames so that they can be coalesced."""

    __slots__ = ("seq", "id", "type", "run", "owner", "text", "size", "progress")

    def __init__(self, obj: Dict[str, Any], owner: "Optional[Run]" = None) -> None:
        self.seq = 0
        self.id: str = obj["id"]
        self.type: str = obj["type"]
        self.run: Optional[str] = obj.get("run")
        self.owner = owner
        self.text = _dumps(obj)
        self.size = len(self.text)
        self.progress: Optional[Dict[str, Any]] = obj if self.type == "run.progress" else None


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


def _new_id() -> str:
    return str(uuid.uuid4())


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _default_worker_id() -> str:
    host = socket.gethostname().split(".")[0] or "host"
    return _truncate("{}-{}".format(host, os.getpid()), 100)


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
      characters); default ``<short hostname>-<pid>``. Pass a stable one (``"gpu0"``) to continue
      a worker's counters across restarts of its process.
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
    - ``give_up_after``: a request answered HTTP 500 (a server error, not an outage: those are
      502/503/504 or no answer) is retried in smaller batches until the failing frame is alone;
      once that frame alone was answered 500 this many times in a row (default 5; 0 never), it is
      given up on: recorded in :attr:`errors` with code ``gave_up``, one warning logged, and the
      frames behind it are sent.

    :raises ValueError: when no URL or token is given or set, or the URL is not http(s).
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
    ) -> None:
        url = url if url is not None else os.environ.get("PITWALL_URL", "")
        token = token if token is not None else os.environ.get("PITWALL_TOKEN", "")
        if not url:
            raise ValueError("no Pitwall URL: pass url= or set PITWALL_URL (e.g. http://pitwall-host:8080)")
        if not url.startswith(("http://", "https://")) or not urllib.parse.urlsplit(url).netloc:
            raise ValueError("Pitwall URL must look like http(s)://host:port, got {!r}".format(url))
        if not token:
            raise ValueError("no Pitwall token: pass token= or set PITWALL_TOKEN (npx pitwall token create <host>)")
        self.url = url.rstrip("/")
        self._ingest_url = self.url + "/api/ingest"
        self._token = token
        self.worker_id = _truncate(worker_id, 100) if worker_id else _default_worker_id()
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
        wid = _truncate(worker_id, 100) if worker_id else self.worker_id
        run = Run(self, key, name, kind, wid)
        frames = [_Frame(frame, run)]
        with self._cond:
            if not self._hello_sent:
                self._hello_sent = True
                hello = {"v": PROTOCOL_VERSION, "id": _new_id(), "type": "hello", "client": CLIENT_NAME,
                         "workerId": self.worker_id}
                frames.insert(0, _Frame(hello))
            self._runs.append(run)
            self._push_locked(frames)
        return run

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
        if left:
            log.warning("pitwall: closing with %d frame(s) not delivered to %s; they are lost", left, self.url)
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=1.0)
        return flushed

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
                log.warning("pitwall: client is closed; %s frame dropped", frames[0].type)
            self.dropped_frames += len(frames)
            return
        for f in frames:
            self._seq += 1
            f.seq = self._seq
            self._queue.append(f)
            self._held_bytes += f.size
        held = len(self._queue) + len(self._inflight)
        if held > self._compact_frames_at or self._held_bytes > self._compact_bytes_at:
            self._compact_locked()
        self._ensure_thread_locked()
        # Wake the sender only when it waits for work: waking it during a retry wait on every
        # push would cost a thread switch per call in a tight loop.
        if self._idle:
            self._cond.notify_all()

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

    def _compact_locked(self) -> None:
        """Brings the queue under 90% of its bounds: first merges queued run.progress frames of
        one (run, worker, boot) into the latest one (counters are cumulative, so the latest
        reading carries everything), then drops the oldest metrics/events, then artifacts."""
        target_frames = int(self.max_queue_frames * 0.9)
        target_bytes = int(self.max_queue_bytes * 0.9)

        def over() -> bool:
            return len(self._queue) + len(self._inflight) > target_frames or self._held_bytes > target_bytes

        groups: Dict[Tuple[Any, ...], List[_Frame]] = {}
        for f in self._queue:
            if f.progress is not None:
                groups.setdefault((f.run, f.progress["workerId"], f.progress["bootId"]), []).append(f)
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
            self._held_bytes += replacement.size - latest.size
            latest.id, latest.text, latest.size, latest.progress = replacement.id, replacement.text, replacement.size, merged
            for f in frames[:-1]:
                merged_away.add(id(f))
        if merged_away:
            kept: Deque[_Frame] = deque()
            for f in self._queue:
                if id(f) in merged_away:
                    self._held_bytes -= f.size
                else:
                    kept.append(f)
            self._queue = kept
            self.coalesced_frames += len(merged_away)

        dropped: Dict[str, int] = {}
        for droppable in (("run.metrics", "run.event"), ("run.artifact",)):
            if not over():
                break
            excess_frames = len(self._queue) + len(self._inflight) - target_frames
            excess_bytes = self._held_bytes - target_bytes
            kept = deque()
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
            log.warning(
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
            log.error("pitwall: cannot start the sender thread (%s); frames stay queued", err)
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
                log.exception("pitwall: unexpected error while sending")
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
        body = ("[" + ",".join(f.text for f in batch) + "]").encode("utf-8")
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
                log.warning("pitwall: reached %s again after %.0f s; sending the queued frames", self.url, now - self._down_since)
            self._down_since = None
            self._failures = 0
            self._retry_at = 0.0
            self.last_error = None
            self._poison_id, self._poison_strikes = None, 0
            self._batch_cap = min(self.max_batch_frames, self._batch_cap * 2)
            for i, f in enumerate(batch):
                self._held_bytes -= f.size
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
            self._held_bytes -= batch[0].size
            self._reject_locked(batch[0], code, reason)
            return
        if kind == "retry" and outcome[2] == 500 and self._isolate_server_error_locked(batch, outcome[1]):
            return
        # retry / config: keep the frames in front, in order, and wait before the next attempt.
        reason = outcome[1]
        self._queue.extendleft(reversed(batch))
        self._failures += 1
        self.last_error = reason
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
            log.log(level, "pitwall: cannot deliver to %s: %s; keeping %d frame(s) and retrying (waits up to %g s)",
                    self._ingest_url, reason, held, self.max_backoff_s)
        elif now - self._last_down_log >= _DOWN_LOG_EVERY_S:
            self._last_down_log = now
            level = logging.ERROR if kind == "config" else logging.WARNING
            log.log(level, "pitwall: still cannot deliver to %s after %.0f s: %s; %d frame(s) queued",
                    self._ingest_url, now - self._down_since, reason, held)
        else:
            log.debug("pitwall: send failed (%s); retrying in %.1f s", reason, delay)

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
        self._held_bytes -= frame.size
        message = "the server answered {} for this frame alone {} times in a row; giving up on it".format(reason, self.give_up_after)
        error = FrameError(frame.id, frame.type, frame.run, "gave_up", message)
        self.errors.append(error)
        self.rejected_frames += 1
        if frame.owner is not None and len(frame.owner.errors) < _KEEP_ERRORS:
            frame.owner.errors.append(error)
        log.warning("pitwall: gave up on %s frame %s (run %r): %s", frame.type, frame.id, frame.run, message)
        return True

    def _reject_locked(self, frame: _Frame, code: str, message: str) -> None:
        error = FrameError(frame.id, frame.type, frame.run, code, message)
        self.errors.append(error)
        self.rejected_frames += 1
        if frame.owner is not None and len(frame.owner.errors) < _KEEP_ERRORS:
            frame.owner.errors.append(error)
        allowed, suppressed = self._throttle.allow("reject", self._clock())
        if suppressed:
            log.warning("pitwall: %d more rejected frame(s) were not logged", suppressed)
        if allowed:
            log.warning("pitwall: server rejected %s frame %s (run %r): %s: %s", frame.type, frame.id, frame.run, code, message)

    def _after_fork_in_child(self) -> None:
        # The child has a copy of the queue but no sender thread, and the lock may have been
        # held by the parent's thread: start afresh. The parent still sends what it queued.
        self._init_sync()
        self._queue = deque()
        self._inflight = []
        self._held_bytes = 0

    def _at_exit(self) -> None:
        with self._cond:
            if self._closed:
                return
            open_runs = [r.key for r in self._runs if not r._ended]
        for key in open_runs:
            log.warning("pitwall: run %r was not ended before exit (use `with pw.run(...)` or run.end()); "
                        "it will show as stale", key)
        # While the server is unreachable, the run's end already waited flush_timeout_s: make
        # one short last attempt instead of holding the exit for the full timeout again.
        timeout = self.flush_timeout_s if self._down_since is None else min(self.flush_timeout_s, 5.0)
        if not self.flush(timeout):
            with self._cond:
                left = len(self._queue) + len(self._inflight)
            log.warning("pitwall: %d frame(s) could not be delivered to %s before exit (%s); they are lost",
                        left, self.url, self.last_error or "timed out")
        with self._cond:
            self._stopping = True
            self._cond.notify_all()


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
        s = _step(step)
        ts = _now_ms()
        items = list(values.items()) if values else []
        items.extend(named.items())
        points: List[Dict[str, Any]] = []
        for key, value in items:
            if not isinstance(key, str) or not 1 <= len(key) <= 200:
                raise ValueError("metric keys are strings of 1 to 200 characters, got {!r}".format(key))
            number = _as_number(value)
            if number is None:
                self._warn_once("metric:" + key, "metric {!r} is not a number ({!r}); skipped".format(key, value))
                continue
            points.append({"key": key, "step": s, "value": number, "ts": ts})
        if not points:
            return
        frames = []
        for start in range(0, len(points), _MAX_METRIC_POINTS_PER_FRAME):
            chunk = points[start:start + _MAX_METRIC_POINTS_PER_FRAME]
            frames.append(_Frame({"v": PROTOCOL_VERSION, "id": _new_id(), "type": "run.metrics", "run": self.key, "points": chunk}, self))
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
            pw._emit_progress_locked(self, pw._clock())
            pw._push_locked([_Frame(frame, self)])
            if self in pw._runs:
                pw._runs.remove(self)
        if flush_timeout_s is not None and flush_timeout_s <= 0:
            return False
        delivered = pw.flush(flush_timeout_s)
        if not delivered:
            log.warning("pitwall: run %r ended, but not every frame reached %s yet (%s); still retrying in the background",
                        self.key, pw.url, pw.last_error or "timed out")
        return delivered

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
            log.exception("pitwall: could not end run %r", self.key)

    def _warn_once(self, what: str, message: str) -> None:
        if what in self._warned:
            return
        self._warned.add(what)
        log.warning("pitwall: run %r: %s", self.key, message)


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


@atexit.register
def _flush_all_at_exit() -> None:
    for client in list(_instances):
        try:
            client._at_exit()
        except Exception:
            log.exception("pitwall: error while flushing at exit")


def _reinit_after_fork() -> None:
    for client in list(_instances):
        client._after_fork_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reinit_after_fork)
