/**
 * The preflight of the provider tools the kit's scenarios call (conformance/target/README.md,
 * step 2): for each feature the manifest claims, one session on the `provider` profile, one turn
 * calling the tool, and what came of it. A target whose tool has another name (and no
 * `--tool-name` mapping on the fake model) answers the call with a tool error and ends the turn
 * instead of dispatching it; every case calling that tool would then wait out its deadline and
 * fail with the cause only in its wire log. Caught here, it is one line and exit 2.
 */
import { request, type Dispatcher } from 'undici'
import { offerToolAdvice, toolNotOffered } from './harness/tool-not-offered.ts'
import { WireLog } from './harness/wire-log.ts'
import { openWs, type WsClient } from './harness/ws-client.ts'
import type { Feature } from './target/manifest-schema.ts'
import type { TargetManifest } from './types.ts'

interface ToolProbe {
  feature: Feature
  tool: string
  step: Record<string, unknown>
  /** The frame showing the target offered the tool: it dispatched the call instead of failing it. */
  offered: (frame: any) => boolean
}

const PROBES: ToolProbe[] = [
  { feature: 'parking', tool: 'deferred_task', step: { type: 'deferred', name: 'deferred_task', input: {} }, offered: dispatched },
  { feature: 'parking', tool: 'deferred_short', step: { type: 'deferred', name: 'deferred_short', input: {} }, offered: dispatched },
  { feature: 'bridge', tool: 'client_eval', step: { type: 'bridge', name: 'client_eval', input: { code: '6 * 7' } }, offered: (f) => f.type === 'tool_call_request' || dispatched(f) },
]

function dispatched(frame: any): boolean {
  return frame.type === 'event' && frame.event?.type === 'execution_dispatched'
}

/** One problem line per tool the scenarios call that the target does not offer. */
export async function preflightTools(manifest: TargetManifest, agent: Dispatcher, timeoutMs: number): Promise<string[]> {
  const profile = manifest.profiles.provider
  const token = manifest.tokens.operator
  const probes = PROBES.filter((p) => manifest.features.includes(p.feature))
  if (!profile || !token || !probes.length) return []
  const answers = await Promise.all(probes.map((probe) => probeTool(manifest, agent, { profile, token, timeoutMs }, probe)))
  return answers.filter((line): line is string => line !== undefined)
}

interface ProbeTarget { profile: string; token: string; timeoutMs: number }

async function probeTool(manifest: TargetManifest, agent: Dispatcher, target: ProbeTarget, probe: ToolProbe): Promise<string | undefined> {
  const headers = { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' }
  const created = await request(`${manifest.baseUrl}/sessions`, { method: 'POST', headers, body: JSON.stringify({ profile: target.profile }), dispatcher: agent })
  const body = await created.body.json().catch(() => undefined) as { session?: { id?: string } } | undefined
  const id = body?.session?.id
  if (created.statusCode !== 201 || typeof id !== 'string') return `features.${probe.feature}: cannot create a session on profiles.provider '${target.profile}' to check its tool ${probe.tool} (POST /sessions answered ${created.statusCode})`
  const wsUrl = `${manifest.baseUrl.replace(/^http/, 'ws')}/sessions/${encodeURIComponent(id)}/ws`
  let ws: WsClient | undefined
  try {
    ws = await openWs(new WireLog(), wsUrl, target.token, target.timeoutMs).catch(() => undefined)
    if (!ws) return `features.${probe.feature}: cannot attach to a session on profiles.provider '${target.profile}' to check its tool ${probe.tool} (the WebSocket upgrade failed)`
    ws.send({ type: 'user_message', text: `scenario:${JSON.stringify({ name: `preflight-${probe.tool}`, steps: [probe.step] })}` })
    const ended = (f: any) => f.type === 'event' && f.event?.type === 'turn_result'
    const frame = await ws.waitFor((f) => probe.offered(f) || ended(f), target.timeoutMs, `${probe.tool} dispatched or the turn's end`).catch(() => undefined)
    if (frame && probe.offered(frame)) return undefined
    const refused = toolNotOffered(ws.frames.map((f) => JSON.stringify(f)))
    const cause = refused ? `the target answered "${refused.said}"` : frame ? 'the turn ended without dispatching it' : `neither a dispatch nor the turn's end came within ${target.timeoutMs} ms`
    return `features.${probe.feature}: profiles.provider '${target.profile}' offers no tool the scenarios' ${probe.tool} binds to (${cause}): ${offerToolAdvice(probe.tool)}, or drop ${probe.feature} from features`
  } finally {
    ws?.close()
    await request(`${manifest.baseUrl}/sessions/${encodeURIComponent(id)}`, { method: 'DELETE', headers: { authorization: headers.authorization }, dispatcher: agent })
      .then((res) => res.body.dump()).catch(() => undefined)
  }
}
