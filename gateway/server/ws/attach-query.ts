/**
 * What a session socket's URL asks of the attach (websocket-framing.1): the seq to replay after,
 * and protocol 7's opt-in tool-result views, for clients that render them and fetch the rest (the
 * spec leaves them open).
 */
import type { ToolResultViews } from '../../sessions/tool-result-views.ts'

export interface AttachQuery {
  afterSeq: number
  /** Absent when the client asked for neither view. */
  views?: ToolResultViews
}

/** `target` is the upgrade request's path and query as the client sent it. */
export function attachQuery(target: string): AttachQuery {
  const query = target.indexOf('?')
  const params = new URLSearchParams(query === -1 ? '' : target.slice(query + 1).split('#')[0])
  const views = { truncateResults: params.get('truncateResults') === '1', imageRefs: params.get('imageRefs') === '1' }
  return { afterSeq: parseAfterSeq(params.get('afterSeq')), ...(views.truncateResults || views.imageRefs ? { views } : {}) }
}

/** A missing or non-integer `afterSeq` replays from the start, as protocol 7 does. */
function parseAfterSeq(value: string | null): number {
  if (value === null || !/^\d{1,15}$/.test(value)) return 0
  return Number(value)
}
