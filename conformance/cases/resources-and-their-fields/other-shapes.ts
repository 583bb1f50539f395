/** The cases of § Other shapes: each case's first clause is `other-shapes.N`. */
import type { Case } from '../../types.ts'
import { parked, statusOf } from '../../harness/case-helpers/index.ts'

export const otherShapesCases: Case[] = [
  {
    id: 'parking-result-validation', title: 'malformed execution results are 400, unknown ids 404, and the session stays parked', section: 'other-shapes',
    clauses: ['other-shapes.1', 'errors.3', 'sessions.15'], requires: ['provider', 'parking'],
    async run(ctx) {
      const { id, dispatched } = await parked(ctx)
      for (const body of [{}, { status: 'ok' }, { status: 'ok', output: 'flat' }, { status: 'failed', reason: 'x' }, { status: 'done', output: { value: 1 } }]) {
        // errors.16: the error body's shape is not shown; the status is checked, the body noted.
        ctx.errorStatus('other-shapes.1', await ctx.http('POST', `/executions/${dispatched.executionId}/result`, { body }), 400)
      }
      ctx.errorStatus('errors.3', await ctx.http('POST', '/executions/no-such-execution/result', { body: { status: 'ok', output: { value: 1 } } }), 404)
      ctx.equal('other-shapes.1', await statusOf(ctx, id), 'parked', 'status after refused deliveries')
    },
  },
]
