/** Case helpers: create request. Shared by the cases of every section through case-helpers/index.ts. */


/**
 * Request fields and the capability-record key that would forswear each (the keys this gateway's
 * records serve; the spec shows no keys beyond hostCwd, clearContext, mcpStatus, mcpServerActions
 * and interactiveApprovals). A field counts as forsworn only when the engine's served record holds
 * its key explicitly `false`: no clause forswears `allowedTools` or any other field by itself.
 */
export const FIELD_KEYS: Array<[Record<string, unknown>, string]> = [
  [{ resume: 'some-session' }, 'resume'], [{ forkSession: true }, 'forkSession'], [{ settingSources: ['user'] }, 'settingSources'],
  [{ maxTurns: 2 }, 'budgets'], [{ maxBudgetUsd: 1 }, 'budgets'], [{ reasoningEffort: 'high' }, 'reasoningEffort'],
  [{ allowedTools: ['Bash'] }, 'toolFilters'], [{ disallowedTools: ['Bash'] }, 'toolFilters'],
]
