/** The bench gateway (rig.ts) in its own process: listens, sends its URL to the parent, runs until killed. */
import { listenBenchGateway } from './rig.ts'

const { url } = await listenBenchGateway()
process.send!({ url })
