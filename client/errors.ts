/**
 * The one error class of agent-session-client: a gateway's non-2xx answer, or a session attach
 * the gateway refused. `status` is the HTTP status (errors.*); `code` is the gateway's machine code
 * when its body names one of the codes the protocol lists, else the code the spec ties to that
 * status (the spec leaves the error body's shape open, so another gateway may send none).
 */
import { ERROR_CODES, type ErrorCode } from '../gateway/protocol/index.ts'

/** Codes a client raises itself: no HTTP answer carries them, so `status` is 0. */
export type ClientErrorCode = 'protocol_mismatch' | 'connection_failed'

const BY_STATUS: Record<number, ErrorCode> = {
  400: 'invalid_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 405: 'method_not_allowed',
  408: 'request_timeout', 409: 'conflict', 413: 'body_too_large', 415: 'unsupported_media_type', 426: 'upgrade_required',
  431: 'headers_too_large', 500: 'internal_error', 501: 'not_implemented', 502: 'engine_failed', 503: 'shutting_down',
}

export class GatewayError extends Error {
  override readonly name = 'GatewayError'
  readonly status: number
  readonly code: ErrorCode | ClientErrorCode
  /** The parsed error body (protocol 7 sends `{error}`), or its text when it was not JSON. */
  readonly body: unknown
  readonly method: string
  readonly path: string

  constructor(init: { status: number; code: ErrorCode | ClientErrorCode; message: string; body?: unknown; method?: string; path?: string }) {
    super(init.message)
    this.status = init.status
    this.code = init.code
    this.body = init.body
    this.method = init.method ?? ''
    this.path = init.path ?? ''
  }

  /** The error of a non-2xx answer to `method path`. */
  static fromAnswer(method: string, path: string, status: number, body: unknown): GatewayError {
    const named = (body as { code?: unknown } | null)?.code
    const code: ErrorCode = typeof named === 'string' && named in ERROR_CODES ? (named as ErrorCode) : (BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request'))
    const said = (body as { error?: unknown } | null)?.error
    const detail = typeof said === 'string' ? said : typeof body === 'string' && body ? body.slice(0, 200) : `HTTP ${status}`
    return new GatewayError({ status, code, body, method, path, message: `${method} ${path}: ${status} ${code}: ${detail}` })
  }
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError
}
