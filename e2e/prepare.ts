/**
 * `node --import tsx e2e/prepare.ts`: the e2e global setup (`prepareE2ePeople`) for a server that
 * is already up on PITWALL_E2E_PORT with its data in PITWALL_E2E_DATA_DIR; `npm test` runs it
 * while the integration stage runs (scripts/lib/e2e-server.ts). Exits 1 when it fails.
 */
import { chromiumLaunchOptions } from "../test/support/chromium";
import { prepareE2ePeople } from "./global-setup";

await prepareE2ePeople(`http://127.0.0.1:${process.env.PITWALL_E2E_PORT}`, chromiumLaunchOptions);
