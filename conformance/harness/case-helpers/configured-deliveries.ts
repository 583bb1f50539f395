/** Case helpers: configured deliveries. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'

/** This session's turn_completed deliveries, whatever the receiver answered. */
export function turnDeliveries(ctx: CaseContext, sessionId: string) {
  return ctx.receiver!.deliveries.filter((d) => d.body?.sessionId === sessionId && d.body?.type === 'turn_completed')
}
