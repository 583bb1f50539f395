/** Case helpers: peers. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'

export const peerScenario = (...steps: unknown[]) => `scenario:${JSON.stringify({ name: 'peer-case', steps: [...steps, { type: 'text', text: '{{toolResult}}' }] })}`

export async function idle(ctx: CaseContext) {
  return ctx.idleSession()
}
