"""Unit tests of pitwall_scrape (parser, deltas, window quantiles, the scraper's outage handling),
on the recorded SGLang exposition and inline vLLM text. No network, no database. Run:
python3 -W error -m unittest -v test_pitwall_scrape (from clients/python).
"""

import math
import os
import unittest
from typing import Any, Dict, List

import pitwall_scrape as ps

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "fixtures", "prometheus-metrics", "sglang_metrics_docs_excerpt.prom")
BOUNDS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 15, 20, 25, 30]


def sglang(ranks: List[Dict[str, Any]]) -> str:
    """SGLang-format exposition: one series per rank (dp_rank label), TTFT buckets per rank."""
    lines = []
    for r in ranks:
        lab = 'model_name="m",dp_rank="{}"'.format(r["dp"])
        lines += ["sglang:num_running_reqs{%s} %s" % (lab, r.get("running", 0)),
                  "sglang:num_queue_reqs{%s} %s" % (lab, r.get("queued", 0)),
                  "sglang:token_usage{%s} %s" % (lab, r.get("usage", 0)),
                  "sglang:prompt_tokens_total{%s} %s" % (lab, r.get("prompt", 0)),
                  "sglang:spec_accept_length{%s} %s" % (lab, r.get("tau", "NaN"))]
        cum = 0
        for i, le in enumerate([str(b) for b in BOUNDS] + ["+Inf"]):
            cum += r.get("ttft", {}).get(i, 0)
            lines.append('sglang:time_to_first_token_seconds_bucket{le="%s",%s} %s' % (le, lab, float(cum)))
    return "\n".join(lines) + "\n"


class ParseTest(unittest.TestCase):
    def test_recorded_sglang_exposition(self) -> None:
        with open(FIXTURE, encoding="utf-8") as f:
            samples = ps.parse_exposition(f.read())
        prompt = next(s for s in samples if s.name == "sglang:prompt_tokens_total")
        self.assertEqual(prompt.value, 8128902.0)
        self.assertEqual(prompt.labels, {"model_name": "meta-llama/Llama-3.1-8B-Instruct"})
        buckets = [(math.inf if s.labels["le"] == "+Inf" else float(s.labels["le"]), s.value) for s in samples if s.name.endswith("_bucket")]
        self.assertEqual(len(buckets), 21)
        # p20 of 11008 by hand: rank 2201.6 in (15, 20] (356 observations, 231.6 below the rank).
        self.assertAlmostEqual(ps.histogram_quantile(0.2, buckets), 15 + 5 * 231.6 / 356, places=9)
        self.assertEqual(ps.histogram_quantile(0.99, buckets), 30.0)

    def test_nan_inf_escapes_and_bad_lines(self) -> None:
        samples = ps.parse_exposition('x{a="1"} NaN\nx{a="2"} +Inf\nbad{a="1" 3\ny{b="q\\"z"} -Inf 1700000000000\nz three\n')
        self.assertEqual([s.name for s in samples], ["x", "x", "y"])
        self.assertTrue(math.isnan(samples[0].value))
        self.assertEqual(samples[1].value, math.inf)
        self.assertEqual(samples[2].labels, {"b": 'q"z'})


class DeriveTest(unittest.TestCase):
    def test_two_dp_ranks_with_a_reset(self) -> None:
        prev = (1_000_000, ps.parse_exposition(sglang([{"dp": 0, "prompt": 1000, "ttft": {8: 10}}, {"dp": 1, "prompt": 800000, "ttft": {15: 1000}}])))
        cur = (1_010_000, ps.parse_exposition(sglang([
            {"dp": 0, "running": 8, "usage": 0.5, "prompt": 3000, "ttft": {8: 60, 12: 50}, "tau": 3.2},
            {"dp": 1, "running": 4, "queued": 3, "usage": 0.9, "prompt": 500},
        ])))
        engine, model, v = ps.derive_serving(prev, cur)
        self.assertEqual((engine, model), ("sglang", "m"))
        self.assertEqual(v["serving/running_requests"], 12)
        self.assertEqual(v["serving/queued_requests"], 3)
        self.assertAlmostEqual(v["serving/kv_cache_usage"], 0.7)
        self.assertAlmostEqual(v["serving/accept_length"], 3.2)
        self.assertAlmostEqual(v["serving/prompt_tok_per_s"], (2000 + 500) / 10)
        self.assertAlmostEqual(v["serving/ttft_ms_p50"], 250)
        self.assertAlmostEqual(v["serving/ttft_ms_p99"], (1 + 1.5 * 49 / 50) * 1000)
        self.assertNotIn("serving/generation_tok_per_s", v)  # the series is missing: no zero-fill

    def test_vllm_spec_decode(self) -> None:
        def text(d0: float, a0: float, p0: float, d1: float, a1: float, p1: float) -> str:
            return "\n".join([
                'vllm:gpu_cache_usage_perc{engine="0"} 0.25', 'vllm:gpu_cache_usage_perc{engine="1"} 0.75',
                'vllm:spec_decode_num_drafts_total{engine="0"} %s' % d0, 'vllm:spec_decode_num_drafts_total{engine="1"} %s' % d1,
                'vllm:spec_decode_num_accepted_tokens_total{engine="0"} %s' % a0, 'vllm:spec_decode_num_accepted_tokens_total{engine="1"} %s' % a1,
                'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="0"} %s' % p0,
                'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",position="0"} %s' % p1,
            ])
        _, _, v = ps.derive_serving((0, ps.parse_exposition(text(100, 150, 90, 200, 300, 180))), (2000, ps.parse_exposition(text(140, 214, 126, 260, 386, 234))))
        self.assertAlmostEqual(v["serving/kv_cache_usage"], 0.5)
        self.assertAlmostEqual(v["serving/accept_length"], 2.5)
        self.assertAlmostEqual(v["serving/accept_rate_pos/0"], 0.9)


class FakeRun:
    def __init__(self, key: str) -> None:
        self.key = key
        self.metrics_calls: List[Dict[str, float]] = []
        self.events: List[Any] = []
        self.ended = None

    def metrics(self, step: int, values: Dict[str, float]) -> None:
        self.metrics_calls.append(dict(values))

    def event(self, message: str, level: str = "info") -> None:
        self.events.append((level, message))

    def end(self, status: str, flush_timeout_s: float = 0) -> None:
        self.ended = status


class FakePitwall:
    def __init__(self) -> None:
        self.runs: List[Any] = []

    def run(self, kind: str, name: str, **kw: Any) -> FakeRun:
        self.runs.append((kind, kw))
        return FakeRun(kw["key"])


class ScraperTest(unittest.TestCase):
    def test_keys_and_outage(self) -> None:
        self.assertEqual(ps.scrape_target("http://127.0.0.1:30000/metrics", local_hostname="kpro5"), ("kpro5", "serving:kpro5:30000/metrics", None))
        self.assertEqual(ps.scrape_target("http://gpu-3:8000/metrics")[1:], ("serving:gpu-3:8000/metrics", "gpu-3"))
        with self.assertRaises(ValueError):
            ps.scrape_target("localhost:30000")

        responses: List[Any] = [sglang([{"dp": 0, "prompt": 0}]), OSError("connection refused"), OSError("connection refused"), sglang([{"dp": 0, "prompt": 900}]), sglang([{"dp": 0, "prompt": 1400}])]
        now = [1_700_000_000_000]

        def fetch(url: str, timeout_s: float) -> str:
            r = responses.pop(0)
            if isinstance(r, Exception):
                raise r
            return r

        pw = FakePitwall()
        scraper = ps.ServingScraper(pw, ["http://127.0.0.1:30000/metrics"], interval_s=5, fetch=fetch, clock=lambda: now[0])  # type: ignore[arg-type]
        self.assertEqual(pw.runs[0][0], "serving")
        for _ in range(5):
            scraper.scrape_once()
            now[0] += 5000
        run = scraper._targets[0]["run"]
        self.assertEqual([e[0] for e in run.events], ["warn", "info"])
        self.assertIn("answers again after 10 s", run.events[1][1])
        self.assertEqual(run.metrics_calls[1], {"serving/up": 0.0})
        self.assertNotIn("serving/prompt_tok_per_s", run.metrics_calls[3])  # no window across the outage
        self.assertAlmostEqual(run.metrics_calls[4]["serving/prompt_tok_per_s"], 100)
        scraper.finish()
        self.assertEqual(run.ended, "ended")

    def test_dcgm_readings_join_good_scrapes(self) -> None:
        dcgm_text = "\n".join([
            'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-7"} 97',
            'DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-b",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-7"} 0',
            'DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-a"} 74213',
            'DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-b"} 1',
            'DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-a"} 512.25',
            'DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-b"} 98.5',
            'DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-a"} 61',
            'DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-b"} NaN',
        ])
        v = ps.derive_dcgm(ps.parse_exposition(dcgm_text))
        self.assertEqual(v["serving/gpu_util_pct"], 48.5)
        self.assertEqual(v["serving/gpu_mem_used_mib"], 74214)
        self.assertEqual(v["serving/gpu_power_w"], 610.75)
        self.assertEqual(v["serving/gpu_temp_c"], 61)
        self.assertEqual(v["serving/gpu/1/power_w"], 98.5)
        self.assertNotIn("serving/gpu/1/temp_c", v)
        self.assertEqual(len(v), 4 + 7)

        dcgm_up = [True, False]

        def fetch(url: str, timeout_s: float) -> str:
            if url.endswith(":9400/metrics"):
                if not dcgm_up.pop(0):
                    raise OSError("connection refused")
                return dcgm_text
            return sglang([{"dp": 0, "prompt": 0}])

        pw = FakePitwall()
        scraper = ps.ServingScraper(pw, ["http://gpu-7:30000/metrics"], interval_s=5, fetch=fetch, clock=lambda: 1_700_000_000_000,  # type: ignore[arg-type]
                                    dcgm_url="http://gpu-7:9400/metrics")
        self.assertEqual(pw.runs[0][1]["config"]["dcgmUrl"], "http://gpu-7:9400/metrics")
        scraper.scrape_once()
        scraper.scrape_once()  # the exporter is down: the engine's values still go out, without GPU readings
        run = scraper._targets[0]["run"]
        self.assertEqual(run.metrics_calls[0]["serving/gpu/0/util_pct"], 97)
        self.assertIn("serving/running_requests", run.metrics_calls[1])
        self.assertNotIn("serving/gpu_util_pct", run.metrics_calls[1])


if __name__ == "__main__":
    unittest.main()
