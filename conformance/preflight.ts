/**
 * The preflight: before any case runs, the target must answer, every token of the manifest must
 * authenticate (and the unscoped operator see what an operator sees), and the declared profiles
 * must exist with the declared engines, and the provider tools the scenarios call must be there
 * (preflight-tools.ts). Each problem is one line; any problem stops the run
 * (exit 2) so a misconfigured run never reads as a list of failed or unsupported cases.
 */
import { Agent, request } from 'undici'
import { preflightTools } from './preflight-tools.ts'
import { PROFILE_ROLES } from './target/manifest-schema.ts'
import type { TargetManifest } from './types.ts'

interface Answer { status: number; json: any }

export async function preflight(manifest: TargetManifest, timeoutMs = 5000): Promise<string[]> {
  const tokens = Object.entries(manifest.tokens).filter((e): e is [string, string] => typeof e[1] === 'string')
  if (!tokens.length) return ['no token: give --token <operator token> or tokens in the manifest (every route needs authentication, authentication.1)']
  const agent = new Agent({ connections: 4 })
  const get = async (path: string, token: string | undefined): Promise<Answer> => {
    const res = await request(`${manifest.baseUrl}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, dispatcher: agent, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
    const text = await res.body.text()
    let json: unknown
    try { json = JSON.parse(text) } catch { json = undefined }
    return { status: res.statusCode, json }
  }
  try {
    try {
      await get('/sessions', undefined)
    } catch (err) {
      return [`target unreachable: ${manifest.baseUrl} (${(err as Error).message})`]
    }
    const problems: string[] = []
    for (const [who, token] of tokens) {
      const res = await get('/sessions', token)
      if (res.status !== 200) problems.push(`${who} token was refused: ${res.status}`)
    }
    if (problems.length) return problems
    const operator = manifest.tokens.operator
    if (operator) {
      // authentication.4: an unscoped operator reaches the operator-only routes the target offers.
      if (manifest.features.includes('queue')) {
        const res = await get('/queue', operator)
        if (res.status !== 200) problems.push(`operator token cannot see the queue (GET /queue answered ${res.status}): is it unscoped?`)
      }
      if (manifest.features.includes('hostFiles')) {
        const res = await get('/fs/roots', operator)
        if (res.status !== 200) problems.push(`operator token cannot see host files (GET /fs/roots answered ${res.status}): is it unscoped?`)
      }
      const declared = Object.entries(manifest.profiles).filter((e): e is [keyof typeof PROFILE_ROLES, string] => typeof e[1] === 'string')
      if (declared.length) {
        const res = await get('/profiles', operator)
        const list: any[] = Array.isArray(res.json?.profiles) ? res.json.profiles : []
        if (res.status !== 200) problems.push(`GET /profiles answered ${res.status}; cannot check the declared profiles`)
        else for (const [role, name] of declared) {
          const found = list.find((p) => p?.name === name)
          const engine = PROFILE_ROLES[role]
          if (!found) problems.push(`profiles.${role}: profile '${name}' does not exist on the target (it lists ${list.map((p) => p?.name).join(', ') || 'none'})`)
          else if ((found.engine ?? 'cli_primary') !== engine) problems.push(`profiles.${role}: profile '${name}' runs engine ${found.engine}, the role needs ${engine}`)
        }
      }
    }
    // The tools need the provider profile checked above: only then is a tool problem the tool's.
    if (problems.length) return problems
    return await preflightTools(manifest, agent, timeoutMs + (manifest.timers?.turnMs ?? 0))
  } finally {
    await agent.close()
  }
}
