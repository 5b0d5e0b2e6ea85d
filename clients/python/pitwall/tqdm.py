"""tqdm bars that report themselves to Pitwall.

::

    import pitwall
    from pitwall.tqdm import tqdm          # instead of `from tqdm import tqdm`

    pitwall.init(kind="extraction", name="hidden states")
    for shard in tqdm(shards, desc="shards", unit="shard"):
        for f in tqdm(files(shard), desc="files", leave=False):
            ...

or ``pitwall.tqdm.patch()`` before importing the code that creates bars (it replaces
``tqdm.tqdm``, ``tqdm.std.tqdm``, ``tqdm.auto.tqdm`` and ``tqdm.autonotebook.tqdm``).

What a bar reports, while :func:`pitwall.current_run` (or the ``pitwall_run=`` argument) has a
run and the bar is not disabled:

- The outermost bar is the run's progress: ``n`` as done, ``total``, ``unit``. A bar created
  while another reporting bar is open (a nested bar) reports as a worker of the run named
  ``<worker id>/<desc>`` (or ``/bar-<n>``), so the run page lists it separately.
- Numbers in ``set_postfix`` (``uploaded=12``) become progress counters of that worker
  (cumulative; names cleaned to the protocol's ``[A-Za-z][A-Za-z0-9_.-/]*``).
- At most once a second, metrics ``tqdm/<desc>/rate`` (units per second, counted from this
  process's start, so a bar resumed with ``initial=`` does not look faster than it is) and
  ``tqdm/<desc>/eta_s`` (seconds, from that rate) at step ``n``.

Reporting never raises into the loop: a problem is logged once through the ``pitwall`` logger.
Requires the ``tqdm`` package (imported only when this module is).
"""

import logging
import re
import threading
import time
from typing import Any, Dict, List, Optional

import tqdm as _tqdm_pkg
from tqdm.std import tqdm as _std_tqdm

import pitwall

__all__ = ["tqdm", "trange", "patch", "unpatch"]

_logger = logging.getLogger("pitwall")
_BAD_CHARS = re.compile(r"[^A-Za-z0-9_.\-/]")
_open_bars: List["tqdm"] = []
_open_lock = threading.Lock()
_bar_counter = 0
_warned = False


def _counter_name(key: Any) -> Optional[str]:
    name = _BAD_CHARS.sub("_", str(key))[:100]
    if not name:
        return None
    if not name[0].isalpha():
        name = ("c" + name)[:100]
    return name


class tqdm(_std_tqdm):  # type: ignore[misc,valid-type]
    """A ``tqdm.std.tqdm`` that also reports to Pitwall (see the module's doc). Takes every
    tqdm argument, plus ``pitwall_run`` (a :class:`pitwall.Run`; default
    :func:`pitwall.current_run`)."""

    def __init__(self, *args: Any, pitwall_run: "Optional[pitwall.Run]" = None, **kwargs: Any) -> None:
        global _bar_counter
        self._pw_target: "Optional[pitwall.Run]" = None
        self._pw_metric_prefix = ""
        self._pw_counters: Dict[str, float] = {}
        self._pw_t0 = time.monotonic()
        self._pw_next_metrics = 0.0
        super().__init__(*args, **kwargs)
        run = pitwall_run if pitwall_run is not None else pitwall.current_run()
        if run is None or self.disable:
            return
        self._pw_initial = self.n
        with _open_lock:
            _bar_counter += 1
            nested = any(not b._pw_closed for b in _open_bars)
            self._pw_closed = False
            _open_bars.append(self)
        label = _BAD_CHARS.sub("_", str(self.desc or "").strip().rstrip(":")) or "bar-{}".format(_bar_counter)
        self._pw_metric_prefix = "tqdm/{}/".format(label[:80])
        self._pw_target = run.worker("{}/{}".format(run.worker_id, label)) if nested else run
        self._pw_report(force=True)

    _pw_closed = True

    def update(self, n: float = 1) -> Optional[bool]:
        displayed = super().update(n)
        if self._pw_target is not None:
            self._pw_report()
        return displayed

    def set_postfix(self, ordered_dict: Any = None, refresh: bool = True, **kwargs: Any) -> None:
        super().set_postfix(ordered_dict, refresh=refresh, **kwargs)
        if self._pw_target is None:
            return
        items = dict(ordered_dict or {})
        items.update(kwargs)
        for key, value in items.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                try:
                    value = float(value)
                except (TypeError, ValueError):
                    continue
            name = _counter_name(key)
            if name is not None:
                self._pw_counters[name] = value
        self._pw_report()

    def close(self) -> None:
        target = self._pw_target
        if target is not None and not self._pw_closed:
            self._pw_report(force=True)
            self._pw_closed = True
            with _open_lock:
                if self in _open_bars:
                    _open_bars.remove(self)
        super().close()

    def _pw_report(self, force: bool = False) -> None:
        global _warned
        target = self._pw_target
        if target is None:
            return
        try:
            total = int(self.total) if self.total is not None and self.total >= 0 else None
            target.progress(int(self.n), total=total, unit=str(self.unit or "it"),
                            counters={k: v for k, v in self._pw_counters.items() if v >= 0} or None)
            now = time.monotonic()
            if force or now >= self._pw_next_metrics:
                self._pw_next_metrics = now + 1.0
                elapsed = now - self._pw_t0
                done_here = self.n - self._pw_initial
                if elapsed > 0 and done_here > 0:
                    rate = done_here / elapsed
                    values = {self._pw_metric_prefix + "rate": rate}
                    if total is not None:
                        values[self._pw_metric_prefix + "eta_s"] = max(0.0, (total - self.n) / rate)
                    target.metrics(int(self.n), values)
        except Exception as err:  # never break the loop
            if not _warned:
                _warned = True
                _logger.warning("pitwall: a tqdm bar could not report (%s); reporting errors are not logged again", err)


def trange(*args: Any, **kwargs: Any) -> tqdm:
    """``tqdm(range(*args), **kwargs)``."""
    return tqdm(range(*args), **kwargs)


_originals: Dict[str, Any] = {}


def patch() -> None:
    """Makes every bar created from now on a reporting one: replaces ``tqdm.tqdm``,
    ``tqdm.trange``, ``tqdm.std.tqdm``, ``tqdm.auto.tqdm`` and ``tqdm.autonotebook.tqdm``.
    Code that already did ``from tqdm import tqdm`` keeps the class it imported: call this
    before importing it. :func:`unpatch` undoes it."""
    import importlib

    targets = [("tqdm", "tqdm"), ("tqdm", "trange"), ("tqdm.std", "tqdm"), ("tqdm.std", "trange"),
               ("tqdm.auto", "tqdm"), ("tqdm.auto", "trange"), ("tqdm.autonotebook", "tqdm"), ("tqdm.autonotebook", "trange")]
    for module_name, attr in targets:
        try:
            module = importlib.import_module(module_name)
        except Exception:
            continue
        key = module_name + "." + attr
        if key not in _originals:
            _originals[key] = getattr(module, attr, None)
        setattr(module, attr, tqdm if attr == "tqdm" else trange)


def unpatch() -> None:
    """Restores what :func:`patch` replaced."""
    import importlib

    for key, value in list(_originals.items()):
        module_name, attr = key.rsplit(".", 1)
        setattr(importlib.import_module(module_name), attr, value)
    _originals.clear()


_ = _tqdm_pkg  # the package must be importable: a clear ImportError otherwise
