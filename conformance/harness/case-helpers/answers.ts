/** Case helpers: answers. Shared by the cases of every section through case-helpers/index.ts. */
import type { HttpAnswer } from '../http-client.ts'

/** A value this long cannot turn up in a response by chance, so finding it there is a leak. */
export const SECRET_MIN_CHARS = 8

/** A request's status, or what went wrong on the connection (a gateway that went down answers nothing). */
export async function answerOf(request: Promise<HttpAnswer>): Promise<{ status?: number; what: string }> {
  try {
    const res = await request
    return { status: res.status, what: `HTTP ${res.status} ${res.text.slice(0, 160)}` }
  } catch (err) {
    return { what: `no answer: ${(err as Error).message}` }
  }
}
