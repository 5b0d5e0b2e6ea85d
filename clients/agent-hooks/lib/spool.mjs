// Pitwall agent hooks: delivery. Every frame is written to a spool folder first, then the whole
// spool is posted to /api/ingest; acked (or permanently rejected) frames are removed. A frame
// therefore arrives at least once, and the server's per-host frame-id deduplication makes it
// count exactly once. When Pitwall cannot be reached, a detached flusher process keeps retrying.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const BATCH = 500;
let fileSeq = 0;

/** The spool folder under the state dir. */
export function spoolDir(cfg) {
  return path.join(cfg.stateDir, "spool");
}

/** Writes `value` as JSON to `file` atomically (temp file + rename), creating folders (mode 700). */
export function writeJsonAtomic(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** Adds frames to the spool (one file each, named so a listing sorts them in send order). */
export function spoolFrames(cfg, frames) {
  for (const frame of frames) {
    const name = `${Date.now().toString().padStart(15, "0")}-${process.pid}-${String(++fileSeq).padStart(4, "0")}-${String(
      frame.id,
    )
      .replace(/[^A-Za-z0-9_.-]/g, "_")
      .slice(0, 120)}.json`;
    writeJsonAtomic(path.join(spoolDir(cfg), name), frame);
  }
}

/**
 * Frames already read from spool files (path -> frame). A spool file is written once (atomic
 * rename) and never changed, so the long-lived forwarder, retrying against a hung Pitwall every
 * 1-10 s, parses each file once instead of the whole growing spool per attempt (that synchronous
 * work delayed its answers to the agent's hooks).
 */
const parsed = new Map();

/** Spooled frames in send order, at most `limit`: [{file, frame}]; unreadable files are dropped. */
function readSpool(cfg, limit = Infinity) {
  let names = [];
  try {
    names = fs
      .readdirSync(spoolDir(cfg))
      .filter((n) => n.endsWith(".json"))
      .sort();
  } catch {
    return [];
  }
  // Files another process delivered (a background flusher) leave entries behind: drop those now and then.
  if (parsed.size > 2 * names.length + 1000) {
    const listed = new Set(names.map((n) => path.join(spoolDir(cfg), n)));
    for (const file of parsed.keys()) if (!listed.has(file)) parsed.delete(file);
  }
  const out = [];
  for (const name of names) {
    if (out.length >= limit) break;
    const file = path.join(spoolDir(cfg), name);
    const known = parsed.get(file);
    if (known !== undefined) {
      out.push({ file, frame: known });
      continue;
    }
    try {
      const frame = JSON.parse(fs.readFileSync(file, "utf8"));
      parsed.set(file, frame);
      out.push({ file, frame });
    } catch {
      fs.rmSync(file, { force: true }); // a half-written or foreign file: nothing to deliver
    }
  }
  return out;
}

/** The server URLs of a config (`urls`, else the single `url`). */
export function serverUrls(cfg) {
  return Array.isArray(cfg.urls) && cfg.urls.length ? cfg.urls : cfg.url ? [cfg.url] : [];
}

/** The file remembering which instance answered last (hook processes are short-lived). */
const lastUrlFile = (cfg) => path.join(cfg.stateDir, "last-url");

/**
 * The server URLs in the order to try them: the one that answered last first (remembered in the
 * state dir across hook processes), then the rest in their configured order.
 */
export function urlsToTry(cfg) {
  const urls = serverUrls(cfg);
  let last = "";
  try {
    last = fs.readFileSync(lastUrlFile(cfg), "utf8").trim();
  } catch {
    // none yet
  }
  const i = urls.indexOf(last);
  return i > 0 ? [...urls.slice(i), ...urls.slice(0, i)] : urls;
}

/** Remembers `url` as the instance that answered (only when it changed). */
export function rememberUrl(cfg, url, tried) {
  if (tried[0] === url) return;
  try {
    fs.mkdirSync(cfg.stateDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(lastUrlFile(cfg), url, { mode: 0o600 });
  } catch {
    // not remembered: the next hook tries the configured order again
  }
}

/** One POST of `payload` to `${base}/api/ingest`: resolves {status, body}; rejects on network error or timeout. */
async function postOnce(base, cfg, payload, timeoutMs) {
  const url = new URL(`${base}/api/ingest`);
  const { request } =
    url.protocol === "https:" ? await import("node:https") : await import("node:http");
  return await new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${cfg.token}`,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
        },
        timeout: timeoutMs,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(payload);
  });
}

/**
 * POSTs frames to `/api/ingest` with node:http(s) (not fetch: loading fetch's implementation
 * costs a hook process ~100+ ms). With several server URLs a connection error, a timeout
 * (`timeoutMs` per attempt) or a 5xx moves on to the next instance; the frames keep their ids, so
 * one the first instance committed before failing is acked as a duplicate, not applied twice. A
 * 4xx is final (every instance would say the same). @returns the parsed body, or throws when no
 * instance answered 200.
 */
export async function postFrames(cfg, frames, timeoutMs = cfg.sendTimeoutMs) {
  const payload = JSON.stringify(frames);
  const tried = urlsToTry(cfg);
  const failures = [];
  for (const base of tried) {
    let answer;
    try {
      answer = await postOnce(base, cfg, payload, timeoutMs);
    } catch (err) {
      failures.push(`${base}: ${err.message}`);
      continue;
    }
    if (answer.status >= 500) {
      failures.push(`${base}: HTTP ${answer.status}`);
      continue;
    }
    rememberUrl(cfg, base, tried);
    if (answer.status !== 200) throw new Error(`Pitwall answered HTTP ${answer.status}`);
    try {
      return JSON.parse(answer.body);
    } catch {
      throw new Error("Pitwall's answer is not JSON");
    }
  }
  throw new Error(
    failures.length
      ? `no Pitwall instance answered (${failures.join("; ")})`
      : "no Pitwall URL configured",
  );
}

/**
 * Sends everything in the spool. Frames acked or refused for good (any code but `internal`) leave
 * the spool; a refused frame is reported on stderr. @returns true when the spool is empty afterwards.
 */
export async function flushSpool(cfg, log = (line) => process.stderr.write(`${line}\n`)) {
  for (;;) {
    const batch = readSpool(cfg, BATCH);
    if (batch.length === 0) return true;
    const body = await postFrames(
      cfg,
      batch.map((b) => b.frame),
    );
    const results = Array.isArray(body?.results) ? body.results : [];
    let removed = 0;
    batch.forEach((b, i) => {
      const r = results[i];
      if (!r) return;
      if (r.ok || r.code !== "internal") {
        if (!r.ok)
          log(`pitwall hook: Pitwall refused frame ${b.frame.id}: ${r.code} ${r.message ?? ""}`);
        fs.rmSync(b.file, { force: true });
        parsed.delete(b.file);
        removed++;
      }
    });
    if (removed === 0) return false;
  }
}

/**
 * Delivers frames: spool, then flush. Never throws. When the flush fails (Pitwall down or slow),
 * starts the background flusher (`node <entry> flush`) and returns false.
 */
export async function deliver(cfg, frames, entryFile) {
  try {
    spoolFrames(cfg, frames);
  } catch (err) {
    process.stderr.write(
      `pitwall hook: cannot write the spool in ${spoolDir(cfg)}: ${err.message}\n`,
    );
    return false;
  }
  try {
    if (await flushSpool(cfg)) return true;
  } catch {
    // unreachable: retried in the background
  }
  startBackgroundFlush(entryFile);
  return false;
}

/** Starts `node <entryFile> flush` detached (it outlives the hook and the agent). */
export function startBackgroundFlush(entryFile) {
  try {
    spawn(process.execPath, [entryFile, "flush"], {
      detached: true,
      stdio: "ignore",
      env: process.env,
    }).unref();
  } catch {
    // the next hook call retries
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The background flusher: one per state dir (a lock file with its pid), retrying every 1..10 s
 * until the spool is empty or `cfg.retryForS` passed. Injectable sleep for tests.
 */
export async function runFlusher(cfg, sleep = (ms) => new Promise((r) => setTimeout(r, ms))) {
  const lock = path.join(cfg.stateDir, "flush.lock");
  fs.mkdirSync(cfg.stateDir, { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(lock, String(process.pid), { flag: "wx" });
  } catch {
    const holder = Number(fs.readFileSync(lock, "utf8"));
    if (holder && alive(holder)) return;
    fs.writeFileSync(lock, String(process.pid));
  }
  try {
    const deadline = Date.now() + cfg.retryForS * 1000;
    for (let delayMs = 1000; Date.now() < deadline; delayMs = Math.min(delayMs * 2, 10_000)) {
      try {
        if (await flushSpool(cfg)) return;
      } catch {
        // still unreachable
      }
      await sleep(delayMs);
    }
  } finally {
    fs.rmSync(lock, { force: true });
  }
}
