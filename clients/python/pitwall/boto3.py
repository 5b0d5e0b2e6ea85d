"""S3 upload counters for a run, with no change to the upload code::

    import boto3, pitwall, pitwall.boto3
    run = pitwall.init(kind="extraction", name="hidden states")
    pitwall.boto3.instrument(run)          # before the clients are created, or pass them
    s3 = boto3.client("s3")
    s3.upload_file("shard-0001.pt", "bucket", "hidden/shard-0001.pt")   # counted

Counters (progress counters of the run's worker, cumulative for this process; ``s3.inflight``
is a gauge): ``s3.started``, ``s3.completed``, ``s3.failed``, ``s3.retried`` (HTTP attempts
beyond the first, over all S3 calls), ``s3.bytes`` (bytes of completed PutObject bodies and
UploadPart parts) and ``s3.inflight`` (uploads started and not yet completed or failed).

An *upload* is a ``PutObject`` call, or a multipart upload from ``CreateMultipartUpload`` to
``CompleteMultipartUpload`` (what ``upload_file``/``upload_fileobj``/s3transfer do for large
files); a multipart upload fails when any of its calls fails for good or it is aborted.

It works through botocore's event hooks (``before-parameter-build``, ``needs-retry``,
``after-call``, ``after-call-error`` for service ``s3``), registered on the given boto3
client(s), ``boto3.Session``, or (default) boto3's default session, so clients made from it
afterwards are counted; s3transfer's managed uploads go through the same calls. Requires boto3
(imported only when this module is).
"""

import logging
import threading
from typing import Any, Dict, Optional, Set

import boto3 as _boto3

import pitwall

__all__ = ["instrument", "S3Counters"]

_logger = logging.getLogger("pitwall")
_KEY = "pitwall_s3"
_UPLOAD_OPS = ("PutObject", "CreateMultipartUpload", "UploadPart", "CompleteMultipartUpload", "AbortMultipartUpload")


def _body_size(params: Dict[str, Any]) -> int:
    length = params.get("ContentLength")
    if isinstance(length, int) and length >= 0:
        return length
    body = params.get("Body")
    if body is None:
        return 0
    if isinstance(body, (bytes, bytearray, memoryview)):
        return len(body)
    if isinstance(body, str):
        return len(body.encode("utf-8"))
    try:
        return len(body)
    except TypeError:
        pass
    try:
        position = body.tell()
        body.seek(0, 2)
        end = body.tell()
        body.seek(position)
        return max(0, end - position)
    except Exception:
        return 0


class S3Counters:
    """The counters of one :func:`instrument` call. :meth:`snapshot` reads them;
    :meth:`uninstrument` removes the hooks."""

    def __init__(self, run: "Optional[pitwall.Run]") -> None:
        self.run = run
        self._lock = threading.Lock()
        self._values: Dict[str, int] = {"s3.started": 0, "s3.completed": 0, "s3.failed": 0, "s3.retried": 0, "s3.bytes": 0, "s3.inflight": 0}
        self._open_uploads: Set[str] = set()
        self._emitters: list = []

    def snapshot(self) -> Dict[str, int]:
        """The current counter values (a copy)."""
        with self._lock:
            return dict(self._values)

    # botocore handlers ----------------------------------------------------------------------

    def _before(self, params: Dict[str, Any], model: Any, context: Dict[str, Any], **_: Any) -> None:
        op = model.name
        info = {"op": op, "bytes": _body_size(params) if op in ("PutObject", "UploadPart") else 0, "upload_id": params.get("UploadId"), "attempts": 1}
        context[_KEY] = info
        if op in ("PutObject", "CreateMultipartUpload"):
            self._change({"s3.started": 1, "s3.inflight": 1})

    def _needs_retry(self, attempts: int = 1, request_dict: Optional[Dict[str, Any]] = None, **_: Any) -> None:
        context = (request_dict or {}).get("context") or {}
        info = context.get(_KEY)
        if info is not None:
            info["attempts"] = max(info["attempts"], int(attempts or 1))

    def _after(self, http_response: Any, parsed: Dict[str, Any], model: Any, context: Dict[str, Any], **_: Any) -> None:
        info = context.get(_KEY)
        if info is None:
            return
        meta = parsed.get("ResponseMetadata", {}) if isinstance(parsed, dict) else {}
        retries = max(int(meta.get("RetryAttempts", 0) or 0), info["attempts"] - 1)
        ok = getattr(http_response, "status_code", 500) < 300
        self._settle(info, ok, retries, parsed.get("UploadId") if ok and isinstance(parsed, dict) else None)

    def _after_error(self, exception: BaseException, context: Dict[str, Any], **_: Any) -> None:
        info = context.get(_KEY)
        if info is None:
            return
        self._settle(info, False, info["attempts"] - 1, None)

    def _settle(self, info: Dict[str, Any], ok: bool, retries: int, new_upload_id: Optional[str]) -> None:
        op = info["op"]
        delta: Dict[str, int] = {"s3.retried": retries} if retries > 0 else {}
        with self._lock:
            if op == "PutObject":
                delta.update({"s3.completed": 1, "s3.bytes": info["bytes"]} if ok else {"s3.failed": 1})
                delta["s3.inflight"] = -1
            elif op == "CreateMultipartUpload":
                if ok and new_upload_id:
                    self._open_uploads.add(new_upload_id)
                else:
                    delta.update({"s3.failed": 1, "s3.inflight": -1})
            elif op == "UploadPart":
                if ok:
                    delta["s3.bytes"] = info["bytes"]
                elif info["upload_id"] in self._open_uploads:
                    self._open_uploads.discard(info["upload_id"])
                    delta.update({"s3.failed": 1, "s3.inflight": -1})
            elif op in ("CompleteMultipartUpload", "AbortMultipartUpload"):
                if info["upload_id"] in self._open_uploads:
                    self._open_uploads.discard(info["upload_id"])
                    done = ok and op == "CompleteMultipartUpload"
                    delta.update({"s3.completed": 1} if done else {"s3.failed": 1})
                    delta["s3.inflight"] = -1
        self._change(delta)

    def _change(self, delta: Dict[str, int]) -> None:
        if not delta:
            return
        with self._lock:
            for name, n in delta.items():
                self._values[name] += n
            values = dict(self._values)
        run = self.run if self.run is not None else pitwall.current_run()
        if run is not None:
            try:
                run.progress(counters=values)
            except Exception as err:  # never break an upload
                _logger.warning("pitwall: could not report S3 counters: %s", err)

    # registration ----------------------------------------------------------------------------

    def _register(self, emitter: Any) -> None:
        for op in _UPLOAD_OPS:
            emitter.register("before-parameter-build.s3.{}".format(op), self._before, unique_id="pitwall-s3-before-{}-{}".format(op, id(self)))
        emitter.register("needs-retry.s3", self._needs_retry, unique_id="pitwall-s3-retry-{}".format(id(self)))
        emitter.register("after-call.s3", self._after, unique_id="pitwall-s3-after-{}".format(id(self)))
        emitter.register("after-call-error.s3", self._after_error, unique_id="pitwall-s3-error-{}".format(id(self)))
        self._emitters.append(emitter)

    def uninstrument(self) -> None:
        """Removes the hooks from every emitter they were registered on."""
        for emitter in self._emitters:
            for op in _UPLOAD_OPS:
                emitter.unregister("before-parameter-build.s3.{}".format(op), unique_id="pitwall-s3-before-{}-{}".format(op, id(self)))
            emitter.unregister("needs-retry.s3", unique_id="pitwall-s3-retry-{}".format(id(self)))
            emitter.unregister("after-call.s3", unique_id="pitwall-s3-after-{}".format(id(self)))
            emitter.unregister("after-call-error.s3", unique_id="pitwall-s3-error-{}".format(id(self)))
        self._emitters = []


def instrument(run: "Optional[pitwall.Run]" = None, *targets: Any) -> S3Counters:
    """Counts S3 uploads for ``run`` (default: :func:`pitwall.current_run` at each change).
    ``targets``: boto3 clients or sessions to hook; none means boto3's default session (so call
    this before ``boto3.client("s3")``). Returns the :class:`S3Counters`."""
    counters = S3Counters(run)
    if not targets:
        if _boto3.DEFAULT_SESSION is None:
            _boto3.setup_default_session()
        targets = (_boto3.DEFAULT_SESSION,)
    for target in targets:
        meta = getattr(target, "meta", None)
        emitter = getattr(meta, "events", None) if meta is not None else None
        if emitter is None:
            emitter = getattr(target, "events", None)  # boto3.Session
        if emitter is None and hasattr(target, "get_component"):
            emitter = target.get_component("event_emitter")  # botocore session
        if emitter is None:
            raise TypeError("instrument() takes boto3 clients or sessions, got {!r}".format(type(target).__name__))
        counters._register(emitter)
    return counters
