/**
 * The `webSockets` option: how much one socket may have waiting to be sent, how long a reader may
 * stay above that, and how many sockets a principal or a session may hold. A client that stops
 * reading must cost the gateway a bounded amount of memory, not the whole stream it missed.
 */

export interface WebSocketLimitsOptions {
  /** Bytes a socket may have queued (ws `bufferedAmount`) before the gateway stops sending to it. */
  maxBufferedBytes?: number
  /** How long a socket may stay above `maxBufferedBytes` before it is closed with 1013. */
  slowReaderTimeoutMs?: number
  /** Open sockets per non-operator principal (operators, the only queue-socket users, are exempt); one more is refused with 429. */
  maxPerPrincipal?: number
  /** Open session sockets per session; one more is refused with 429. */
  maxPerSession?: number
}

export type WebSocketLimits = Required<WebSocketLimitsOptions>

export const DEFAULT_WEBSOCKET_LIMITS: WebSocketLimits = Object.freeze({
  maxBufferedBytes: 4 * 1024 * 1024,
  slowReaderTimeoutMs: 10_000,
  maxPerPrincipal: 64,
  maxPerSession: 32,
})

/** The smallest bound: well above Node's 16 KiB write high-water mark (send-budget.ts). */
export const MIN_MAX_BUFFERED_BYTES = 64 * 1024

/** Validates `webSockets` of createGatewayServer and fills in the defaults; throws a message naming the field. */
export function resolveWebSocketLimits(options: unknown): WebSocketLimits {
  if (options === undefined) return DEFAULT_WEBSOCKET_LIMITS
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new Error('createGatewayServer: webSockets must be an object { maxBufferedBytes?, slowReaderTimeoutMs?, maxPerPrincipal?, maxPerSession? }')
  }
  const given = options as Record<string, unknown>
  for (const key of Object.keys(given)) {
    if (!(key in DEFAULT_WEBSOCKET_LIMITS)) throw new Error(`createGatewayServer: webSockets.${key} is not an option`)
  }
  const limits = { ...DEFAULT_WEBSOCKET_LIMITS }
  for (const key of Object.keys(DEFAULT_WEBSOCKET_LIMITS) as Array<keyof WebSocketLimits>) {
    const value = given[key]
    if (value === undefined) continue
    if (!Number.isSafeInteger(value) || (value as number) <= 0) throw new Error(`createGatewayServer: webSockets.${key} must be a positive integer`)
    limits[key] = value as number
  }
  if (limits.maxBufferedBytes < MIN_MAX_BUFFERED_BYTES) {
    throw new Error(`createGatewayServer: webSockets.maxBufferedBytes must be at least ${MIN_MAX_BUFFERED_BYTES} (64 KiB)`)
  }
  return Object.freeze(limits)
}
