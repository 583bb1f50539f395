/** Case helpers: kit scenarios. Shared by the cases of every section through case-helpers/index.ts. */


/**
 * Inline scenarios the cases send as prompts (`scenario:<json>`, scenarios/README.md), written so
 * that they assume nothing of the target's tools beyond the spec's words: the fake model
 * binds each intent to the target's own tool definitions, and no script relies on a global the
 * target's sandbox need not define (scenarios/eval.json reads an `input` variable; these do not).
 */

export const inline = (name: string, steps: unknown[]) => `scenario:${JSON.stringify({ name, steps })}`

/** eval_script computing 6 × 7 from literals, then the answer in the turn's text. */
export const EVAL_SIX_BY_SEVEN = inline('eval-six-by-seven', [
  { type: 'tool', name: 'eval_script', input: { code: '6 * 7' } },
  { type: 'text', text: 'The sandbox answered: {{toolResult}}' },
])

/** What the sandbox answers when its write to the scratch filesystem worked (built at run time, so the script's text never holds it). */
export const SCRATCH_WRITTEN = 'scratch-written'

/**
 * Writes `path` in the scratch filesystem from the sandbox (an `fs.write` global, which the spec
 * does not promise: a target without it answers with an error, harmlessly), then hands it over
 * with `deliver_file` as `{path, content}`: a target whose tool writes the content and one whose
 * tool hands over an existing file both deliver it. Then rests on `deferred_task`.
 */
export function writeDeliverThenWait(path: string, content: string): string {
  const half = SCRATCH_WRITTEN.length >> 1
  return inline('write-deliver-then-wait', [
    { type: 'tool', name: 'eval_script', input: { code: `fs.write(${JSON.stringify(path)}, ${JSON.stringify(content)}); ${JSON.stringify(SCRATCH_WRITTEN.slice(0, half))} + ${JSON.stringify(SCRATCH_WRITTEN.slice(half))}` } },
    { type: 'deliver_file', path, content },
    { type: 'deferred', name: 'deferred_task', input: {} },
    { type: 'text', text: 'done' },
  ])
}

/** One call of the MCP tool whose name ends in `lookup` (any server prefix: the fake model binds it), then its answer as the text. */
export function mcpLookup(query: string): string {
  return inline('mcp-lookup', [
    { type: 'tool', name: 'lookup', input: { query } },
    { type: 'text', text: '{{toolResult}}' },
  ])
}
