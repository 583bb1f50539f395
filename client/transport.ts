/**
 * The few platform surfaces the client uses, typed structurally so the same declarations serve a
 * browser (DOM lib) and Node 22 (@types/node): both platforms' `fetch`, `WebSocket`, `AbortSignal`
 * and `Blob` fit these shapes, and neither lib is required to compile against the package.
 */

import type { SessionServerFrame } from '../gateway/protocol/index.ts'

export interface ResponseLike {
  readonly status: number
  readonly headers: { get(name: string): string | null }
  text(): Promise<string>
  arrayBuffer(): Promise<ArrayBuffer>
}

export interface RequestInitLike {
  method: string
  headers: Record<string, string>
  body?: string | ArrayBuffer | ArrayBufferView
  credentials?: 'include' | 'same-origin' | 'omit'
  signal?: SignalLike
}

export type FetchLike = (url: string, init: RequestInitLike) => Promise<ResponseLike>

export interface SignalLike {
  readonly aborted: boolean
  readonly reason?: unknown
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

/** The WHATWG WebSocket surface the session handle uses (browser, Node 22's global, or `ws`). */
export interface WebSocketLike {
  readonly readyState: number
  onopen: ((event: unknown) => void) | null
  onmessage: ((event: { data: unknown }) => void) | null
  onclose: ((event: { code: number; reason: string }) => void) | null
  onerror: ((event: unknown) => void) | null
  send(data: string): void
  close(code?: number, reason?: string): void
}

/**
 * Opens a session or queue socket. `headers` holds the bearer token when the client has one; a
 * browser cannot send headers on a handshake (embedding-rules.1) and authenticates by cookie.
 */
export type WebSocketFactory = (url: string, headers: Record<string, string>) => WebSocketLike | Promise<WebSocketLike>

/** Anything with bytes: a string, an ArrayBuffer or view, or a Blob/File (anything with `arrayBuffer()`). */
export type UploadBody = string | ArrayBuffer | ArrayBufferView | { arrayBuffer(): Promise<ArrayBuffer>; readonly type?: string }

/** A downloaded file: its bytes and what the gateway said about them. */
export interface Download {
  bytes: Uint8Array
  mediaType: string
  /** From the attachment disposition, when the gateway sent one. */
  fileName?: string
}

/** WebSocket readyStates, the same on every platform. */
export const OPEN = 1
export const CLOSED = 3

interface GlobalPlatform {
  fetch?: FetchLike
  WebSocket?: new (url: string, options?: unknown) => WebSocketLike
  location?: { href: string }
}

const platform = globalThis as unknown as GlobalPlatform

export function globalFetch(): FetchLike {
  const f = platform.fetch
  if (!f) throw new Error('agent-session-client: no global fetch; pass `fetch` in the client options')
  return f.bind(globalThis)
}

/**
 * The global WebSocket. A header is passed only when there is one: Node 22's WebSocket (undici)
 * takes `{headers}` as its second argument; a browser never gets one (it has no token to send).
 */
export const globalWebSocket: WebSocketFactory = (url, headers) => {
  const Ctor = platform.WebSocket
  if (!Ctor) throw new Error('agent-session-client: no global WebSocket; pass `webSocket` in the client options')
  return Object.keys(headers).length ? new Ctor(url, { headers }) : new Ctor(url)
}

/** An absolute URL for `base` (which may be relative, like `/v1` in a browser tab) plus `path`. */
export function resolveUrl(base: string, path: string): string {
  const joined = `${base.replace(/\/+$/, '')}${path}`
  if (/^[a-z][a-z0-9+.-]*:/i.test(joined)) return joined
  const here = platform.location?.href
  if (!here) throw new Error(`agent-session-client: a relative baseUrl (${base}) needs a page location; give an absolute URL in Node`)
  return new URL(joined, here).href
}

export function webSocketUrl(httpUrl: string): string {
  return httpUrl.replace(/^http/i, 'ws')
}

/** A socket message as a server frame; anything that is not a JSON object with a `type` is dropped. */
export function parseFrame(data: unknown): SessionServerFrame | undefined {
  try {
    const frame = JSON.parse(typeof data === 'string' ? data : new TextDecoder().decode(data as ArrayBuffer)) as SessionServerFrame
    return frame && typeof frame === 'object' && typeof frame.type === 'string' ? frame : undefined
  } catch {
    return undefined
  }
}
