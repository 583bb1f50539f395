/**
 * Starts a relay (relay-child.ts) in a process of its own, behind the same interface as
 * operator-gateway.ts's gateway, so the streaming rows run the same clients against both: the
 * gateway's figure over the relay's, measured in the same run, is the row's ratio.
 */
import { fileURLToPath } from 'node:url'
import { processCpuNs, processRss, spawnUntil, stop, type OperatorGateway } from './operator-gateway.ts'

const RELAY_MAIN = fileURLToPath(new URL('./relay-child.ts', import.meta.url))

export type RelayLayer = 'bare' | 'sdk'

export async function startRelay(layer: RelayLayer, modelBaseURLs: string[]): Promise<OperatorGateway> {
  const args = ['--import', 'tsx', RELAY_MAIN, layer, ...modelBaseURLs]
  const { child, value: url } = await spawnUntil(args, (line) => (line.startsWith('http') ? line.trim() : undefined))
  const pid = child.pid!
  return {
    url, token: 'relay', pid, compiled: false, cwd: '',
    cpuNs: () => processCpuNs(pid),
    rss: () => processRss(pid),
    close: () => stop(child),
  }
}
