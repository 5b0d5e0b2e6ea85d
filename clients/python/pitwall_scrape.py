"""Live serving telemetry for Pitwall from SGLang / vLLM ``/metrics`` (Prometheus text format
0.0.4), standard library only, Python 3.9+. The same scraper as ``npx pitwall scrape``: copy it
next to ``pitwall.py`` and run::

    python3 pitwall_scrape.py http://127.0.0.1:30000/metrics --interval 5

or from a script::

    from pitwall import Pitwall
    from pitwall_scrape import ServingScraper

    scraper = ServingScraper(Pitwall(), ["http://127.0.0.1:30000/metrics"], interval_s=5)
    scraper.run(stop_event)  # until stop_event is set; then scraper.finish()

Each endpoint is a run of kind ``serving`` (key ``serving:<engine host>:<port><path>``) whose
metrics have step = unix milliseconds and the keys of docs/protocol.md ("Serving runs"):
``serving/running_requests``, ``serving/queued_requests``, ``serving/kv_cache_usage`` (0-1),
``serving/gen_tok_per_s`` (SGLang's own gauge), ``serving/prompt_tok_per_s`` and
``serving/generation_tok_per_s`` (reset-aware counter increases per second),
``serving/{ttft,itl,e2e}_ms_{p50,p99}`` (from the histogram buckets added since the previous
scrape, interpolated like Prometheus's histogram_quantile), ``serving/accept_length`` (SGLang's
gauge; vLLM ``1 + d(accepted) / d(drafts)``), ``serving/accept_rate_pos/<i>`` (vLLM), summed over
DP ranks / engines (KV usage and SGLang's accept length averaged). An endpoint that does not
answer gets ``serving/up`` = 0 and nothing else (a gap), and one warning event per outage.

With ``--dcgm URL`` (an NVIDIA dcgm-exporter ``/metrics``), every good scrape also carries the GPU
readings: ``serving/gpu_util_pct`` (mean over GPUs), ``serving/gpu_mem_used_mib`` and
``serving/gpu_power_w`` (sums), ``serving/gpu_temp_c`` (hottest GPU), and per GPU (the exporter's
``gpu`` index label) ``serving/gpu/<index>/{util_pct,mem_used_mib,power_w,temp_c}``.
"""

import argparse
import math
import re
import signal
import socket
import sys
import threading
import time
import urllib.parse
import urllib.request
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import pitwall

__all__ = ["Sample", "parse_exposition", "histogram_quantile", "derive_serving", "derive_dcgm", "scrape_target", "ServingScraper", "main"]


class Sample(NamedTuple):
    """One exposition line: full sample name, labels, value (NaN and +-Inf kept)."""

    name: str
    labels: Dict[str, str]
    value: float


_LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[^"}]|"(?:[^"\\]|\\.)*")*\})?\s+(\S+)(?:\s+-?\d+)?\s*$')
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?')
_FLOATS = {"NaN": math.nan, "+Inf": math.inf, "Inf": math.inf, "-Inf": -math.inf}


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), value)


def parse_exposition(text: str) -> List[Sample]:
    """Parses Prometheus text exposition (what prometheus_client serves). Comment lines are
    skipped; a malformed line is skipped too, never raising, so one bad line costs one sample."""
    out: List[Sample] = []
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _LINE.match(line)
        if not m:
            continue
        try:
            value = _FLOATS[m.group(3)] if m.group(3) in _FLOATS else float(m.group(3))
        except ValueError:
            continue
        labels = {k: _unescape(v) for k, v in _LABEL.findall(m.group(2)[1:-1])} if m.group(2) else {}
        out.append(Sample(m.group(1), labels, value))
    return out


def histogram_quantile(q: float, buckets: Sequence[Tuple[float, float]]) -> float:
    """The q-quantile of cumulative buckets ``[(le, count), ...]`` as Prometheus's
    histogram_quantile computes it (linear inside the bucket, 0 as the first lower bound; a rank
    in +Inf gives the highest finite bound). NaN without observations or without +Inf."""
    b = sorted(buckets)
    if len(b) < 2 or b[-1][0] != math.inf or not b[-1][1] > 0 or not 0 <= q <= 1:
        return math.nan
    rank = q * b[-1][1]
    i = next((j for j, (_, c) in enumerate(b) if c >= rank), len(b) - 1)
    if i == len(b) - 1:
        return b[-2][0]
    le, count = b[i]
    if i == 0 and le <= 0:
        return le
    lower, below = (0.0, 0.0) if i == 0 else b[i - 1]
    if count - below <= 0:
        return le
    return lower + (le - lower) * ((rank - below) / (count - below))


def _series_id(s: Sample, without: str = "") -> Tuple:
    return (s.name,) + tuple(sorted((k, v) for k, v in s.labels.items() if k != without))


def _values(samples: Sequence[Sample], name: str) -> List[float]:
    return [s.value for s in samples if s.name == name and not math.isnan(s.value)]


def _gauge(samples: Sequence[Sample], name: str, mean: bool = False) -> Optional[float]:
    vals = _values(samples, name)
    if not vals:
        return None
    return sum(vals) / len(vals) if mean else sum(vals)


def _increase(prev: Sequence[Sample], cur: Sequence[Sample], name: str, where: Callable[[Sample], bool] = lambda s: True) -> Optional[float]:
    """Counter increase summed over series; a series that went down restarted (its value is the
    increase); a series missing from either scrape, or NaN, adds nothing. None without any."""
    before = {_series_id(s): s.value for s in prev if s.name == name and where(s)}
    total = None
    for s in cur:
        if s.name != name or not where(s):
            continue
        p = before.get(_series_id(s))
        if p is None or math.isnan(p) or math.isnan(s.value):
            continue
        total = (total or 0.0) + (s.value - p if s.value >= p else s.value)
    return total


def _histogram_increase(prev: Sequence[Sample], cur: Sequence[Sample], family: str) -> List[Tuple[float, float]]:
    def group(samples: Sequence[Sample]) -> Dict[Tuple, Dict[float, float]]:
        out: Dict[Tuple, Dict[float, float]] = {}
        for s in samples:
            if s.name != family + "_bucket" or "le" not in s.labels or math.isnan(s.value):
                continue
            try:
                le = math.inf if s.labels["le"] == "+Inf" else float(s.labels["le"])
            except ValueError:
                continue
            out.setdefault(_series_id(s, "le"), {})[le] = s.value
        return out

    before = group(prev)
    sums: Dict[float, float] = {}
    for sid, buckets in group(cur).items():
        base = before.get(sid)
        if base is None:
            continue
        reset = buckets.get(math.inf, 0.0) < base.get(math.inf, 0.0)
        for le, count in buckets.items():
            sums[le] = sums.get(le, 0.0) + (count if reset else max(0.0, count - base.get(le, 0.0)))
    return sorted(sums.items())


_ENGINES = {
    "sglang": {"running": "sglang:num_running_reqs", "queued": "sglang:num_queue_reqs", "kv": ["sglang:token_usage"],
               "gen": "sglang:gen_throughput", "prompt": "sglang:prompt_tokens_total", "generation": "sglang:generation_tokens_total",
               "ttft": "sglang:time_to_first_token_seconds", "itl": ["sglang:inter_token_latency_seconds", "sglang:time_per_output_token_seconds"],
               "e2e": "sglang:e2e_request_latency_seconds", "accept": "sglang:spec_accept_length"},
    "vllm": {"running": "vllm:num_requests_running", "queued": "vllm:num_requests_waiting", "kv": ["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"],
             "prompt": "vllm:prompt_tokens_total", "generation": "vllm:generation_tokens_total",
             "ttft": "vllm:time_to_first_token_seconds", "itl": ["vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"],
             "e2e": "vllm:e2e_request_latency_seconds", "drafts": "vllm:spec_decode_num_drafts_total",
             "accepted": "vllm:spec_decode_num_accepted_tokens_total", "per_pos": "vllm:spec_decode_num_accepted_tokens_per_pos_total"},
}


def derive_serving(prev: Optional[Tuple[float, List[Sample]]], cur: Tuple[float, List[Sample]]) -> Tuple[Optional[str], Optional[str], Dict[str, float]]:
    """``(engine, model, values)`` of scrape ``cur`` = ``(ts_ms, samples)``, with the previous
    scrape of the same endpoint (or None) for rates and window quantiles. Keys absent from the
    engine's output are left out."""
    ts_ms, s = cur
    engine = next((e for e in ("sglang", "vllm") if any(x.name.startswith(e + ":") for x in s)), None)
    model = next((x.labels["model_name"] for x in s if "model_name" in x.labels), None)
    values: Dict[str, float] = {"serving/up": 1.0}
    if engine is None:
        return None, model, values
    n = _ENGINES[engine]

    def put(key: str, v: Optional[float]) -> None:
        if v is not None and not math.isnan(v):
            values[key] = v

    present = {x.name for x in s}
    put("serving/running_requests", _gauge(s, n["running"]))
    put("serving/queued_requests", _gauge(s, n["queued"]))
    put("serving/kv_cache_usage", _gauge(s, next((k for k in n["kv"] if k in present), n["kv"][0]), mean=True))
    if "gen" in n:
        put("serving/gen_tok_per_s", _gauge(s, n["gen"]))
    if "accept" in n:
        tau = _gauge(s, n["accept"], mean=True)
        if tau is not None and tau > 0:
            put("serving/accept_length", tau)
    if prev is None:
        return engine, model, values
    p = prev[1]
    dt_s = (ts_ms - prev[0]) / 1000.0
    if dt_s > 0:
        for key, counter in (("serving/prompt_tok_per_s", n["prompt"]), ("serving/generation_tok_per_s", n["generation"])):
            inc = _increase(p, s, counter)
            put(key, None if inc is None else inc / dt_s)
    itl = next((f for f in n["itl"] if f + "_bucket" in present), n["itl"][0])
    for name, family in (("ttft", n["ttft"]), ("itl", itl), ("e2e", n["e2e"])):
        inc = _histogram_increase(p, s, family)
        put("serving/{}_ms_p50".format(name), histogram_quantile(0.5, inc) * 1000)
        put("serving/{}_ms_p99".format(name), histogram_quantile(0.99, inc) * 1000)
    if "drafts" in n:
        drafts = _increase(p, s, n["drafts"])
        if drafts:
            accepted = _increase(p, s, n["accepted"])
            put("serving/accept_length", None if accepted is None else 1 + accepted / drafts)
            for pos in sorted({x.labels.get("position", "") for x in s if x.name == n["per_pos"]}):
                if pos.isdigit():
                    acc = _increase(p, s, n["per_pos"], lambda x, pos=pos: x.labels.get("position") == pos)
                    put("serving/accept_rate_pos/" + pos, None if acc is None else acc / drafts)
    return engine, model, values


#: Per-GPU key suffix -> DCGM field (dcgm-exporter's default counters).
_DCGM_GPU_FIELDS = (("util_pct", "DCGM_FI_DEV_GPU_UTIL"), ("mem_used_mib", "DCGM_FI_DEV_FB_USED"),
                    ("power_w", "DCGM_FI_DEV_POWER_USAGE"), ("temp_c", "DCGM_FI_DEV_GPU_TEMP"))
_GPU_INDEX = re.compile(r"^\d{1,4}$")


def derive_dcgm(s: Sequence[Sample]) -> Dict[str, float]:
    """GPU readings of one dcgm-exporter scrape by key (see the module docstring; lib/serving/dcgm.ts
    is the same code): fields the exporter does not serve are left out, NaN skipped."""
    values: Dict[str, float] = {}

    def put(key: str, v: Optional[float]) -> None:
        if v is not None and not math.isnan(v):
            values[key] = v

    put("serving/gpu_util_pct", _gauge(s, "DCGM_FI_DEV_GPU_UTIL", mean=True))
    put("serving/gpu_mem_used_mib", _gauge(s, "DCGM_FI_DEV_FB_USED"))
    put("serving/gpu_power_w", _gauge(s, "DCGM_FI_DEV_POWER_USAGE"))
    temps = _values(s, "DCGM_FI_DEV_GPU_TEMP")
    put("serving/gpu_temp_c", max(temps) if temps else None)
    for field, name in _DCGM_GPU_FIELDS:
        for x in s:
            gpu = x.labels.get("gpu")
            # One series per GPU; a second one for the same GPU (another label set) keeps the first.
            if x.name != name or gpu is None or not _GPU_INDEX.match(gpu) or math.isnan(x.value):
                continue
            values.setdefault("serving/gpu/{}/{}".format(gpu, field), x.value)
    return values


_LOOPBACK = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}


def scrape_target(url: str, host: Optional[str] = None, local_hostname: Optional[str] = None) -> Tuple[str, str, Optional[str]]:
    """``(engine_host, run_key, run_host)`` of an endpoint: the engine's host is ``host``, else
    the URL's hostname, else (loopback) this machine, whose runs stay on the token's host
    (``run_host`` None). :raises ValueError: for a URL that is not http(s)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("only http(s) endpoints can be scraped: {}".format(url))
    named = host if host is not None else (None if parts.hostname in _LOOPBACK else parts.hostname)
    engine_host = re.sub(r"[^A-Za-z0-9._-]", "-", named or local_hostname or socket.gethostname()).lstrip("._-")[:100] or "engine"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return engine_host, "serving:{}:{}{}".format(engine_host, port, parts.path)[:200], None if named is None else engine_host


def _fetch(url: str, timeout_s: float) -> str:
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": "text/plain"}), timeout=timeout_s) as res:
        return res.read().decode("utf-8", "replace")


class ServingScraper:
    """Scrapes ``urls`` every ``interval_s`` into serving runs of the Pitwall client ``pw``.
    ``dcgm_url``: a dcgm-exporter ``/metrics`` whose GPU readings go into every good scrape.
    ``fetch(url, timeout_s) -> text`` and ``clock() -> epoch ms`` are injectable for tests."""

    def __init__(self, pw: "pitwall.Pitwall", urls: Sequence[str], interval_s: float = 5.0, host: Optional[str] = None,
                 fetch: Callable[[str, float], str] = _fetch, clock: Callable[[], float] = lambda: time.time() * 1000,
                 dcgm_url: Optional[str] = None) -> None:
        self._fetch = fetch
        self._clock = clock
        self.interval_s = float(interval_s)
        self.dcgm_url = dcgm_url
        self._dcgm_down = False
        self._targets = []
        for url in urls:
            engine_host, key, run_host = scrape_target(url, host)
            run = pw.run("serving", "serving @ {}".format(engine_host), key=key, host=run_host,
                         stall_after_s=min(7 * 86_400, max(120, math.ceil(self.interval_s * 6))),
                         config={"url": url, "engineHost": engine_host, "scrapedBy": socket.gethostname(), "intervalS": self.interval_s,
                                 **({"dcgmUrl": dcgm_url} if dcgm_url else {})})
            self._targets.append({"url": url, "run": run, "prev": None, "down_since": None})

    @property
    def run_keys(self) -> List[str]:
        """Keys of the serving runs, in URL order."""
        return [t["run"].key for t in self._targets]

    def _scrape_dcgm(self) -> Dict[str, float]:
        if not self.dcgm_url:
            return {}
        try:
            values = derive_dcgm(parse_exposition(self._fetch(self.dcgm_url, max(5.0, min(10.0, self.interval_s)))))
        except Exception as err:  # noqa: BLE001 - an exporter that does not answer only loses the GPU readings
            if not self._dcgm_down:
                print("pitwall: DCGM exporter at {} not reachable ({}); GPU readings skipped".format(self.dcgm_url, err), file=sys.stderr, flush=True)
            self._dcgm_down = True
            return {}
        if self._dcgm_down:
            print("pitwall: DCGM exporter at {} answers again".format(self.dcgm_url), file=sys.stderr, flush=True)
        self._dcgm_down = False
        return values

    def scrape_once(self) -> None:
        """Scrapes the DCGM exporter (if any) and every endpoint once; a failing endpoint is reported, never raised."""
        dcgm = self._scrape_dcgm()
        for t in self._targets:
            try:
                text = self._fetch(t["url"], max(5.0, min(10.0, self.interval_s)))
            except Exception as err:  # noqa: BLE001 - any failure is an engine that does not answer
                now = int(self._clock())
                t["run"].metrics(now, {"serving/up": 0.0})
                if t["down_since"] is None:
                    t["down_since"] = now
                    t["run"].event("engine at {} not reachable ({}); no samples until it answers".format(t["url"], err), level="warn")
                t["prev"] = None
                continue
            cur = (self._clock(), parse_exposition(text))
            _engine, _model, values = derive_serving(t["prev"], cur)
            t["prev"] = cur
            if t["down_since"] is not None:
                t["run"].event("engine at {} answers again after {} s".format(t["url"], round((cur[0] - t["down_since"]) / 1000)))
                t["down_since"] = None
            t["run"].metrics(int(cur[0]), {**values, **dcgm})

    def run(self, stop: threading.Event) -> None:
        """Scrapes now and every ``interval_s`` until ``stop`` is set, then once more."""
        while not stop.is_set():
            started = time.monotonic()
            self.scrape_once()
            stop.wait(max(0.0, self.interval_s - (time.monotonic() - started)))
        self.scrape_once()

    def finish(self, flush_timeout_s: float = 10.0) -> None:
        """Ends every serving run ``ended`` (scraping stopped; telemetry has no outcome) and waits for delivery."""
        for t in self._targets:
            t["run"].end("ended", flush_timeout_s=flush_timeout_s)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python3 pitwall_scrape.py URL... [--interval S] [--host NAME] [--dcgm URL]`` until SIGINT/SIGTERM."""
    ap = argparse.ArgumentParser(description="push SGLang / vLLM /metrics to Pitwall as serving runs (PITWALL_URL, PITWALL_TOKEN)")
    ap.add_argument("urls", nargs="+", help="e.g. http://127.0.0.1:30000/metrics")
    ap.add_argument("--interval", type=float, default=5.0, help="seconds between scrapes (default 5)")
    ap.add_argument("--host", help="the engines' host (default: the URL's hostname; this machine for localhost)")
    ap.add_argument("--dcgm", metavar="URL", help="an NVIDIA dcgm-exporter /metrics URL: GPU utilisation, memory, power and temperature go into the same runs")
    args = ap.parse_args(argv)
    if not 0.2 <= args.interval <= 3600:
        ap.error("--interval must be between 0.2 and 3600 seconds")
    try:
        scraper = ServingScraper(pitwall.Pitwall(), args.urls, args.interval, args.host, dcgm_url=args.dcgm)
    except ValueError as err:
        ap.error(str(err))
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    print("pitwall: scraping {} every {} s into {}".format(", ".join(args.urls), args.interval, ", ".join(scraper.run_keys)), flush=True)
    scraper.run(stop)
    scraper.finish()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
