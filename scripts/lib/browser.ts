import { execFileSync } from "node:child_process";
import fs from "node:fs";

/**
 * Finds a Chromium for Playwright: `PITWALL_CHROMIUM`, else Debian's `/usr/bin/chromium`, else
 * Playwright's own download (developer laptops). When none exists, installs one: Debian's
 * package when we are root with apt-get (CI, this kind of machine), else `playwright install
 * chromium`. Returns the executable path, or null for "Playwright's bundled browser".
 * @throws Error when no browser can be found or installed.
 */
export function ensureChromium(log: (m: string) => void): string | null {
  const configured = process.env.PITWALL_CHROMIUM;
  if (configured) {
    if (!fs.existsSync(configured))
      throw new Error(`PITWALL_CHROMIUM=${configured} does not exist`);
    return configured;
  }
  if (fs.existsSync("/usr/bin/chromium")) return "/usr/bin/chromium";
  if (playwrightChromiumInstalled()) return null;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (isRoot && hasCommand("apt-get")) {
    log("no Chromium found; installing Debian's chromium package (apt-get install -y chromium)");
    execFileSync("apt-get", ["update"], { stdio: "inherit" });
    execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "chromium"], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    return "/usr/bin/chromium";
  }
  log("no Chromium found; downloading Playwright's (npx playwright install chromium)");
  execFileSync("npx", ["playwright", "install", "chromium"], { stdio: "inherit" });
  return null;
}

function hasCommand(cmd: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function playwrightChromiumInstalled(): boolean {
  try {
    const out = execFileSync(
      process.execPath,
      ["-e", "process.stdout.write(require('playwright-core').chromium.executablePath())"],
      { encoding: "utf8" },
    );
    return out.length > 0 && fs.existsSync(out);
  } catch {
    return false;
  }
}
