import fs from "node:fs/promises";
import path from "node:path";

/**
 * The Python client's wheel that Pitwall serves at /python/… so a GPU host on the same network
 * can `pip install` it with nothing else. `npm run build` writes it to `build/python/` (see
 * scripts/build-python-wheel.ts) when python3 is present.
 */

/** Folder the build writes the wheel to, relative to the server's working directory. */
export const WHEEL_DIR = path.join("build", "python");

/** A wheel's file name: `pitwall-<version>-py3-none-any.whl`. */
const WHEEL_NAME = /^pitwall-[0-9][0-9A-Za-z.+]*-py3-none-any\.whl$/;

/** What a host needs to build the wheel when it is missing (the 404 text of /python/…). */
export const HOW_TO_BUILD =
  "The Pitwall Python wheel has not been built on this server (python3 was not found at `npm run build`).\n" +
  "Build it in the Pitwall checkout with `npm run build` on a host with python3 >= 3.9, or\n" +
  "`python3 -m pip wheel clients/python --no-deps -w build/python`, then reload this page.\n" +
  "Meanwhile: `pip install ./clients/python` from a checkout, or copy clients/python/pitwall/__init__.py\n" +
  "as pitwall.py next to your script (standard library only).\n";

/**
 * The newest built wheel under `root/build/python` as `{name, file}`, or null when none was built.
 * @throws fs errors other than a missing folder.
 */
export async function findWheel(
  root: string = process.cwd(),
): Promise<{ name: string; file: string } | null> {
  const dir = path.join(root, WHEEL_DIR);
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  const wheels = names
    .filter((n) => WHEEL_NAME.test(n))
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  const name = wheels.at(-1);
  return name ? { name, file: path.join(dir, name) } : null;
}

/** True when `name` is a wheel file name this route may serve (no paths, no other files). */
export function isWheelName(name: string): boolean {
  return WHEEL_NAME.test(name);
}
