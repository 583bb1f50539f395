/**
 * The normaliser of the differential test: the gateway events of one scenario played by
 * our fake Claude CLI and by the real Claude Code CLI, reduced to what both must agree on. Each
 * normalisation is listed with why it is not hiding a difference a client would see:
 *
 * 1. `seq`, `ts`, `durationMs`, `totalCostUsd`, `usage`, `model`: ordering counters, wall-clock
 *    times, prices and token counts are engine- and run-specific; clients read them, never
 *    compare them across engines. Event order is kept (the array order).
 * 2. Ids (`sdkSessionId`, message ids and `uuid`s, tool-use ids, permission request ids, and `fileId`, a
 *    hash of the produced file's absolute path): random or path-derived per run on both. Each distinct id is replaced by its first-seen index, so *links* between events
 *    (a permission request naming the tool use it gates) are still compared.
 * 3. The session's cwd becomes `<cwd>`: each gateway runs in its own temporary directory.
 * 4. Events only one engine sends, whose content is engine-specific by nature: `capabilities`,
 *    `skills`, `tool_titles` (the real CLI's model/slash-command/skill catalogue), `context_usage`
 *    (its categories), `sdk_event` (status frames the real CLI sends and the fake does not).
 * 5. `system_init` keeps `apiKeySource`, `cwd` and `permissionMode`: its tool, skill and command
 *    lists are the real CLI's built-ins (dozens) against the fake's four.
 * 6. `tool_result` content of a successful call: the real tool's output (`(Bash completed with no
 *    output)`, the Write tool's wording) against the fake's canned text; `is_error` and denial
 *    messages (which come from the gateway) are kept.
 * 7. `numTurns`: the real CLI counts model round trips (a tool call makes two), the fake counts
 *    user turns; both are session-cumulative, which is all the spec asks (events.12). Recorded as a
 *    known difference of the fake.
 * 8. An assistant message's `stop_reason`/`stop_sequence`/`context_management`: API metadata the
 *    CLI copies through, absent or null on either side.
 */
import { createNormaliser } from './differential.ts'

const DROPPED_EVENTS = new Set(['capabilities', 'skills', 'tool_titles', 'context_usage', 'sdk_event'])
const DROPPED_KEYS = new Set(['seq', 'ts', 'durationMs', 'totalCostUsd', 'usage', 'model', 'numTurns', 'stop_reason', 'stop_sequence', 'context_management', 'parentToolUseId'])
const ID_KEYS = new Set(['sdkSessionId', 'id', 'tool_use_id', 'toolUseId', 'requestId', 'fileId', 'uuid'])

export function normaliseClaudeEvents(events: Array<Record<string, unknown>>, cwd: string): unknown[] {
  const walk = createNormaliser({ idKeys: ID_KEYS, dropKeys: DROPPED_KEYS, paths: { cwd }, replace: toolOutput, complete: toolErrorFlag })
  return events
    .filter((event) => !DROPPED_EVENTS.has(String(event.type)))
    .map((event) => {
      if (event.type === 'system_init') return walk({ type: event.type, apiKeySource: event.apiKeySource, cwd: event.cwd, permissionMode: event.permissionMode })
      return walk(event)
    })
}

/** 6: a successful tool's own output is engine wording. */
function toolOutput(object: Record<string, unknown>, key: string): unknown {
  return key === 'content' && object.type === 'tool_result' && object.is_error !== true ? '<tool output>' : undefined
}

/** A tool result without `is_error` is a success. */
function toolErrorFlag(object: Record<string, unknown>, walked: Record<string, unknown>): void {
  if (object.type === 'tool_result' && !('is_error' in object)) walked.is_error = false
}
