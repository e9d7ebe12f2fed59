/**
 * RFC 9457 problem details (`application/problem+json`) for every error response of the HTTP
 * API. Statuses and titles come from the one table of error codes, `ERROR_TABLE`
 * (src/errors/codes.ts), which also covers the conditions met mostly over the network
 * (authentication, method, media type, body size and time).
 *
 * @module
 */
import { ERROR_TABLE, type ErrorCode } from "../errors/codes.ts";
import type { Problem } from "../errors/errors.ts";

/** Base of the stable problem `type` URIs: `https://empiric.dev/problems/<code>`. */
export const PROBLEM_TYPE_BASE = "https://empiric.dev/problems/";

/** Media type of problem bodies. */
export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** Codes met mostly on network surfaces (still in `ERROR_TABLE`). */
export type HttpOnlyCode =
  | "unauthorized"
  | "forbidden"
  | "method_not_allowed"
  | "payload_too_large"
  | "unsupported_media_type"
  | "request_timeout";

/** Any code a problem response can carry. */
export type ProblemCode = ErrorCode;

/** Status and title of a code, from `ERROR_TABLE`. */
export function problemStatus(code: ProblemCode): { http: number; title: string } {
  return ERROR_TABLE[code];
}

/** The `type` URI of a code. */
export function problemType(code: ProblemCode): string {
  return PROBLEM_TYPE_BASE + code;
}

/** A failure the HTTP layer reports itself (auth, media type, size, method, validation). */
export class HttpProblem extends Error {
  readonly code: ProblemCode;
  readonly problems: readonly Problem[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ProblemCode,
    detail: string,
    options: { problems?: readonly Problem[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = "HttpProblem";
    this.code = code;
    this.problems = options.problems ??
      [{ code: code as ErrorCode, message: detail }];
    this.headers = options.headers ?? {};
  }

  /** The HTTP status of this problem. */
  get status(): number {
    return problemStatus(this.code).http;
  }
}

/** The body of a problem response (RFC 9457 members plus `code`, `request_id`, `problems`). */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ProblemCode;
  request_id: string;
  problems: readonly Problem[];
  [extension: string]: unknown;
}

/** Build a problem body; `extra` members (e.g. the verify_proof result) are merged in. */
export function problemBody(
  code: ProblemCode,
  detail: string,
  context: { instance: string; requestId: string; problems?: readonly Problem[] },
  extra: Record<string, unknown> = {},
): ProblemBody {
  const { http, title } = problemStatus(code);
  return {
    type: problemType(code),
    title,
    status: http,
    detail,
    instance: context.instance,
    code,
    request_id: context.requestId,
    ...extra,
    problems: context.problems ?? [{ code: code as ErrorCode, message: detail }],
  };
}

/** A problem+json response. */
export function problemResponse(
  body: ProblemBody,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status: body.status,
    headers: { "content-type": PROBLEM_CONTENT_TYPE, ...headers },
  });
}
