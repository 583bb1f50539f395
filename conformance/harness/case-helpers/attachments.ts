/** Case helpers: attachments. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'

export function upload(ctx: CaseContext, id: string, body: string, type: string, name = 'notes.txt') {
  return ctx.http('POST', `/sessions/${id}/attachments?name=${encodeURIComponent(name)}`, { raw: body, headers: { 'content-type': type } })
}
