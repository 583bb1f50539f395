/** Case helpers: notification deliveries. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'

/** This session's notifications the receiver accepted, in arrival order. */
export function delivered(ctx: CaseContext, sessionId: string): any[] {
  return ctx.receiver!.deliveries.filter((d) => d.body?.sessionId === sessionId && d.status < 300).map((d) => d.body)
}

export async function untilNotified(ctx: CaseContext, found: () => boolean): Promise<void> {
  const deadline = Date.now() + ctx.deadlineMs
  while (!found() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
}
