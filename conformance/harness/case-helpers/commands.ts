/** Case helpers: commands. Shared by the cases of every section through case-helpers/index.ts. */


/** session-status-values.1: every status a session may report. */
export const STATUSES = ['starting', 'running', 'awaiting_approval', 'idle', 'parked', 'failed', 'closed']

/** A one-step scenario whose text shows the model the engine ran the turn on (`{{model}}`, scenarios/README.md). */
export const MODEL_ECHO = `scenario:${JSON.stringify({ name: 'model-echo', steps: [{ type: 'text', text: 'running on model={{model}};' }] })}`

/** Text of the turn: its assistant messages' text blocks and the turn_result's result text. */
export function turnText(events: any[], result: any): string {
  const texts = events.filter((e) => e.type === 'assistant_message').flatMap((e) => {
    const content = e.message?.content
    if (typeof content === 'string') return [content]
    return Array.isArray(content) ? content.filter((b: any) => b?.type === 'text').map((b: any) => String(b.text)) : []
  })
  return [...texts, String(result?.result ?? '')].join('\n')
}
