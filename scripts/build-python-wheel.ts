/**
 * Part of `npm run build`: builds the Python client's wheel (clients/python) into build/python/,
 * which the server serves at /python (see scripts/lib/python-wheel.ts). Without python3 it says
 * so and exits 0: the server still builds, and /python says how to build the wheel.
 */
import path from "node:path";

import { ensurePythonWheel } from "./lib/python-wheel";

ensurePythonWheel(path.resolve(import.meta.dirname, ".."), (msg) => console.log(msg));
