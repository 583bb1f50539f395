/**
 * The self target seen through the variation proxy: our gateway (or a scratch copy holding a
 * mutant, `root`) with the proxy in front of its REST routes, both WebSockets and its
 * notification webhook. The manifest is the gateway's own with `baseUrl` pointing at the proxy.
 */
import { startSelfTarget, type SelfTarget, type SelfTargetOptions } from '../target/self.ts'
import { startVariantProxy, type VariantProxy } from './proxy.ts'
import type { VariationName } from './variations.ts'

export interface VariantTarget extends SelfTarget {
  proxy: VariantProxy
  /** The gateway's own manifest (its baseUrl not proxied), for a run without the proxy. */
  direct: SelfTarget['manifest']
}

export async function startVariantTarget(options: SelfTargetOptions & { variations?: Iterable<VariationName> } = {}): Promise<VariantTarget> {
  const proxy = await startVariantProxy({ variations: options.variations })
  let target: SelfTarget
  try {
    target = await startSelfTarget({ ...options, webhookUrl: (url) => proxy.hookUrl(url) })
  } catch (err) {
    await proxy.close()
    throw err
  }
  proxy.setUpstream(target.manifest.baseUrl)
  return {
    ...target,
    proxy,
    direct: target.manifest,
    manifest: { ...target.manifest, baseUrl: proxy.baseUrl },
    async close() {
      await target.close()
      await proxy.close()
    },
  }
}
