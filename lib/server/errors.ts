import type { ErrorCode } from "@/lib/protocol";

/** Base class of errors that carry a protocol/API error code and an HTTP status. */
export class AppError extends Error {
  constructor(
    readonly code:
      | ErrorCode
      | "not_found"
      | "conflict"
      | "body_too_large"
      | "database_unavailable"
      | "plan_answered_in_terminal"
      | "plan_agent_ended"
      | InputErrorCode,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Codes of a bad API request input (lib/server/route-input.ts). */
export type InputErrorCode =
  "invalid_query" | "invalid_body" | "invalid_json" | "too_deep" | "unsupported_media_type";

/**
 * An API request's path, query or body does not fit its contract (lib/api): HTTP 400 with code
 * `invalid_query` / `invalid_body` / `invalid_json` / `too_deep`, or 415 `unsupported_media_type`.
 */
export class InputError extends AppError {
  constructor(code: InputErrorCode, message: string, status = 400) {
    super(code, message, status);
  }
}

/** A request or frame failed validation (HTTP 400). */
export class ValidationError extends AppError {
  constructor(message: string, code: ErrorCode = "invalid_frame") {
    super(code, message, 400);
  }
}

/** Missing, unknown or revoked credentials (HTTP 401). */
export class AuthError extends AppError {
  constructor(message = "a valid worker token is required (Authorization: Bearer <token>)") {
    super("unauthorized", message, 401);
  }
}

/** A resource does not exist (HTTP 404). */
export class NotFoundError extends AppError {
  constructor(message: string) {
    super("not_found", message, 404);
  }
}

/** The request conflicts with the resource's state, e.g. deciding an already decided plan (HTTP 409). */
export class ConflictError extends AppError {
  constructor(message: string) {
    super("conflict", message, 409);
  }
}

/**
 * A decision on a plan whose agent no longer waits for one (HTTP 409): code
 * `plan_answered_in_terminal` or `plan_agent_ended`.
 */
export class PlanNotWaitingError extends AppError {
  constructor(code: "plan_answered_in_terminal" | "plan_agent_ended", message: string) {
    super(code, message, 409);
  }
}

/** A request body over its limit, detected while reading it (HTTP 413); `code` is `batch_too_large` for /api/ingest. */
export class PayloadTooLargeError extends AppError {
  constructor(message: string, code: "batch_too_large" | "body_too_large" = "body_too_large") {
    super(code, message, 413);
  }
}

/** The database does not answer (HTTP 503); the message never names the database's address. */
export class DatabaseUnavailableError extends AppError {
  constructor(message = "the database is unavailable; try again shortly") {
    super("database_unavailable", message, 503);
  }
}

/**
 * The caller may not do this (HTTP 403, ws error code `forbidden`): too low a role, a cross-site
 * cookie request, or a worker token writing to a run, session or plan another host owns.
 */
export class ForbiddenError extends AppError {
  constructor(message: string) {
    super("forbidden", message, 403);
  }
}
