/**
 * Refusals are values, turned into responses in one place (DESIGN.md §7). Every error body is
 * `{error, code}`: protocol 7 clients read `error`, `code` is the stable machine code.
 */
import { ERROR_CODES, type ErrorCode } from '../protocol/index.ts'

export interface Refusal {
  readonly status: number
  readonly code: ErrorCode
  readonly error: string
}

export function refuse(code: ErrorCode, error: string): Refusal {
  return { status: ERROR_CODES[code], code, error }
}

export function isRefusal(value: unknown): value is Refusal {
  return typeof value === 'object' && value !== null && 'status' in value && 'code' in value && 'error' in value
}

/** The one body every unknown or invisible session answers with (errors.1, authentication.3). */
export const SESSION_NOT_FOUND = refuse('session_not_found', 'session not found')
export const NOT_FOUND = refuse('not_found', 'not found')
export const METHOD_NOT_ALLOWED = refuse('method_not_allowed', 'method not allowed')
export const UNAUTHORIZED = refuse('unauthorized', 'unauthorized')
export const SHUTTING_DOWN = refuse('shutting_down', 'the gateway is shutting down')
