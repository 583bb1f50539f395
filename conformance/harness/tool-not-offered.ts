/**
 * A tool call the target refused because it offers no tool of that name: the cause of a case that
 * then waits out its deadline for a dispatch that never comes. That is the target's setup (its tool
 * names, or the fake model's `--tool-name` mapping) against what the manifest claims, not a clause.
 */
const UNKNOWN_TOOL = /unknown tool:? ([\w.:-]+)/gi

/**
 * The tools a target is told to offer (conformance/target/README.md, step 2, and the grants). A
 * scenario may call a tool no target has on purpose (`kit_no_such_tool`, `echo`): that refusal is
 * the case's own doing, never the setup's.
 */
const SCENARIO_TOOLS = new Set(['deferred_task', 'deferred_short', 'client_eval', 'deliver_file', 'eval_script', 'web_fetch', 'web_search', 'download'])

/** The scenario tool the target called unknown, and its words for it, from any of these wire texts. */
export function toolNotOffered(texts: Iterable<string | undefined>): { tool: string; said: string } | undefined {
  for (const text of texts) {
    for (const match of text?.matchAll(UNKNOWN_TOOL) ?? []) {
      if (SCENARIO_TOOLS.has(match[1])) return { tool: match[1], said: match[0] }
    }
  }
  return undefined
}

/** What to change, in one sentence, for a scenario tool the target does not offer. */
export function offerToolAdvice(tool: string): string {
  return `offer ${tool} under that name or one ending in it, or map it on the fake model (fake-model-server --tool-name ${tool}=<your tool>), as conformance/target/README.md step 2 says`
}
