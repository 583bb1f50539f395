/** Case helpers: profile catalog. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'
import { Unsupported } from '../../types.ts'

/** The declared provider profile's `provider` block, so a managed copy runs where it runs. */
export async function providerBlock(ctx: CaseContext): Promise<Record<string, unknown>> {
  const res = await ctx.http('GET', `/profiles/${encodeURIComponent(ctx.profile('provider'))}`)
  const provider = res.json?.profile?.provider
  if (typeof provider?.id !== 'string' || typeof provider?.model !== 'string') {
    throw new Unsupported(`the provider profile's ProfileInfo shows no provider {id, model} to copy (${res.text.slice(0, 160)})`)
  }
  return { id: provider.id, model: provider.model, ...(typeof provider.apiKeyEnv === 'string' ? { apiKeyEnv: provider.apiKeyEnv } : {}) }
}
