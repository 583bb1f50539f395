/**
 * Runs the variation proxy in front of any gateway:
 *
 *   npx tsx conformance/variants/main.ts --upstream http://127.0.0.1:8787/v1 [--port 8790] [--variations all|a,b]
 *
 * then point a manifest's `baseUrl` at the printed URL and run the kit with `--target`.
 */
import { parseArgs } from 'node:util'
import { startVariantProxy } from './proxy.ts'
import { ALL_VARIATIONS, parseVariations } from './variations.ts'

const { values } = parseArgs({ options: { upstream: { type: 'string' }, port: { type: 'string', default: '0' }, variations: { type: 'string', default: 'all' }, help: { type: 'boolean' } } })
if (values.help || !values.upstream) {
  console.log(`usage: main.ts --upstream <gateway baseUrl incl. basePath> [--port N] [--variations all|${ALL_VARIATIONS.join(',')}]`)
  process.exit(values.help ? 0 : 2)
}
const proxy = await startVariantProxy({ upstream: values.upstream, port: Number(values.port), variations: parseVariations(values.variations) })
console.log(`variation proxy: ${proxy.baseUrl} -> ${values.upstream}`)
console.log(`notification webhook through the proxy: ${proxy.hookUrl('<your receiver URL>')}`)
const stop = () => void proxy.close().then(() => process.exit(0))
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
