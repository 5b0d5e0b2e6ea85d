"""Unit tests of the spool, failover and module-level API (no database; a small in-process
ingest server from test_pitwall). Run: python3 -W error -m unittest -v test_pitwall_spool."""

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
from typing import Any, List

import pitwall
from pitwall import Pitwall
from test_pitwall import FakeIngest, free_port

HERE = os.path.dirname(os.path.abspath(__file__))


class SpoolTest(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakeIngest()
        self.root = tempfile.mkdtemp(prefix="pitwall-spool-test-")
        self.clients: List[Pitwall] = []

    def tearDown(self) -> None:
        for c in self.clients:
            c.close(timeout_s=0)
        self.fake.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def client(self, **kw: Any) -> Pitwall:
        kw.setdefault("url", self.fake.url)
        kw.setdefault("token", "pw_test")
        kw.setdefault("max_backoff_s", 0.5)
        kw.setdefault("spool", self.root)
        c = Pitwall(**kw)
        self.clients.append(c)
        return c

    def test_a_default_worker_id_follows_the_spool_slot_so_a_restart_continues_its_worker(self) -> None:
        import socket
        host = socket.gethostname().split(".")[0]
        a = self.client()
        self.assertEqual(a.run(kind="extraction", name="x", key="slots").worker_id, host)
        b = self.client()  # a second live process of the same run: its own worker
        self.assertEqual(b.run(kind="extraction", name="x", key="slots").worker_id, host + ".1")
        a.close(timeout_s=5)
        c = self.client()  # the first one restarted: it continues worker <host>
        self.assertEqual(c.run(kind="extraction", name="x", key="slots").worker_id, host)
        d = self.client(worker_id="gpu3")  # a given id is kept
        self.assertEqual(d.run(kind="extraction", name="x", key="slots").worker_id, "gpu3")
        self.assertTrue(c.flush(timeout_s=5))
        hellos = [f for f in self.fake.frames if f["type"] == "hello"]
        self.assertIn(host, [h["workerId"] for h in hellos])

    def test_frames_are_on_disk_before_the_call_returns_and_gone_once_acked(self) -> None:
        dead = "http://127.0.0.1:{}".format(free_port())
        pw = self.client(url=dead)
        with self.assertLogs("pitwall", level="WARNING"):
            run = pw.run(kind="training", name="spooled", key="spool/one")
            run.metrics(0, loss=float("nan"), lr=3e-4)
            run.event("hello")
            self.assertFalse(pw.flush(timeout_s=0.2))
        folder = pw.spool_folder
        assert folder is not None
        self.assertEqual(os.path.basename(folder), "spool_one")
        lines = []
        for name in sorted(os.listdir(folder)):
            if name.endswith(".jsonl"):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    lines.extend(json.loads(line) for line in f)
        self.assertEqual([f["type"] for f in lines], ["run.start", "run.metrics", "run.event"])
        with open(os.path.join(folder, "lock"), encoding="utf-8") as f:
            self.assertEqual(json.load(f)["pid"], os.getpid())

    def test_a_killed_process_is_resumed_by_the_next_one_with_the_same_key(self) -> None:
        dead = "http://127.0.0.1:{}".format(free_port())
        script = (
            "import os, signal, pitwall\n"
            "pw = pitwall.Pitwall({!r}, 'pw_test', spool={!r})\n"
            "run = pw.run(kind='training', name='killed', key='resume-me')\n"
            "for s in range(500):\n"
            "    run.metrics(s, {{'a': s, 'b': 1.5}})\n"
            "os.kill(os.getpid(), signal.SIGKILL)\n"
        ).format(dead, self.root)
        proc = subprocess.run([sys.executable, "-c", script], env=dict(os.environ, PYTHONPATH=HERE), capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, -signal.SIGKILL, proc.stderr)
        pw = self.client()
        with self.assertLogs("pitwall", level="WARNING") as logs:
            run = pw.run(kind="training", name="killed", key="resume-me")
        self.assertTrue(any("resending 501 frame(s)" in line for line in logs.output), logs.output)
        run.metrics(500, a=500)
        self.assertTrue(run.end(flush_timeout_s=10))
        steps = sorted(p["step"] for f in self.fake.of_type("run.metrics") for p in f["points"] if p["key"] == "a")
        self.assertEqual(steps, list(range(501)))
        types = [f["type"] for f in self.fake.frames]
        self.assertEqual(types[:3], ["hello", "run.start", "run.metrics"], "the dead process's frames go first")
        self.assertEqual([n for n in os.listdir(os.path.join(self.root, "resume-me")) if n.endswith(".jsonl")], ["seg-00000002.jsonl"],
                         "the dead process's segment is deleted once acked")
        pw.close()
        self.assertFalse(os.path.exists(os.path.join(self.root, "resume-me")), "a settled spool folder is removed at close")

    def test_a_cut_short_last_line_is_skipped(self) -> None:
        folder = os.path.join(self.root, "cut")
        os.makedirs(folder)
        good = {"v": 1, "id": "00000000-0000-4000-8000-000000000001", "type": "run.start", "run": "cut", "name": "c", "kind": "eval", "startedAt": 1_700_000_000_000}
        with open(os.path.join(folder, "seg-00000001.jsonl"), "w", encoding="utf-8") as f:
            f.write(json.dumps(good) + "\n" + '{"v":1,"id":"x","type":"run.me')
        pw = self.client()
        with self.assertLogs("pitwall", level="WARNING") as logs:
            run = pw.run(kind="eval", name="c", key="cut")
        self.assertTrue(any("1 cut-short line(s) skipped" in line for line in logs.output), logs.output)
        run.end(flush_timeout_s=10)
        self.assertEqual(sum(1 for f in self.fake.frames if f["id"] == good["id"]), 1)

    def test_over_the_memory_bound_frames_are_paged_out_not_dropped(self) -> None:
        port = free_port()
        pw = self.client(url="http://127.0.0.1:{}".format(port), max_queue_bytes=64 * 1024, max_queue_frames=10)
        with self.assertLogs("pitwall", level="WARNING"):
            run = pw.run(kind="training", name="paged", key="paged")
            for s in range(3000):
                run.metrics(s, {"k{}".format(i): s for i in range(5)})
        stats = pw.stats()
        self.assertEqual(stats["dropped"], 0)
        self.assertLess(stats["queued_bytes"], 200 * 1024, "texts beyond the memory bound live on disk only")
        late = FakeIngest(port)
        try:
            self.assertTrue(run.end(flush_timeout_s=20))
            steps = sorted(p["step"] for f in late.of_type("run.metrics") for p in f["points"] if p["key"] == "k0")
            self.assertEqual(steps, list(range(3000)))
        finally:
            late.close()

    def test_over_the_disk_bound_the_oldest_metrics_are_dropped_never_start_or_end(self) -> None:
        port = free_port()
        pw = self.client(url="http://127.0.0.1:{}".format(port), max_spool_bytes=1024 * 1024)
        pitwall._SEGMENT_BYTES, old = 64 * 1024, pitwall._SEGMENT_BYTES
        try:
            with self.assertLogs("pitwall", level="WARNING") as logs:
                run = pw.run(kind="training", name="bounded", key="bounded")
                for s in range(20000):
                    run.metrics(s, loss=s / 3)
        finally:
            pitwall._SEGMENT_BYTES = old
        self.assertTrue(any("spool over its bound" in line for line in logs.output))
        assert pw._spool is not None
        self.assertLess(pw._spool.total_bytes, 1.2 * 1024 * 1024)
        self.assertGreater(pw.stats()["dropped"], 0)
        late = FakeIngest(port)
        try:
            self.assertTrue(run.end(flush_timeout_s=20))
            self.assertEqual(len(late.of_type("run.start")), 1)
            self.assertEqual(len(late.of_type("run.end")), 1)
            steps = [p["step"] for f in late.of_type("run.metrics") for p in f["points"]]
            self.assertEqual(steps[-1], 19999, "the newest metrics are kept")
        finally:
            late.close()

    def test_failover_to_the_next_url_on_connection_errors(self) -> None:
        dead = "http://127.0.0.1:{}".format(free_port())
        pw = self.client(url="{},{}".format(dead, self.fake.url), spool=False)
        self.assertEqual(pw.urls, [dead, self.fake.url])
        with self.assertLogs("pitwall", level="WARNING") as logs:
            with pw.run(kind="eval", name="failover") as run:
                run.metrics(1, acc=0.5)
        self.assertTrue(any("failing over to " + self.fake.url in line for line in logs.output))
        self.assertEqual(pw.url, self.fake.url)
        self.assertEqual(len(self.fake.of_type("run.end")), 1)


class ModuleApiTest(unittest.TestCase):
    def run_script(self, script: str, **env: str) -> "subprocess.CompletedProcess[str]":
        full = dict(os.environ, PYTHONPATH=HERE, **env)
        for k in ("PITWALL_URL", "PITWALL_TOKEN"):
            if k not in env:
                full.pop(k, None)
        return subprocess.run([sys.executable, "-W", "error", "-c", script], env=full, capture_output=True, text=True, timeout=60)

    def test_unconfigured_is_a_no_op_with_one_warning(self) -> None:
        proc = self.run_script(
            "import pitwall\n"
            "assert pitwall.init(kind='training', name='x', config={'lr': 1}) is None\n"
            "pitwall.log({'loss': 1.0}, step=1)\n"
            "pitwall.progress(1, total=10)\n"
            "assert pitwall.init(kind='training') is None\n"
            "assert pitwall.finish()\n"
        )
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stderr.count("PITWALL_URL and PITWALL_TOKEN are not both set"), 1)

    def test_init_log_progress_finish(self) -> None:
        fake = FakeIngest()
        root = tempfile.mkdtemp()
        try:
            proc = self.run_script(
                "import pitwall\n"
                "run = pitwall.init(kind='training', name='module api', config={'lr': 3e-4}, total=3, unit='steps')\n"
                "for s in range(3):\n"
                "    pitwall.log({'loss': 1.0 / (s + 1), 'train/acc': 0.5})\n"
                "    pitwall.progress(s + 1)\n"
                "pitwall.log({'eval/acc': 0.9}, step=2)\n"
                "assert pitwall.finish(flush_timeout_s=10)\n",
                PITWALL_URL=fake.url, PITWALL_TOKEN="pw_test", PITWALL_SPOOL_DIR=root,
            )
            self.assertEqual(proc.returncode, 0, proc.stderr)
            start = fake.of_type("run.start")[0]
            self.assertEqual((start["kind"], start["name"], start["config"], start["total"]), ("training", "module api", {"lr": 3e-4}, 3))
            points = [(p["key"], p["step"]) for f in fake.of_type("run.metrics") for p in f["points"]]
            self.assertEqual(points, [("loss", 0), ("train/acc", 0), ("loss", 1), ("train/acc", 1), ("loss", 2), ("train/acc", 2), ("eval/acc", 2)])
            self.assertEqual(fake.of_type("run.progress")[-1]["done"], 3)
            self.assertEqual(fake.of_type("run.end")[0]["status"], "succeeded")
            self.assertEqual(os.listdir(root), [])
        finally:
            fake.close()
            shutil.rmtree(root, ignore_errors=True)

    def test_an_uncaught_exception_ends_the_run_failed(self) -> None:
        fake = FakeIngest()
        try:
            proc = self.run_script(
                "import pitwall\n"
                "pitwall.init(kind='training', name='crash', spool=False)\n"
                "raise RuntimeError('CUDA out of memory')\n",
                PITWALL_URL=fake.url, PITWALL_TOKEN="pw_test",
            )
            self.assertEqual(proc.returncode, 1)
            end = fake.of_type("run.end")[0]
            self.assertEqual((end["status"], end["error"]), ("failed", "RuntimeError: CUDA out of memory"))
        finally:
            fake.close()

    def test_version_matches_package_json(self) -> None:
        with open(os.path.join(HERE, "..", "..", "package.json"), encoding="utf-8") as f:
            self.assertEqual(pitwall.__version__, json.load(f)["version"])


if __name__ == "__main__":
    logging.basicConfig()
    unittest.main()
