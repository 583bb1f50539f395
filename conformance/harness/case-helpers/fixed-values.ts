/** Case helpers: fixed values. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'

/** SessionInfo fields that no command, turn or rename may change: identity, and what the spec fixes at creation. */
export const FIXED = ['id', 'profile', 'engine', 'cwd', 'scope', 'canBypassPermissions'] as const

export function compareFixed(ctx: CaseContext, created: Record<string, unknown>, later: Record<string, unknown> | undefined, where: string): void {
  for (const field of FIXED) {
    if (!(field in created)) continue
    // scope.1: immutable after create; session.1: canBypassPermissions fixed at creation; the others name the session itself.
    const clause = field === 'scope' ? 'scope.1' : 'session.1'
    ctx.equal(clause, later?.[field], created[field], `${where}: SessionInfo.${field} as the create answered it`)
  }
}
