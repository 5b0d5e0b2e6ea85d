/**
 * Part of `npm run build`: builds the Python client's wheel (clients/python) into build/python/,
 * which the server serves at /python/pitwall.whl. Without python3 (>= 3.9, with pip) it prints
 * how to build it later and exits 0: the server still builds and /python says what to do.
 * Uses the installed setuptools without build isolation when it is recent enough (offline, fast);
 * otherwise pip's isolated build (needs setuptools from the configured index).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const outDir = path.join(root, "build", "python");
const python = process.env.PITWALL_PYTHON ?? "python3";

function run(args: string[]): { ok: boolean; output: string } {
  const r = spawnSync(python, args, { cwd: root, encoding: "utf8", env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
  return { ok: r.status === 0, output: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}

const probe = run(["-c", "import sys, pip; assert sys.version_info >= (3, 9); import setuptools; print(setuptools.__version__)"]);
const setuptoolsMajor = probe.ok ? Number(probe.output.trim().split(".")[0]) : 0;
const hasPip = probe.ok || run(["-m", "pip", "--version"]).ok;
if (!hasPip) {
  console.log(`build-python-wheel: no ${python} with pip; skipped (/python/pitwall.whl will say how to build it)`);
  process.exit(0);
}
fs.rmSync(outDir, { recursive: true, force: true });
fs.mkdirSync(outDir, { recursive: true });
const args = ["-m", "pip", "wheel", "clients/python", "--no-deps", "--quiet", "-w", outDir];
if (setuptoolsMajor >= 61) args.push("--no-build-isolation");
const built = run(args);
// setuptools leaves its working folders in the source tree (gitignored); remove them.
fs.rmSync(path.join(root, "clients", "python", "build"), { recursive: true, force: true });
fs.rmSync(path.join(root, "clients", "python", "pitwall.egg-info"), { recursive: true, force: true });
if (!built.ok) {
  console.log(`build-python-wheel: pip wheel failed; /python/pitwall.whl will say how to build it:\n${built.output}`);
  process.exit(0);
}
console.log(`build-python-wheel: ${fs.readdirSync(outDir).join(", ")} in build/python`);
