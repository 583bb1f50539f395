/**
 * Streamed tool-call deltas to tool-input-start/delta/end and tool-call parts, as the AI SDK's
 * `StreamingToolCallTracker` (provider-utils, Apache-2.0) does for `@ai-sdk/openai-compatible`:
 * the same correlation of a delta to a call (wire id, index, name, whether its arguments open a
 * new JSON value), the same id generation, and every call finished at the end of the stream,
 * ordered by index. Ported rather than imported: provider-utils is not a dependency of ours.
 * The differential test (lean-model.differential.test.ts) holds it to the SDK's parts.
 */
import { generateId, InvalidResponseDataError } from 'ai'
import { ArgumentState, startsWithStructuredValue } from './argument-state.ts'
import type { StreamPart } from './types.ts'
import type { WireToolCallDelta } from './wire-chunk.ts'

interface TrackedCall {
  id: string
  index?: number
  sequence: number
  name: string
  arguments: string
  state: ArgumentState
  finished: boolean
  thoughtSignature?: string
}

type Resolution = { kind: 'existing'; call: TrackedCall } | { kind: 'new' } | { kind: 'ambiguous' }
const NEW: Resolution = { kind: 'new' }
const AMBIGUOUS: Resolution = { kind: 'ambiguous' }

const nonBlank = (value: string | null | undefined) => (value != null && value.trim().length > 0 ? value : undefined)

export class ToolCallTracker {
  readonly #calls: TrackedCall[] = []
  readonly #byId = new Map<string, Set<TrackedCall>>()
  readonly #byIndex = new Map<number, Set<TrackedCall>>()
  readonly #usedIds = new Set<string>()
  readonly #nextSuffix = new Map<string, number>()

  readonly #emit: (part: StreamPart) => void
  readonly #metadataKey: string

  constructor(emit: (part: StreamPart) => void, metadataKey: string) {
    this.#emit = emit
    this.#metadataKey = metadataKey
  }

  processDelta(delta: WireToolCallDelta): void {
    const wireName = delta.function?.name
    const wireId = nonBlank(delta.id)
    const name = nonBlank(wireName)
    const args = delta.function?.arguments
    const index = delta.index
    const resolution = this.#resolve(wireId, index, name, name != null && startsWithStructuredValue(args), args == null || args.trim().length === 0)
    if (resolution.kind === 'ambiguous') return
    let call: TrackedCall
    if (resolution.kind === 'new') {
      if (typeof wireName === 'string' && wireName.trim().length === 0) return
      call = this.#start(delta, wireId, index, name)
    } else {
      call = resolution.call
      if (wireId != null) link(this.#byId, wireId, call)
      if (!call.finished && args != null) {
        call.state.append(args)
        call.arguments += args
        this.#emit({ type: 'tool-input-delta', id: call.id, delta: args })
      }
    }
    if (index != null) link(this.#byIndex, index, call)
  }

  /** Finishes every unfinished call, by index when every call has one. */
  flush(): void {
    const calls = this.#calls.every((c) => c.index != null)
      ? [...this.#calls].sort((a, b) => a.index! - b.index! || a.sequence - b.sequence)
      : this.#calls
    for (const call of calls) {
      if (call.finished) continue
      this.#emit({ type: 'tool-input-end', id: call.id })
      const providerMetadata = call.thoughtSignature ? { [this.#metadataKey]: { thoughtSignature: call.thoughtSignature } } : undefined
      this.#emit({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.arguments, ...(providerMetadata ? { providerMetadata } : {}) })
      call.finished = true
    }
  }

  #resolve(wireId: string | undefined, index: number | null | undefined, name: string | undefined, explicitStart: boolean, emptyArgs: boolean): Resolution {
    const indexed = index != null ? this.#byIndex.get(index) : undefined
    const matchingIndexed = indexed ? [...indexed].filter((c) => name == null || c.name === name) : []
    if (wireId != null) {
      const withId = this.#byId.get(wireId)
      if (withId != null) {
        if (index != null) {
          const matching = pick(matchingIndexed.filter((c) => withId.has(c)), explicitStart)
          if (matching.kind !== 'new') return matching
          if (name != null) return NEW
          if (indexed != null) return AMBIGUOUS
          return pick([...withId], false)
        }
        if (name != null) return pick([...withId].filter((c) => c.name === name), explicitStart)
        return pick([...withId], false)
      }
      if (matchingIndexed.length > 0) return explicitStart ? NEW : pick(matchingIndexed, name != null && emptyArgs)
      return NEW
    }
    if (indexed != null) return pick(matchingIndexed, explicitStart)
    if (name != null) return NEW
    return pick(this.#calls.filter((c) => !c.finished), false)
  }

  #start(delta: WireToolCallDelta, wireId: string | undefined, index: number | null | undefined, name: string | undefined): TrackedCall {
    if (name == null) throw new InvalidResponseDataError({ data: delta, message: `Expected 'function.name' to be a string.` })
    const id = this.#newId(wireId)
    this.#emit({ type: 'tool-input-start', id, toolName: name })
    const initial = delta.function?.arguments ?? ''
    const call: TrackedCall = {
      id, index: index ?? undefined, sequence: this.#calls.length, name, arguments: initial,
      state: new ArgumentState(initial), finished: false,
      thoughtSignature: delta.extra_content?.google?.thought_signature || undefined,
    }
    this.#calls.push(call)
    if (wireId != null) link(this.#byId, wireId, call)
    if (initial.length > 0) this.#emit({ type: 'tool-input-delta', id, delta: initial })
    return call
  }

  #newId(wireId: string | undefined): string {
    if (wireId != null && !this.#usedIds.has(wireId)) {
      this.#usedIds.add(wireId)
      return wireId
    }
    const generated = nonBlank(generateId()) ?? 'tool-call'
    if (!this.#usedIds.has(generated)) {
      this.#usedIds.add(generated)
      return generated
    }
    const first = this.#nextSuffix.get(generated) ?? 1
    for (let suffix = first; suffix <= first + this.#usedIds.size; suffix++) {
      const id = `${generated}-${suffix}`
      if (!this.#usedIds.has(id)) {
        this.#usedIds.add(id)
        this.#nextSuffix.set(generated, suffix + 1)
        return id
      }
    }
    throw new Error('Failed to create a unique tool call ID.')
  }
}

function link<K>(map: Map<K, Set<TrackedCall>>, key: K, call: TrackedCall): void {
  let set = map.get(key)
  if (!set) map.set(key, (set = new Set()))
  set.add(call)
}

/** Which of the candidate calls a delta continues (the SDK's resolveMatchingToolCall). */
function pick(calls: TrackedCall[], explicitStart: boolean): Resolution {
  if (calls.length === 0) return NEW
  const continuable = calls.filter((c) => !c.state.complete)
  if (!explicitStart && calls.length === 1) return { kind: 'existing', call: calls[0] }
  if (continuable.length === 1) return { kind: 'existing', call: continuable[0] }
  if (continuable.length > 1 || !explicitStart) return AMBIGUOUS
  return NEW
}
