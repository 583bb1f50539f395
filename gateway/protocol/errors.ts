/**
 * Error responses (errors.*). Protocol 7 clients read `error`; `code` is our stable machine code.
 * Every code the gateway emits is listed here with its status, so docs and clients share one table.
 */
export const ERROR_CODES = {
  unauthorized: 401,
  not_found: 404,
  session_not_found: 404,
  permission_request_not_found: 404,
  execution_not_found: 404,
  profile_not_found: 404,
  method_not_allowed: 405,
  invalid_json: 400,
  json_too_complex: 400,
  invalid_request: 400,
  profile_required: 400,
  unknown_profile: 400,
  field_not_supported: 400,
  permission_mode_not_supported: 400,
  capability_not_granted: 400,
  model_not_supported: 400,
  cwd_required: 400,
  scope_invalid: 400,
  forbidden: 403,
  profile_not_allowed: 403,
  cwd_outside_roots: 403,
  bypass_disabled: 403,
  scope_mismatch: 403,
  conflict: 409,
  session_parked: 409,
  body_too_large: 413,
  headers_too_large: 431,
  request_timeout: 408,
  unsupported_media_type: 415,
  engine_failed: 502,
  internal_error: 500,
  not_implemented: 501,
  upgrade_required: 426,
  too_many_sockets: 429,
  profile_unavailable: 503,
  shutting_down: 503,
  database_unavailable: 503,
  forward_unauthorized: 401,
  forward_forbidden: 403,
  session_owner_unreachable: 503,
  session_owner_changed: 503,
} as const

export type ErrorCode = keyof typeof ERROR_CODES

export interface ErrorResponse {
  error: string
  code: ErrorCode
}
