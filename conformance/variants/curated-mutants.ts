/**
 * The curated mutants of gateway/: each one deliberate violation of a rule a clause states,
 * written as exact text substitutions (each `find` must occur exactly once in its file, so a
 * refactor that moves the code makes the mutant stale instead of silently unmutated). `filters`
 * pick the kit's cases that should kill it (--filter syntax: case id, clause id or section).
 */
export interface Edit { file: string; find: string; replace: string }
export interface Mutant { id: string; rule: string; edits: Edit[]; filters: string[] }

const one = (id: string, rule: string, file: string, find: string, replace: string, filters: string[]): Mutant => ({ id, rule, edits: [{ file, find, replace }], filters })

export const CURATED: Mutant[] = [
  one('scope-miss-403', 'errors.1 a scope miss is 404, never 403', 'gateway/server/routes/session-gate.ts',
    'if (!info || !ctx.visibility.canSee(principal, info)) return SESSION_NOT_FOUND', 'if (!info || !ctx.visibility.canSee(principal, info)) return { ...SESSION_NOT_FOUND, status: 403 }', ['authentication.3']),
  one('scope-keys-ignored', 'scope.1 every pinned key must equal the session\'s value', 'gateway/server/principal.ts',
    'if (!sessionScope || sessionScope[key] !== pinned[key]) return false', 'if (!sessionScope) return false', ['authentication.3', 'scope.1']),
  one('scoped-is-operator', 'authentication.4 a scoped principal is refused operator routes', 'gateway/server/principal.ts',
    "return !principal.scope || Object.keys(principal.scope).length === 0", 'return true', ['authentication.4']),
  one('unauthorized-403', 'authentication.1 / errors.2 a falsy authenticate is 401', 'gateway/server/refusal.ts',
    "export const UNAUTHORIZED = refuse('unauthorized', 'unauthorized')", "export const UNAUTHORIZED = { ...refuse('unauthorized', 'unauthorized'), status: 403 }", ['authentication.1']),
  {
    id: 'replay-inclusive', rule: 'websocket-framing.1 replay events with seq greater than afterSeq',
    edits: [
      { file: 'gateway/sessions/event-log.ts', find: 'const guess = Math.max(0, afterSeq + 1 - this.#offset)', replace: 'const guess = Math.max(0, afterSeq - this.#offset)' },
      { file: 'gateway/sessions/event-log.ts', find: 'return event.seq > afterSeq && !(event.seq < this.#latestResetSeq && isTranscriptContent(event))', replace: 'return event.seq >= afterSeq && !(event.seq < this.#latestResetSeq && isTranscriptContent(event))' },
    ],
    filters: ['websocket-framing.1'],
  },
  one('replay-drops-superseded', 'websocket-framing.1 a replay holds every event after afterSeq (not only the latest status)', 'gateway/sessions/event-log.ts',
    'return event.seq > afterSeq && !(event.seq < this.#latestResetSeq && isTranscriptContent(event))', "return event.seq > afterSeq && !(event.seq < this.#latestResetSeq && isTranscriptContent(event)) && !(event.type === 'status_changed' && this.#entries.some((e) => e.event.seq > event.seq && e.event.type === 'status_changed'))", ['websocket-framing.1']),
  one('reset-skips-nothing', 'events.20 transcript content below the latest reset is skipped on re-attach', 'gateway/sessions/event-log.ts',
    'return event.seq > afterSeq && !(event.seq < this.#latestResetSeq && isTranscriptContent(event))', 'return event.seq > afterSeq && !(event.seq < this.#latestResetSeq && isTranscriptContent(event) && event.seq < 0)', ['events.20']),
  one('seq-from-zero', 'event-and-command-envelope.1 seq starts at 1', 'gateway/sessions/event-log.ts',
    'event.seq = ++this.#seq', 'event.seq = this.#seq++', ['event-and-command-envelope.1']),
  one('retry-constant-delay', 'job-status.7 retryDelayMs doubled each retry', 'gateway/queue/job-conclusion.ts',
    '* 2 ** (current.attempt - 1)', '* 1', ['jobs-retry-doubling']),
  one('concurrency-plus-one', 'queue-options.1 running never exceeds maxConcurrency', 'gateway/queue/job-queue.ts',
    'while (!q.closed && q.slotsTaken() < this.maxConcurrency) {', 'while (!q.closed && q.slotsTaken() <= this.maxConcurrency) {', ['queue-options.1']),
  one('bypass-allowed', 'server-configuration.16 bypassPermissions refused (403) when disabled', 'gateway/server/create-request.ts',
    "if (request.permissionMode === 'bypassPermissions' && policy.disableBypassPermissions) {", 'if (false) {', ['server-configuration.16']),
  one('grants-widen', 'profiles.6 a create request\'s capabilities may only narrow the grant', 'gateway/server/create-request.ts',
    'if (!known || (granted !== undefined && !granted.includes(name))) {', 'if (!known) {', ['profiles.6']),
  one('park-never', 'session-status-values.2 a session resting on a deferred execution parks', 'gateway/server/session-wiring.ts',
    '(queueOf()?.onSessionParking(id, executionId) ?? Promise.resolve(true))', 'Promise.resolve(false)', ['parking-park-and-deliver', 'parking-parked-refusals']),
  one('rename-while-parked', 'errors.6 rename while parked is 409', 'gateway/server/routes/sessions.ts',
    "const live = await commandRunner(ctx, id, runner, 'session is parked (wake it before renaming)')", 'const live = runner', ['parking-parked-refusals']),
  one('title-null-keeps', 'updatesessionrequest.1 title null clears meta.title', 'gateway/server/routes/sessions.ts',
    "live.setTitle(typeof title === 'string' && title.trim() ? title.trim() : undefined)", "if (title !== null) live.setTitle(typeof title === 'string' && title.trim() ? title.trim() : undefined)", ['updatesessionrequest.1']),
  one('fs-outside-roots-403', 'authentication.3 / host files: outside the roots answers like absent', 'gateway/host/host-files.ts',
    'return real !== undefined && this.#inside(real) ? real : NOT_FOUND', "return real === undefined ? NOT_FOUND : this.#inside(real) ? real : new FileRefusal(403, 'outside the allowed roots')", ['host-files']),
  one('fs-blind-overwrite', 'errors.6 /fs/write without expectedHash over an existing file is 409', 'gateway/host/host-files.ts',
    'if (existing && expectedHash === undefined) return new FileRefusal(409', 'if (existing && expectedHash === null) return new FileRefusal(409', ['host-files-conditional-write']),
  one('peer-hops-off-by-one', 'limits.6 peers.maxHops', 'gateway/sessions/peers.ts',
    'if (hops + 1 > this.#options.maxHops)', 'if (hops > this.#options.maxHops)', ['peers-limits']),
  one('peer-rate-off-by-one', 'limits.5 peers.perMinute', 'gateway/sessions/peers.ts',
    'if (recent.length >= this.#options.perMinute)', 'if (recent.length > this.#options.perMinute)', ['peers-limits']),
  one('peer-length-doubled', 'limits.4 peers.maxMessageChars', 'gateway/sessions/peers.ts',
    'if (text.length > this.#options.maxMessageChars)', 'if (text.length > this.#options.maxMessageChars * 2)', ['peers-limits']),
  one('attachment-type-400', 'errors.8 a media type the engine does not accept is 415', 'gateway/server/routes/attachments.ts',
    "return sendRefusal(res, refuse('unsupported_media_type'", "return sendRefusal(res, refuse('invalid_request'", ['attachments-refusals']),
  one('manage-without-right', 'authentication.6 profile management needs canManageProfiles (403)', 'gateway/server/routes/profile-management.ts',
    'if (principal.canManageProfiles !== true) return', 'if (principal.canManageProfiles === false) return', ['profiles-managed-lifecycle']),
  one('profile-name-taken-400', 'errors.6 profile name taken is 409', 'gateway/server/routes/profile-management.ts',
    "refuse('conflict', `profile name taken", "refuse('invalid_request', `profile name taken", ['profiles-managed-lifecycle']),
  one('cors-any-origin', 'authentication.7 cors.origins is an exact-origin allowlist', 'gateway/server/cors.ts',
    "const allowed = origins !== undefined && typeof origin === 'string' && origins.has(origin)", "const allowed = origins !== undefined && typeof origin === 'string'", ['authentication.7']),
  {
    id: 'webhook-no-backoff', rule: 'queue-options.9 webhook retries back off exponentially',
    edits: [
      { file: 'gateway/sessions/webhooks.ts', find: 'setTimeout(r, retryDelayMs * 2 ** (attempt - 1))', replace: 'setTimeout(r, retryDelayMs)' },
      { file: 'gateway/sessions/webhooks.ts', find: 'return this.#options.retryDelayMs * 2 ** (attempt - 1)', replace: 'return this.#options.retryDelayMs' },
    ],
    filters: ['queue-options.9', 'events.24'],
  },
  one('park-delay-ignored', 'limits.8 / server-configuration.22 parkDelayMs is the grace before parking', 'gateway/sessions/parking.ts',
    'return this.#options.parkDelayMs ?? PARKING_DEFAULTS.parkDelayMs', 'return 0', ['session-status-values.2']),
  one('title-only-from-create', 'session.2 the title derives from the first prompt, whichever channel carried it', 'gateway/sessions/session-core.ts',
    'if (this.#derivedTitle === undefined && !event.synthetic && !event.origin && !event.parentToolUseId) {', 'if (this.#derivedTitle === undefined && event.seq < 0) {', ['session.2']),
]

/**
 * Generated mutants: every refusal the server builds with `refuse('<code>'` in gateway/server
 * gets its code swapped for one with another status (the spec ties each refusal to a status).
 */
export const SWAPS: Record<string, string> = {
  forbidden: 'not_found', not_found: 'forbidden', conflict: 'invalid_request', invalid_request: 'forbidden',
  session_not_found: 'forbidden', unsupported_media_type: 'invalid_request', not_implemented: 'not_found',
}

/**
 * Survivors reviewed and judged equivalent as far as the spec's words reach (the runner still
 * runs them, so a sharper spec or case can kill them later):
 * - seq-from-zero: the event numbered 0 is never replayed (afterSeq ≥ 0) and no client can attach
 *   before a session's first event, so only `lastSeq` would show it, whose meaning is not stated.
 * - fs-blind-overwrite: the hash comparison just below still answers 409 for an omitted
 *   expectedHash over an existing file; the guard is redundant, the behaviour unchanged.
 * - model_not_supported answered 403: no clause says a model outside the catalog must be refused,
 *   nor with which status (create-model-outside-catalog-refused accepts any non-5xx).
 * - a bad MCP action answered 403: sessions.10 names the actions but no status for another one.
 * - generated swaps with no clause behind the status: a JSON body over maxBodyBytes answered 403
 *   (errors.7: "status for body overflow: not shown"; the kit notes it non-strict), a queue refusal
 *   of bad attempts answered 403, an engine without a session lister on /sdk-sessions, a non-string
 *   `profile`, a non-object profile-create body, an empty attachment body (routes/attachments.ts;
 *   the spec's 400 list does not name it); and a refusal reachable only without
 *   allowedConfigDirRoots, which the self target sets (unreachable there).
 */
export const EQUIVALENT = ['seq-from-zero', 'fs-blind-overwrite'] as const
