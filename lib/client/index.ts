/**
 * The Pitwall worker SDK (Node): a reconnecting WebSocket client with acks, resends and an
 * optional on-disk spool, plus helpers used by `pitwall run|push|heartbeat`. No server imports.
 * See docs/worker-clients.md.
 */
export * from "./clock";
export * from "./socket";
export * from "./spool";
export * from "./host-facts";
export * from "./progress-lines";
export * from "./output-lines";
export * from "./run-reporter";
export * from "./frames-file";
export { postFrames, IngestHttpError, type IngestResult } from "./http";
export * from "./serving-scraper";
export * from "./server-urls";
