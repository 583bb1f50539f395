/**
 * One codex turn as the runner tracks it: the turn id (from the `turn/start` answer or
 * `turn/started`, whichever is read first), the notifications read before it, its tool cards,
 * usage and last text, and whether an interrupt waits for codex to accept one.
 */
import type { StreamEventWriter } from '../stream-events.ts'
import { nonceOf } from './codex-shapes.ts'
import { zeroUsage, type Item, type Usage } from './items.ts'
import type { Json } from './peer.ts'

export interface Turn {
  id?: string
  nonce: string
  started: number
  usage: Usage
  lastText?: string
  lastError?: string
  interruptRequested: boolean
  /** `turn/started` was read: codex refuses `turn/interrupt` before it ("no active turn to interrupt"). */
  active: boolean
  /** Tool cards by codex item id: approvals point their `toolUseId` at them (reference §7). */
  items: Map<string, Item>
  /** Turn-scoped notifications read before the turn id was known (same stdout chunk as the turn/start answer). */
  early: Array<[string, Json]>
  /** Raw stream events for `item/agentMessage/delta`s (events.11), made on the first delta. */
  stream?: StreamEventWriter
}

export function newTurn(interruptRequested: boolean): Turn {
  return { nonce: nonceOf(), started: Date.now(), usage: zeroUsage(), interruptRequested, active: false, items: new Map(), early: [] }
}
