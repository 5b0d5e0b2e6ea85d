"""Unit tests of the Pitwall Python client against a small in-process HTTP server that speaks
POST /api/ingest (no database). End-to-end tests against the real server and PostgreSQL are in
python-client.slow.test.ts. Run: python3 -W error -m unittest -v test_pitwall (from clients/python).
"""

import ast
import json
import logging
import math
import os
import socket
import subprocess
import sys
import threading
import unittest
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List

import pitwall
from pitwall import Pitwall


class FakeIngest:
    """Records every frame POSTed to /api/ingest. ``statuses`` are answered first (one per
    request) before normal 200 answers; frames whose type is in ``reject_types`` get a per-frame
    invalid_frame result; a request holding a run.event whose message is in ``poison_messages``
    is answered 500 as a whole (a server that fails on a frame instead of rejecting it)."""

    def __init__(self, port: int = 0) -> None:
        self.frames: List[Dict[str, Any]] = []
        self.bodies: List[str] = []
        self.statuses: List[int] = []
        self.reject_types: set = set()
        self.poison_messages: set = set()
        self.poison_posts = 0
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                body = self.rfile.read(int(self.headers["Content-Length"])).decode("utf-8")
                with fake.lock:
                    status = fake.statuses.pop(0) if fake.statuses else 200
                    if status == 200 and any(f.get("message") in fake.poison_messages for f in json.loads(body)):
                        status = 500
                        fake.poison_posts += 1
                    if status == 200:
                        fake.bodies.append(body)
                        frames = json.loads(body)
                        fake.frames.extend(frames)
                        results = [
                            {"id": f["id"], "ok": False, "code": "invalid_frame", "message": "rejected by test"}
                            if f["type"] in fake.reject_types else {"id": f["id"], "ok": True, "duplicate": False}
                            for f in frames
                        ]
                        answer = {"results": results}
                    else:
                        answer = {"error": {"code": "unauthorized" if status == 401 else "internal", "message": "test says {}".format(status)}}
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = "http://127.0.0.1:{}".format(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def of_type(self, frame_type: str) -> List[Dict[str, Any]]:
        with self.lock:
            return [f for f in self.frames if f["type"] == frame_type]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def free_port() -> int:
    """A port where nothing listens (connections are refused at once) until a test starts a
    server there."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def closed_port_url() -> str:
    return "http://127.0.0.1:{}".format(free_port())


def setUpModule() -> None:
    # Keep the client's warnings out of the test output (assertLogs still sees them).
    logging.getLogger("pitwall").addHandler(logging.NullHandler())


class ClientTest(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakeIngest()
        self.clients: List[Pitwall] = []

    def tearDown(self) -> None:
        for client in self.clients:
            client.close(timeout_s=0)
        self.fake.close()

    def client(self, **kw: Any) -> Pitwall:
        kw.setdefault("url", self.fake.url)
        kw.setdefault("token", "pw_test")
        kw.setdefault("max_backoff_s", 0.5)
        c = Pitwall(**kw)
        self.clients.append(c)
        return c

    def test_frames_follow_the_protocol(self) -> None:
        pw = self.client(worker_id="gpu0")
        with pw.run(kind="extraction", name="hidden states", key="k1", total=914000, unit="samples",
                    config={"model": "Qwen3", "lr": float("nan")}, tags=["a"]) as run:
            run.progress(10, counters={"s3.uploaded": 3, "disk.freeBytes": 5e11})
            run.metrics(7, loss=float("nan"), lr=3e-4)
            run.metrics(2**60, {"train/loss": float("inf")})
            run.artifact("s3://bucket/ckpt-7", kind="checkpoint", size_bytes=1234, step=7)
            run.event("checkpoint uploaded", level="warning")
        types = [f["type"] for f in self.fake.frames]
        self.assertEqual(types, ["hello", "run.start", "run.progress", "run.metrics", "run.metrics", "run.artifact", "run.event", "run.end"])
        ids = [f["id"] for f in self.fake.frames]
        self.assertEqual(len(set(ids)), len(ids))
        for f in self.fake.frames:
            self.assertEqual(f["v"], 1)
            uuid.UUID(f["id"])
        start = self.fake.of_type("run.start")[0]
        self.assertEqual((start["run"], start["kind"], start["total"], start["unit"]), ("k1", "extraction", 914000, "samples"))
        self.assertTrue(math.isnan(start["config"]["lr"]))
        progress = self.fake.of_type("run.progress")[0]
        self.assertEqual(progress["workerId"], "gpu0")
        self.assertEqual(progress["bootId"], pitwall.BOOT_ID)
        self.assertEqual(progress["done"], 10)
        self.assertEqual(progress["counters"], {"s3.uploaded": 3, "disk.freeBytes": 5e11})
        metrics = self.fake.of_type("run.metrics")
        self.assertEqual(metrics[0]["points"][0]["key"], "loss")
        self.assertTrue(math.isnan(metrics[0]["points"][0]["value"]))
        self.assertEqual(metrics[1]["points"][0]["step"], str(2**60), "steps beyond 2^53 travel as strings")
        self.assertEqual(metrics[1]["points"][0]["value"], math.inf)
        self.assertIn(":NaN", "".join(self.fake.bodies), "non-finite values are bare JSON tokens")
        self.assertEqual(self.fake.of_type("run.event")[0]["level"], "warn")
        artifact = self.fake.of_type("run.artifact")[0]
        self.assertEqual((artifact["uri"], artifact["kind"], artifact["sizeBytes"], artifact["step"]), ("s3://bucket/ckpt-7", "checkpoint", 1234, 7))
        self.assertEqual(self.fake.of_type("run.end")[0]["status"], "succeeded")

    def test_output_lines_are_split_truncated_and_chunked(self) -> None:
        pw = self.client()
        with pw.run(kind="generation", name="completions", key="k-out") as run:
            run.output("loading\nready", "x" * 5000)
            run.output(*["line %d" % i for i in range(250)])
        frames = self.fake.of_type("run.output")
        self.assertEqual([f["run"] for f in frames], ["k-out"] * 3)
        self.assertEqual(frames[0]["lines"], ["loading", "ready", "x" * 3999 + "\u2026"])
        self.assertEqual([len(f["lines"]) for f in frames[1:]], [200, 50])
        self.assertEqual(frames[2]["lines"][-1], "line 249")

    def test_progress_is_rate_limited_and_the_latest_is_sent(self) -> None:
        pw = self.client(min_interval_s=3600)
        with pw.run(kind="extraction", name="tight loop") as run:
            for i in range(100_000):
                run.progress(i + 1, counters={"s3.uploaded": i + 1, "s3.inflight": i % 7})
        progress = self.fake.of_type("run.progress")
        self.assertEqual(len(progress), 2, "the first reading at once, the latest before run.end")
        self.assertEqual(progress[-1]["done"], 100_000)
        self.assertEqual(progress[-1]["counters"], {"s3.uploaded": 100_000, "s3.inflight": 99_999 % 7})
        types = [f["type"] for f in self.fake.frames]
        self.assertLess(types.index("run.progress", types.index("run.progress") + 1), types.index("run.end"))

    def test_pending_progress_is_sent_without_another_call(self) -> None:
        pw = self.client(min_interval_s=0.2)
        run = pw.run(kind="extraction", name="slow stage")
        run.progress(1)
        run.progress(2)  # within the interval: pending, sent by the sender thread when due
        deadline = threading.Event()
        for _ in range(100):
            if any(f.get("done") == 2 for f in self.fake.of_type("run.progress")):
                break
            deadline.wait(0.05)
        self.assertEqual([f["done"] for f in self.fake.of_type("run.progress")], [1, 2])
        run.end()

    def test_exception_in_block_ends_the_run_failed_and_propagates(self) -> None:
        pw = self.client()
        with self.assertRaises(RuntimeError):
            with pw.run(kind="training", name="boom"):
                raise RuntimeError("CUDA out of memory")
        end = self.fake.of_type("run.end")[0]
        self.assertEqual(end["status"], "failed")
        self.assertEqual(end["error"], "RuntimeError: CUDA out of memory")
        self.assertIn('raise RuntimeError("CUDA out of memory")', "\n".join(end["outputTail"]))

    def test_keyboard_interrupt_cancels(self) -> None:
        pw = self.client()
        with self.assertRaises(KeyboardInterrupt):
            with pw.run(kind="training", name="ctrl-c"):
                raise KeyboardInterrupt()
        self.assertEqual(self.fake.of_type("run.end")[0]["status"], "cancelled")

    def test_server_errors_are_retried_and_nothing_is_lost(self) -> None:
        self.fake.statuses = [503, 502, 500]
        pw = self.client()
        with self.assertLogs("pitwall", level="WARNING") as logs:
            with pw.run(kind="training", name="flaky") as run:
                for step in range(50):
                    run.metrics(step, loss=1.0 / (step + 1))
        steps = sorted(p["step"] for f in self.fake.of_type("run.metrics") for p in f["points"])
        self.assertEqual(steps, list(range(50)))
        self.assertTrue(any("HTTP 503" in line for line in logs.output))
        self.assertEqual(pw.stats()["queued"], 0)

    def test_unreachable_server_does_not_block_and_flush_times_out(self) -> None:
        pw = self.client(url=closed_port_url())
        with self.assertLogs("pitwall", level="WARNING") as logs:
            run = pw.run(kind="training", name="offline")
            for step in range(1000):
                run.metrics(step, loss=0.1)
            self.assertFalse(pw.flush(timeout_s=0.3))
        self.assertTrue(any("cannot deliver" in line for line in logs.output))
        stats = pw.stats()
        self.assertEqual(stats["queued"], 1002)
        self.assertIn("unreachable", stats["last_error"])

    def test_unauthorized_is_logged_as_an_error_and_frames_are_kept(self) -> None:
        self.fake.statuses = [401]
        pw = self.client(max_backoff_s=0.5)
        with self.assertLogs("pitwall", level="ERROR") as logs:
            run = pw.run(kind="training", name="bad token")
            self.assertTrue(pw.flush(timeout_s=10), "kept frames are delivered once the server accepts the token")
        self.assertTrue(any("HTTP 401" in line and "PITWALL_TOKEN" in line for line in logs.output))
        self.assertTrue(run.end(flush_timeout_s=10))
        self.assertEqual([f["type"] for f in self.fake.frames], ["hello", "run.start", "run.end"])

    def test_rejected_frames_are_exposed_not_retried(self) -> None:
        self.fake.reject_types = {"run.event"}
        pw = self.client()
        with self.assertLogs("pitwall", level="WARNING"):
            with pw.run(kind="eval", name="rejects") as run:
                run.event("one")
                run.event("two")
        self.assertEqual(len(self.fake.of_type("run.event")), 2, "sent once each")
        self.assertEqual([e.code for e in run.errors], ["invalid_frame", "invalid_frame"])
        self.assertEqual(run.errors[0].frame_type, "run.event")
        self.assertEqual(pw.stats()["rejected"], 2)

    def test_a_frame_failing_alone_with_500_is_given_up_after_five_tries(self) -> None:
        self.fake.poison_messages = {"poison"}
        pw = self.client(max_backoff_s=0.05)
        with self.assertLogs("pitwall", level="WARNING") as logs:
            with pw.run(kind="eval", name="poisoned") as run:
                run.event("before")
                run.event("poison")
                for i in range(5):
                    run.event("after {}".format(i))
            self.assertTrue(pw.flush(timeout_s=20))
        messages = [f["message"] for f in self.fake.of_type("run.event")]
        self.assertNotIn("poison", messages)
        self.assertEqual(sorted(m for m in messages if m.startswith("after")), ["after {}".format(i) for i in range(5)])
        self.assertEqual([e.code for e in run.errors], ["gave_up"])
        gave_up = [line for line in logs.output if "gave up on" in line]
        self.assertEqual(len(gave_up), 1)
        self.assertIn("5 times in a row", gave_up[0])
        self.assertEqual(pw.stats()["queued"], 0)

    def test_full_queue_coalesces_progress_before_dropping(self) -> None:
        port = free_port()
        pw = self.client(url="http://127.0.0.1:{}".format(port), max_queue_frames=100, min_interval_s=0)
        with self.assertLogs("pitwall", level="WARNING"):
            run = pw.run(kind="extraction", name="full", key="full-run")
            self.assertFalse(pw.flush(timeout_s=0.2))
        # Coalescing progress loses nothing that matters: no warning.
        with self.assertNoLogs("pitwall", level="WARNING") if hasattr(self, "assertNoLogs") else _nullcontext():
            for i in range(1000):
                run.progress(i, counters={"s3.uploaded": i})
        stats = pw.stats()
        self.assertEqual(stats["dropped"], 0)
        self.assertLessEqual(stats["queued"], 101)
        self.assertGreater(stats["coalesced"], 0)
        with self.assertLogs("pitwall", level="WARNING") as logs:
            for step in range(500):
                run.metrics(step, loss=0.5)
        self.assertTrue(any("queue full" in line and "dropped" in line for line in logs.output))
        self.assertGreater(pw.stats()["dropped"], 0)
        self.assertLessEqual(pw.stats()["queued"], 101)
        # A server comes up on that port: the start, the latest progress and the newest metrics
        # arrive.
        late = FakeIngest(port)
        try:
            self.assertTrue(run.end(flush_timeout_s=10))
            self.assertEqual(len(late.of_type("run.start")), 1)
            last = late.of_type("run.progress")[-1]
            self.assertEqual((last["done"], last["counters"]), (999, {"s3.uploaded": 999}))
            steps = [p["step"] for f in late.of_type("run.metrics") for p in f["points"]]
            self.assertEqual(steps[-1], 499)
            self.assertEqual(len(steps), len(set(steps)))
            self.assertEqual(late.frames[-1]["type"], "run.end")
        finally:
            late.close()

    def test_bad_arguments_raise_at_once(self) -> None:
        pw = self.client()
        with self.assertRaises(ValueError):
            pw.run(kind="sweep", name="x")
        run = pw.run(kind="training", name="args")
        with self.assertRaises(ValueError):
            run.progress(1, counters={"9lives": 1})
        with self.assertRaises(TypeError):
            run.metrics(1.5, loss=1.0)
        with self.assertRaises(ValueError):
            run.metrics(2**64, loss=1.0)
        with self.assertRaises(ValueError):
            run.event("x", level="fatal")
        with self.assertLogs("pitwall", level="WARNING"):
            run.metrics(1, loss="not a number", acc=0.5)
            run.progress(5, counters={"s3.uploaded": -1, "s3.bytes": 10})
        run.end()
        self.assertEqual(self.fake.of_type("run.metrics")[0]["points"][0]["key"], "acc")
        self.assertEqual(self.fake.of_type("run.progress")[0]["counters"], {"s3.bytes": 10})

    def test_interpreter_exit_flushes_and_warns_about_open_runs(self) -> None:
        script = (
            "import pitwall\n"
            "pw = pitwall.Pitwall({!r}, 'pw_test', min_interval_s=3600)\n"
            "run = pw.run(kind='generation', name='no with', key='exit-run')\n"
            "run.progress(1)\n"
            "run.progress(2)\n"
            "for step in range(20):\n"
            "    run.metrics(step, tokPerS=577.8)\n"
        ).format(self.fake.url)
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.abspath(pitwall.__file__)))
        proc = subprocess.run([sys.executable, "-W", "error", "-c", script], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("run 'exit-run' was not ended before exit", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        steps = [p["step"] for f in self.fake.of_type("run.metrics") for p in f["points"]]
        self.assertEqual(steps, list(range(20)))
        self.assertEqual([f["done"] for f in self.fake.of_type("run.progress")], [1, 2], "the held-back reading is sent at exit")
        self.assertEqual(self.fake.of_type("run.end"), [])

    def test_reads_url_and_token_from_the_environment(self) -> None:
        old = {k: os.environ.get(k) for k in ("PITWALL_URL", "PITWALL_TOKEN")}
        try:
            os.environ["PITWALL_URL"] = self.fake.url + "/"
            os.environ["PITWALL_TOKEN"] = "pw_env"
            pw = Pitwall()
            self.clients.append(pw)
            self.assertEqual(pw.url, self.fake.url)
            del os.environ["PITWALL_TOKEN"]
            with self.assertRaises(ValueError):
                Pitwall()
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


class _nullcontext:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


class SourceTest(unittest.TestCase):
    def test_parses_as_python_3_9(self) -> None:
        folder = os.path.dirname(pitwall.__file__)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    ast.parse(f.read(), filename=name, feature_version=(3, 9))


if __name__ == "__main__":
    unittest.main()
