/**
 * Which reverse-check deviations (conformance/variants/deviations.ts) an explore run can observe,
 * and for the others why its model cannot reach them. explore-reverse.test.ts holds the first to
 * being found within the CI budget, and every deviation to being in exactly one list.
 */

/** Deviations the model observes, with the check that fails. */
export const EXPLORE_FINDS: Record<string, string> = {
  'scope-miss-403': 'cross-tenant read: a scope miss is 404, never 403 (errors.1)',
  'scope-keys-ignored': 'cross-tenant read answers 404 (authentication.3)',
  'scoped-is-operator': 'a tenant on /queue, /sdk-sessions, /fs/roots is refused (authentication.4)',
  'unauthorized-403': 'a refused credential is 401 (errors.2)',
  'replay-inclusive': 're-attach: no event at or below afterSeq (websocket-framing.1)',
  'replay-drops-superseded': 're-attach: the replay holds every live event after afterSeq (websocket-framing.1)',
  'reset-skips-nothing': 're-attach after clear_context: transcript below the reset skipped (events.20)',
  'bypass-allowed': 'create with bypassPermissions while disabled is 403 (server-configuration.16)',
  'bypass-reported-while-disabled': 'canBypassPermissions not true while disabled (server-configuration.16)',
  'title-null-keeps': 'PATCH title null brings back the derived title (updatesessionrequest.1)',
  'title-only-from-create': 'a title derived from the first prompt sent over the socket (session.2)',
  'job-success-failed': 'a job on scenario:hello does not end failed (job-status.8)',
  'seq-from-two': 'the live stream starts at seq 1 (event-and-command-envelope.1)',
  'file-delivered-elsewhere': 'the file file_delivered names is served under /sessions/:id/files/ (events.17)',
  'grants-widen': 'a session on a managed profile naming a capability outside its grant is a 400 (profiles.6)',
  'manage-without-right': 'a profile create without canManageProfiles is 403 (authentication.6)',
  'profile-name-taken-400': 'a managed profile created again is 409 (errors.6)',
  'attachment-type-400': 'an attachment of a type the engine does not accept is 415 (errors.8)',
  'cors-any-origin': 'an origin outside cors.origins gets no access-control-allow-origin (authentication.7)',
  'park-never': 'a session resting on a deferred execution with nobody attached parks (session-status-values.2)',
  'rename-while-parked': 'the park is read as a rename refused with 409 (errors.6); without it the park is never seen',
  'park-delay-ignored': 'parked no sooner than parkDelayMs after the last client left (limits.8)',
  'concurrency-plus-one': 'one job more than the slots, submitted at once, never runs more than maxConcurrency (queue-options.1)',
  'peer-length-doubled': 'a peer message one character over peers.maxMessageChars never arrives (limits.4)',
  'peer-rate-off-by-one': 'perMinute + 1 peer messages from a new session within a minute: exactly perMinute arrive (limits.5)',
  'peer-hops-off-by-one': 'a relay chain one hop past maxHops between two new sessions: the last relay never arrives (limits.6)',
  'execution-result-uncorrelated': 'each execution_result follows the execution_dispatched of its executionId (events.14)',
  'retry-constant-delay': 'a job failing every run: its retries wait retryDelayMs doubled each time (job-status.7)',
  'webhook-no-backoff': 'a notification answered 500 twice: its retries back off exponentially from the retry delay (limits.14)',
}

/** Deviations outside the model, with the reason. */
export const EXPLORE_CANNOT_REACH: Record<string, string> = {}
