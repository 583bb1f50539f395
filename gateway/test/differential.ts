/**
 * The differential comparison of one scenario run against a real engine binary and against our
 * fake of it: both runs go through the same gateway adapter, and their gateway
 * events must be equal after these normalisations, each of which removes something that
 * legitimately differs between two runs or two builds, never something the fake could get wrong:
 *
 * 1. `seq`, `ts`, `durationMs`: clock and interleaving, not behaviour.
 * 2. `stream_delta`: chunk boundaries are the model fake's choice (and the real engine re-chunks).
 * 3. `rate_limit`, `sdk_event`, `context_usage`: housekeeping the real engine emits per model
 *    request with values from its own model metadata (the fake reports a fixed window).
 * 4. `turn_result.usage` / `totalCostUsd`: the real engine reports usage per model request (one per
 *    leg), the fake once per turn; the adapter's summing is covered by its own tests.
 * 5. `system_init.model` / `capabilities`: the model's name is configuration (`mock-model` vs the
 *    fake's default), not protocol.
 * 6. Ids (`tool_use.id`, `tool_use_id`, `toolUseId`, `requestId`, `sdkSessionId`, `fileId`):
 *    random per run; replaced by placeholders in order of first appearance, so pairing is kept.
 * 7. Directories given in `paths` (cwd, engine home): per-test temporary directories.
 * 8. Consecutive duplicate `status_changed`: a status repeated without a change between is no
 *    transition.
 */
export type GatewayEvent = Record<string, unknown> & { type: string }

const DROPPED = new Set(['stream_delta', 'rate_limit', 'sdk_event', 'context_usage', 'capabilities'])
const VOLATILE_KEYS = new Set(['seq', 'ts', 'durationMs', 'usage', 'totalCostUsd'])
const ID_KEYS = new Set(['id', 'tool_use_id', 'toolUseId', 'requestId', 'sdkSessionId', 'fileId'])

export function normaliseEvents(events: GatewayEvent[], paths: Record<string, string> = {}): unknown[] {
  const walk = createNormaliser({ idKeys: ID_KEYS, dropKeys: VOLATILE_KEYS, paths })
  const out: unknown[] = []
  let lastStatus: unknown
  for (const event of events) {
    if (DROPPED.has(event.type)) continue
    if (event.type === 'status_changed') {
      if (event.status === lastStatus) continue
      lastStatus = event.status
    }
    const { model: _model, ...withoutModel } = event
    out.push(walk(event.type === 'system_init' ? withoutModel : event))
  }
  return out
}

export interface NormaliseRules {
  /** Keys whose string values are ids: each distinct value becomes `<idN>` by first appearance, so links between events survive. */
  idKeys: ReadonlySet<string>
  /** Keys left out wherever they stand. */
  dropKeys: ReadonlySet<string>
  /** Directories replaced by `<name>` inside every string. */
  paths: Record<string, string>
  /** An engine's own placeholder for one key of an object (not walked); undefined: walk it as usual. */
  replace?: (object: Record<string, unknown>, key: string) => unknown
  /** An engine's own completion of an object's walked copy (a default the other engine leaves out). */
  complete?: (object: Record<string, unknown>, walked: Record<string, unknown>) => void
}

/**
 * The one walk both differential tests (codex and Claude Code) share: ids to placeholders, run
 * directories to names, volatile keys and undefined values dropped. One id map per normaliser, so
 * make one per run being compared.
 */
export function createNormaliser(rules: NormaliseRules): (value: unknown) => unknown {
  const ids = new Map<string, string>()
  const placeholder = (value: string) => {
    if (!ids.has(value)) ids.set(value, `<id${ids.size + 1}>`)
    return ids.get(value)!
  }
  const replacePaths = (text: string) => Object.entries(rules.paths).reduce((t, [name, dir]) => t.split(dir).join(`<${name}>`), text)
  const walk = (value: unknown, key?: string): unknown => {
    if (typeof value === 'string') return key && rules.idKeys.has(key) ? placeholder(value) : replacePaths(value)
    if (Array.isArray(value)) return value.map((v) => walk(v))
    if (value && typeof value === 'object') {
      const original = value as Record<string, unknown>
      const out: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(original)) {
        if (rules.dropKeys.has(k) || v === undefined) continue
        const replaced = rules.replace?.(original, k)
        out[k] = replaced === undefined ? walk(v, k) : replaced
      }
      rules.complete?.(original, out)
      return out
    }
    return value
  }
  return (value) => walk(value)
}
