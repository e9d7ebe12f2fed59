/**
 * The stable error codes of empiric and how every surface reports them.
 *
 * One table maps each code to a CLI exit code, an HTTP status (for problem+json bodies) and
 * whether an MCP tool result carries `isError`. Codes are part of the stable interface.
 *
 * @module
 */

/** Every stable error code. */
export type ErrorCode =
  // wire format (parse and canonicalize); docs/wire-format.md
  | "syntax_error"
  | "duplicate_key"
  | "lone_surrogate"
  | "non_finite_number"
  | "int_out_of_range"
  | "depth_exceeded"
  | "invalid_utf8"
  | "unsupported_type"
  // records
  | "record_structure"
  | "schema_invalid"
  | "proof_id_mismatch"
  | "signature_mismatch"
  | "verdict_inconsistent"
  // audits (empiric audit): the bundle and the recomputation
  | "evidence_mismatch"
  // public-key attestations (docs/keys.md)
  | "untrusted_signer"
  | "signature_threshold"
  | "policy_violation"
  | "policy_invalid"
  | "registration_mismatch"
  // keys
  | "key_too_short"
  | "key_invalid"
  // scenarios and runs
  | "scenario_invalid"
  | "dataset_invalid"
  | "substrate_unavailable"
  | "baseline_invalid"
  // the proof store
  | "bundle_mismatch"
  | "store_unavailable"
  // access and protocol (network surfaces)
  | "unauthorized"
  | "forbidden"
  | "method_not_allowed"
  | "payload_too_large"
  | "unsupported_media_type"
  | "request_timeout"
  | "client_closed"
  // operating conditions
  | "cancelled"
  | "bind_failed"
  | "worker_failed"
  // input/output and usage
  | "usage_error"
  | "not_found"
  | "already_exists"
  | "io_error"
  | "internal_error";

/** How one error code is reported on each surface. */
export interface ErrorReporting {
  /** Exit code of the `empiric` CLI. */
  readonly exit: number;
  /** HTTP status of the RFC 9457 problem+json response. */
  readonly http: number;
  /** Short human title, used as the problem+json `title`. */
  readonly title: string;
}

/** Exit codes of the CLI (documented in docs/cli.md). */
export const EXIT = {
  ok: 0,
  internal: 1,
  failed: 2,
  verdict: 3,
  usage: 64,
  dataErr: 65,
  noInput: 66,
  unavailable: 69,
  noPerm: 77,
  cantCreate: 73,
  osErr: 71,
  io: 74,
  /** 128 + SIGINT: the conventional status of a command stopped by Ctrl-C. */
  interrupted: 130,
  /** 128 + SIGPIPE: standard output was closed (`empiric … | head`). */
  pipe: 141,
  /** 128 + SIGTERM. */
  terminated: 143,
} as const;

/** The one table: code → exit code, HTTP status, title. MCP reports every code with `isError: true`. */
export const ERROR_TABLE: Readonly<Record<ErrorCode, ErrorReporting>> = {
  syntax_error: { exit: EXIT.failed, http: 400, title: "Malformed JSON" },
  duplicate_key: { exit: EXIT.failed, http: 400, title: "Duplicate object key" },
  lone_surrogate: { exit: EXIT.failed, http: 400, title: "Lone surrogate in string" },
  non_finite_number: { exit: EXIT.failed, http: 400, title: "Non-finite number" },
  int_out_of_range: { exit: EXIT.failed, http: 400, title: "Integer out of range" },
  depth_exceeded: { exit: EXIT.failed, http: 400, title: "Nesting too deep" },
  invalid_utf8: { exit: EXIT.failed, http: 400, title: "Invalid UTF-8" },
  unsupported_type: { exit: EXIT.failed, http: 422, title: "Value has no canonical form" },
  record_structure: { exit: EXIT.failed, http: 422, title: "Malformed proof record" },
  schema_invalid: { exit: EXIT.failed, http: 422, title: "Record fails the schema" },
  proof_id_mismatch: { exit: EXIT.failed, http: 422, title: "proof_id does not match the body" },
  signature_mismatch: { exit: EXIT.failed, http: 422, title: "Signature does not verify" },
  verdict_inconsistent: {
    exit: EXIT.failed,
    http: 422,
    title: "Verdict does not follow from the evidence and the decision rule",
  },
  evidence_mismatch: {
    exit: EXIT.failed,
    http: 422,
    title: "Evidence recomputed from the observations differs from the record",
  },
  untrusted_signer: {
    exit: EXIT.failed,
    http: 422,
    title: "Signed only by keys the trust policy does not trust",
  },
  signature_threshold: {
    exit: EXIT.failed,
    http: 422,
    title: "Fewer trusted signatures than the policy requires",
  },
  policy_violation: { exit: EXIT.failed, http: 422, title: "Attestation violates the policy" },
  policy_invalid: { exit: EXIT.dataErr, http: 400, title: "Invalid trust policy" },
  registration_mismatch: {
    exit: EXIT.failed,
    http: 422,
    title: "Scenario or data differ from the registration",
  },
  key_too_short: { exit: EXIT.usage, http: 400, title: "Signing key too short" },
  key_invalid: { exit: EXIT.usage, http: 400, title: "Unusable key" },
  scenario_invalid: { exit: EXIT.dataErr, http: 422, title: "Invalid scenario" },
  dataset_invalid: { exit: EXIT.dataErr, http: 422, title: "Invalid dataset" },
  substrate_unavailable: { exit: EXIT.unavailable, http: 502, title: "Substrate unavailable" },
  baseline_invalid: { exit: EXIT.dataErr, http: 422, title: "Baseline proof unusable" },
  bundle_mismatch: { exit: EXIT.failed, http: 422, title: "Bundle part does not match the record" },
  store_unavailable: { exit: EXIT.unavailable, http: 503, title: "Proof store unavailable" },
  unauthorized: { exit: EXIT.noPerm, http: 401, title: "Authentication required" },
  forbidden: { exit: EXIT.noPerm, http: 403, title: "Forbidden" },
  method_not_allowed: { exit: EXIT.usage, http: 405, title: "Method not allowed" },
  payload_too_large: { exit: EXIT.dataErr, http: 413, title: "Request body too large" },
  unsupported_media_type: { exit: EXIT.usage, http: 415, title: "Unsupported media type" },
  request_timeout: { exit: EXIT.io, http: 408, title: "Request body too slow" },
  client_closed: { exit: EXIT.io, http: 499, title: "Client closed the connection" },
  cancelled: { exit: EXIT.interrupted, http: 503, title: "Cancelled" },
  bind_failed: { exit: EXIT.unavailable, http: 503, title: "Cannot listen on that address" },
  worker_failed: { exit: EXIT.osErr, http: 503, title: "A server worker stopped" },
  usage_error: { exit: EXIT.usage, http: 400, title: "Bad request" },
  not_found: { exit: EXIT.noInput, http: 404, title: "Not found" },
  already_exists: { exit: EXIT.cantCreate, http: 409, title: "Already exists" },
  io_error: { exit: EXIT.io, http: 500, title: "Input/output error" },
  internal_error: { exit: EXIT.internal, http: 500, title: "Internal error" },
};

/** Codes produced by the typed JSON parser and the canonicalizer. */
export const WIRE_CODES: readonly ErrorCode[] = [
  "syntax_error",
  "duplicate_key",
  "lone_surrogate",
  "non_finite_number",
  "int_out_of_range",
  "depth_exceeded",
  "invalid_utf8",
  "unsupported_type",
];
