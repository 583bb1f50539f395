/**
 * The variation table: every choice the spec leaves open that the variation proxy takes the other
 * way from our gateway, each switchable by name and citing the clause whose words allow it. The
 * README's table is rendered from this one (render-table.ts; a test keeps them equal), so the
 * proxy, its documentation and its test name the same variations.
 */

export interface Variation {
  name: string
  /** The clause (shared/spec/clauses.md id) whose words leave the choice open. */
  clause: string
  /** The spec's words that allow the variation, quoted. */
  allows: string
  /** What the proxy does. */
  does: string
}

export const VARIATIONS = [
  {
    name: 'session-fields-omitted',
    clause: 'session.1, session.6',
    allows: 'SessionInfo "Fields: …" lists them without requiring each; "Field types of SessionInfo beyond those stated: not shown."',
    does: 'SessionInfo (REST, `attached`, notifications) omits `canBypassPermissions` when false, `subagents` when empty, `sdkSessionId` until known, and the unlisted `createdAt`.',
  },
  {
    name: 'event-fields-omitted',
    clause: 'events.10',
    allows: 'assistant_message, user_message: "ApiMessage plus `parentToolUseId`, `replay`" (no value is given for a message outside any tool use).',
    does: '`parentToolUseId: null` and the unlisted `uuid` are left out of user_message and assistant_message events.',
  },
  {
    name: 'provider-events-dropped',
    clause: 'events.1, event-and-command-envelope.1',
    allows: 'The Events table lists `system_init`, `capabilities`, `skills`, `tool_titles`, `context_usage`, `rate_limit`, `plan_info` without obliging an engine to emit them; seq "starts at 1, increases monotonically".',
    does: 'On provider-engine sessions those events are dropped (live and in replay) and the remaining events renumbered 1, 2, 3… (`lastSeq`, `afterSeq` and notification `seq` follow the new numbering).',
  },
  {
    name: 'job-event-id-nested',
    clause: 'events.23, other-shapes.6',
    allows: 'JobEvent is named with its types and order only; "Shapes of … JobProgress: not shown".',
    does: 'JobEvents (queue WebSocket and webhook) carry the job only as `job` (its id at `job.id`), without a top-level `jobId`.',
  },
  {
    name: 'job-terminal-renamed',
    clause: 'job-status.1',
    allows: '"Named values: `queued`, `running`, `parked`, and a terminal status. Terminal status value names: not shown." (the table names `failed` and `canceled`).',
    does: 'The terminal status of a successful job is `completed` instead of `succeeded` (JobInfo and JobEvents).',
  },
  {
    name: 'error-body-reshaped',
    clause: 'errors.1, errors.16',
    allows: '"Errors are HTTP status codes." "Body shape of an error response (ErrorResponse): not shown."',
    does: 'Every JSON error body `{error: "…"}` becomes `{code: <status>, message: "…"}` (no `error` field); the status is kept.',
  },
  {
    name: 'create-statuses-swapped',
    clause: 'jobs-and-queue.2, sessions.7, profiles.2, sessions.5',
    allows: 'POST /jobs answers "JobInfo", an upload "UploadAttachmentResponse", POST /profiles "Created profile", DELETE /sessions/:id "Closes and removes": no status is given.',
    does: 'POST /jobs and attachment uploads answer 200 instead of 201; POST /profiles answers 201 instead of 200; DELETE /sessions/:id answers 204 with no body.',
  },
  {
    name: 'body-overflow-400',
    clause: 'errors.7',
    allows: '"request body over `maxBodyBytes` is also bounded by that limit (status for body overflow: not shown)."',
    does: 'A JSON body over `maxBodyBytes` is answered 400 instead of 413 (attachment uploads keep their stated 413).',
  },
  {
    name: 'preflight-200',
    clause: 'authentication.7',
    allows: '"Preflights are answered before authentication." (no status is given).',
    does: 'An allowed CORS preflight is answered 200 instead of 204.',
  },
  {
    name: 'wrong-method-404',
    clause: 'sessions.1, errors.1',
    allows: 'The route tables list the methods each path has; no status is given for a method a path lacks.',
    does: 'A 405 (a method the route lacks) is answered 404.',
  },
  {
    name: 'close-reason-renamed',
    clause: 'events.21',
    allows: '`session_closed` "carries a `reason`, of which `\'client\'` is one value. Other reason values: not shown."',
    does: 'Every `session_closed` reason other than `client` is `removed` (events and notifications).',
  },
  {
    name: 'scoped-refusal-403',
    clause: 'authentication.4',
    allows: '"A principal carrying a scope is refused `/fs/*`, `/sdk-sessions`, `/queue`, `/queue/ws`. The status code of that refusal: not shown."',
    does: 'Those refusals (404 from our gateway) are answered 403, on REST and on the `/queue/ws` upgrade. The proxy knows the scoped principals by their tokens (`scopedTokens`).',
  },
  {
    name: 'execution-output-wrapped',
    clause: 'events.14, other-shapes.6',
    allows: '`execution_result`: "Correlated by `executionId`" (no output layout is given; "Example output shape is a typed value object" is an example).',
    does: '`execution_result.output` is wrapped as `{type: \'json\', value: <output>}` (as protocol 7 records a bridged output).',
  },
  {
    name: 'tool-results-wrapped',
    clause: 'errors.13, events.14',
    allows: 'A result or failure "is returned to the agent as tool output"; the layout of that output is not shown.',
    does: 'Between the gateway and the model: every tool result the model reads is a JSON object `{"output": "<the gateway\'s text>"}`.',
  },
  {
    name: 'tool-schemas-reshaped',
    clause: 'embedding-rules.6, peers.1, events.16',
    allows: 'The spec names the tools `eval_script` and `peers_list`, `peers_peek`, `peers_send` but none of their arguments, and no host-defined or MCP tool ("Human labels keyed by wire tool name": the wire name is the engine\'s).',
    does: 'Between the gateway and the model: every tool\'s arguments renamed and described in words (`code` → `source`, `sessionId` → `recipient`, …), host-defined tools renamed (`deferred_task` → `ext_deferred_task`), MCP tools named `<server>-<tool>`; the model\'s calls mapped back. On the session WebSocket, `tool_call_request` and `tool_use` blocks show the renamed tools.',
  },
  {
    name: 'deliver-file-handover',
    clause: 'events.17, embedding-rules.6',
    allows: '`file_delivered`: "Agent handed over a scratch file (`deliver_file`)"; the tool\'s arguments are not shown.',
    does: '`deliver_file` is offered to the model as `{file_path}` only: it hands over a file that already exists in the scratch filesystem and writes nothing.',
  },
] as const satisfies readonly Variation[]

export type VariationName = (typeof VARIATIONS)[number]['name']

export const ALL_VARIATIONS: readonly VariationName[] = VARIATIONS.map((v) => v.name)

/** The switched-on set, from a comma-separated list (`all` or empty means every variation). */
export function parseVariations(list: string | undefined): Set<VariationName> {
  if (!list || list === 'all') return new Set(ALL_VARIATIONS)
  const names = list.split(',').map((s) => s.trim()).filter(Boolean)
  const unknown = names.filter((n) => !(ALL_VARIATIONS as readonly string[]).includes(n))
  if (unknown.length) throw new Error(`unknown variation(s): ${unknown.join(', ')} (known: ${ALL_VARIATIONS.join(', ')})`)
  return new Set(names as VariationName[])
}
