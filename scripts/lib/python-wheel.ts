import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** Files whose change makes the served wheel stale. */
const WHEEL_SOURCES = [
  "clients/python/pitwall",
  "clients/python/pitwall_scrape.py",
  "clients/python/pyproject.toml",
  "clients/python/README.md",
];

function newestMtime(p: string): number {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(
    0,
    ...fs
      .readdirSync(p)
      .filter((e) => e !== "__pycache__")
      .map((e) => newestMtime(path.join(p, e))),
  );
}

/**
 * Builds the Python client's wheel into `<projectDir>/build/python/` (served at /python) when it
 * is missing or older than the client's sources. Never throws: without python3 and pip, or when
 * pip fails, it logs why and leaves the folder empty (the route then says how to build it).
 * Uses the installed setuptools without build isolation when it is recent enough (offline, fast);
 * otherwise pip's isolated build (needs setuptools from the configured index).
 */
export function ensurePythonWheel(
  projectDir: string,
  log: (msg: string) => void,
  python = process.env.PITWALL_PYTHON ?? "python3",
): void {
  const outDir = path.join(projectDir, "build", "python");
  const existing = fs.existsSync(outDir)
    ? fs.readdirSync(outDir).filter((n) => n.endsWith(".whl"))
    : [];
  const builtAt = existing.length
    ? Math.min(...existing.map((n) => fs.statSync(path.join(outDir, n)).mtimeMs))
    : 0;
  if (builtAt > 0 && WHEEL_SOURCES.every((s) => newestMtime(path.join(projectDir, s)) <= builtAt))
    return;
  const run = (args: string[]) => {
    const r = spawnSync(python, args, {
      cwd: projectDir,
      encoding: "utf8",
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
    });
    return {
      ok: r.status === 0,
      output: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}`,
    };
  };
  const probe = run([
    "-c",
    "import sys, pip; assert sys.version_info >= (3, 9); import setuptools; print(setuptools.__version__)",
  ]);
  const setuptoolsMajor = probe.ok ? Number(probe.output.trim().split(".")[0]) : 0;
  if (!probe.ok && !run(["-m", "pip", "--version"]).ok) {
    log(`python wheel: no ${python} with pip; skipped (/python/pitwall.whl says how to build it)`);
    return;
  }
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  const args = ["-m", "pip", "wheel", "clients/python", "--no-deps", "--quiet", "-w", outDir];
  if (setuptoolsMajor >= 61) args.push("--no-build-isolation");
  const built = run(args);
  // setuptools leaves its working folders in the source tree (gitignored); remove them.
  fs.rmSync(path.join(projectDir, "clients", "python", "build"), { recursive: true, force: true });
  fs.rmSync(path.join(projectDir, "clients", "python", "pitwall.egg-info"), {
    recursive: true,
    force: true,
  });
  if (!built.ok) {
    log(
      `python wheel: pip wheel failed; /python/pitwall.whl says how to build it:\n${built.output}`,
    );
    return;
  }
  log(`python wheel: ${fs.readdirSync(outDir).join(", ")} in build/python`);
}
