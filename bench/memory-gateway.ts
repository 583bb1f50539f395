/**
 * (e) the gateway under measurement for both memory steps, in its own process (memory-child.ts):
 * the HTTP client and the fake model server stay in this process, so the child's resident memory
 * is the gateway's alone, not undici's or the model server's.
 */
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { startFakeModelServer } from '../fake-engines/provider-model/server.ts'

const CHILD = fileURLToPath(new URL('./memory-child.ts', import.meta.url))

export interface Usage { rss: number; heap: number; heapTotal: number; external: number; sessions: number }

export interface MemoryGateway {
  url: string
  /** Memory after an ordinary full gc (as an idle process has), or a last-resort one (`pressure`). */
  measure(pressure?: boolean): Promise<Usage>
  close(): Promise<void>
}

export async function forkMemoryGateway(): Promise<MemoryGateway> {
  const model = await startFakeModelServer()
  const child = fork(CHILD, [model.baseURL], { execArgv: ['--expose-gc', '--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  try {
    const [{ url }] = (await once(child, 'message')) as [{ url: string }]
    return {
      url,
      async measure(pressure = false) {
        child.send(pressure ? 'measure-pressure' : 'measure')
        return ((await once(child, 'message')) as [Usage])[0]
      },
      async close() {
        child.kill()
        await model.close()
      },
    }
  } catch (err) {
    child.kill()
    await model.close()
    throw err
  }
}
