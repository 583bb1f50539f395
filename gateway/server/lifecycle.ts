/**
 * A server's life after wiring: `listen` (stored parks and managed profiles loaded first), the
 * one `close`, and the graceful `shutdown` that drains HTTP, WebSockets, turns and webhooks.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadManagedProfiles } from '../host/managed-profiles.ts'
import { followSharedStore } from '../host/shared-profiles.ts'
import type { SessionRegistry } from '../sessions/registry.ts'
import type { HttpDrain } from './http-drain.ts'
import type { ServerServices } from './services.ts'

export interface Lifecycle {
  listen(port?: number, host?: string): Promise<{ port: number; url: string }>
  close(): Promise<void>
  shutdown(options?: { graceMs?: number }): Promise<{ busy: string[] }>
}

/** Statuses in which a session is mid-turn; shutdown waits for them to settle. */
const BUSY = new Set(['starting', 'running', 'awaiting_approval'])

export function createLifecycle(services: ServerServices, server: Server, drain: HttpDrain, startDraining: () => void): Lifecycle {
  const { options, registry, parking, webSockets, metricsListener, deliverers } = services
  let closing: Promise<void> | undefined
  function close(): Promise<void> {
    return (closing ??= closeOnce())
  }

  async function closeOnce(): Promise<void> {
    // HTTP first: the listener stops and every request in flight is answered (its result, or 503)
    // while the sessions it may be reading still exist; nothing is reset.
    await drain.answerAll()
    // Then the queue, so runs ended by the shutdown fail without scheduling retries.
    services.context.queue?.close()
    // Parking before the registry: shutdown closes must not discard what a restart should adopt.
    // The fleet keeps its directory rows too; its lease goes once the records are written.
    services.fleet?.beginClose()
    const flushed = parking.close()
    registry.closeAll()
    await webSockets.close()
    await drain.finish()
    await metricsListener?.close()
    await flushed
    await services.fleet?.stop()
  }

  return {
    async listen(port = 0, host = '127.0.0.1') {
      // Stored parks and live records become rows before the first request can ask for them.
      await parking.hydrate()
      if (options.profileStore) {
        const customRunner = typeof options.createEngineRunner === 'function'
        await loadManagedProfiles(options.profileStore, services.catalog, { declared: options.profiles !== undefined, customRunner, onError: services.onError })
        // A store the fleet shares is read through on every use (server-configuration.6).
        followSharedStore(options.profileStore, services.catalog, { customRunner, onError: services.onError })
      }
      await metricsListener?.listen()
      const listening = await listenOn(services, server, port, host)
      await services.fleet?.start(listening.url)
      return listening
    },
    close,
    async shutdown({ graceMs = 10_000 } = {}) {
      startDraining()
      // Keep listening through the grace (readyz answers 503, so a balancer drains the instance),
      // but every response from now on closes its connection and idle keep-alive sockets close.
      drain.drain()
      // 1001 "going away": clients know to reconnect elsewhere or later, not that they erred.
      for (const client of webSockets.clients) client.close(1001, 'server shutting down')
      const deadline = Date.now() + graceMs
      const left = await waitForTurns(registry, deadline)
      await close()
      // Pending webhook deliveries (the closes just queued some) get what is left of the grace.
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([
        Promise.all(deliverers.map((d) => d.idle())),
        new Promise<void>((done) => { timer = setTimeout(done, Math.max(0, deadline - Date.now())) }),
      ])
      clearTimeout(timer)
      return { busy: left }
    },
  }
}

function listenOn({ availability, codexLogins, resolved }: ServerServices, server: Server, port: number, host: string): Promise<{ port: number; url: string }> {
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      const address = server.address() as AddressInfo
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
      availability.preflight()
      codexLogins.preflight()
      resolvePromise({ port: address.port, url: `http://${shownHost}:${address.port}${resolved.basePath}` })
    })
  })
}

/** Waits until no session is mid-turn or the deadline passes; resolves with the sessions still busy. */
async function waitForTurns(registry: SessionRegistry, deadline: number): Promise<string[]> {
  const busy = () => [...registry.ids()].filter((id) => BUSY.has(registry.info(id)?.status ?? ''))
  while (Date.now() < deadline && busy().length) {
    await new Promise((done) => setTimeout(done, Math.min(100, Math.max(1, deadline - Date.now()))))
  }
  return busy()
}
