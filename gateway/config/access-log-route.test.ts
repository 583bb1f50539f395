/**
 * The access line's route pattern: every id in a path is replaced, so lines group by route and no
 * id-shaped secret leaks into a log through a path; the session id is reported apart.
 */
import { describe, expect, it } from 'vitest'
import { routePattern } from './access-log.ts'

describe('routePattern', () => {
  it('replaces the ids of sessions, jobs, executions, permissions and attachments and names the session', () => {
    expect(routePattern('/v1/sessions/abc/ws')).toEqual({ route: '/v1/sessions/:id/ws', sessionId: 'abc' })
    expect(routePattern('/v1/sessions/s%201/permissions/p-9')).toEqual({ route: '/v1/sessions/:id/permissions/:id', sessionId: 's 1' })
    expect(routePattern('/v1/jobs/job-1/cancel')).toEqual({ route: '/v1/jobs/:id/cancel', sessionId: undefined })
    expect(routePattern('/v1/executions/e1')).toEqual({ route: '/v1/executions/:id', sessionId: undefined })
    expect(routePattern('/v1/sessions/s2/attachments/a1')).toEqual({ route: '/v1/sessions/:id/attachments/:id', sessionId: 's2' })
  })

  it('leaves collection routes and the queue socket alone', () => {
    expect(routePattern('/v1/sessions')).toEqual({ route: '/v1/sessions', sessionId: undefined })
    expect(routePattern('/v1/jobs/ws')).toEqual({ route: '/v1/jobs/ws', sessionId: undefined })
    expect(routePattern('/v1/profiles/default')).toEqual({ route: '/v1/profiles/default', sessionId: undefined })
  })
})
