/**
 * The self target seen through the variation proxy: our gateway (or a scratch copy holding a
 * mutant, `root`) with the proxy in front of its REST routes, both WebSockets and its
 * notification webhook. The manifest is the gateway's own with `baseUrl` pointing at the proxy.
 */
import { startFakeModelServer } from '../../fake-engines/provider-model/server.ts'
import { startSelfTarget, type SelfTarget, type SelfTargetOptions } from '../target/self.ts'
import { startModelProxy } from './model-proxy.ts'
import { startVariantProxy, type VariantProxy } from './proxy.ts'
import { ALL_VARIATIONS, type VariationName } from './variations.ts'

export interface VariantTarget extends SelfTarget {
  proxy: VariantProxy
  /** The gateway's own manifest (its baseUrl not proxied), for a run without the proxy. */
  direct: SelfTarget['manifest']
}

export async function startVariantTarget(options: SelfTargetOptions & { variations?: Iterable<VariationName> } = {}): Promise<VariantTarget> {
  const on = new Set(options.variations ?? ALL_VARIATIONS)
  const proxy = await startVariantProxy({ variations: on })
  const tools = { reshape: on.has('tool-schemas-reshaped'), handover: on.has('deliver-file-handover'), wrapResults: on.has('tool-results-wrapped') }
  // The tool variations live between the gateway and its model: the fake model runs here, behind the reshaping layer.
  const model = tools.reshape || tools.handover || tools.wrapResults ? await startFakeModelServer({ host: '127.0.0.1', port: 0 }) : undefined
  const layer = model ? await startModelProxy(model.baseURL, tools) : undefined
  const closeModel = async () => {
    await layer?.close()
    await model?.close()
  }
  let target: SelfTarget
  try {
    target = await startSelfTarget({ ...options, modelUrl: layer?.baseURL, webhookUrl: (url) => proxy.hookUrl(url) })
  } catch (err) {
    await proxy.close()
    await closeModel()
    throw err
  }
  proxy.setUpstream(target.manifest.baseUrl)
  const tokens = target.manifest.tokens as Record<string, string | undefined>
  proxy.setScopedTokens([tokens.tenantA, tokens.tenantB].filter((t): t is string => typeof t === 'string'))
  return {
    ...target,
    proxy,
    direct: target.manifest,
    // The gateway posts notifications to the proxy's relay; the receiver (what cases read) stays the manifest's webhookUrl.
    manifest: { ...target.manifest, baseUrl: proxy.baseUrl, ...(target.manifest.webhookUrl ? { webhookUrl: target.receiver.url } : {}) },
    async close() {
      await target.close()
      await proxy.close()
      await closeModel()
    },
  }
}
