/**
 * The tool bridge (embedding-rules.11): per session, the attached sockets in attach order. A
 * bridged call goes to the first attached client only (a second attach must not be asked);
 * cancellations go to every client so no panel keeps running a call nobody waits for. Frames go
 * through each socket's send budget: a request to a client too far behind fails as if none were
 * attached, rather than waiting behind megabytes it does not read.
 */
import type { BridgedCall, ToolBridge } from '../../sessions/runner.ts'
import type { SendBudget } from './send-budget.ts'

export class BridgeHub {
  #sockets = new Map<string, SendBudget[]>()

  attach(id: string, ws: SendBudget): void {
    const list = this.#sockets.get(id)
    if (list) list.push(ws)
    else this.#sockets.set(id, [ws])
  }

  /** Returns how many clients remain attached. */
  detach(id: string, ws: SendBudget): number {
    const list = this.#sockets.get(id)
    if (!list) return 0
    const left = list.filter((s) => s !== ws)
    if (left.length) this.#sockets.set(id, left)
    else this.#sockets.delete(id)
    return left.length
  }

  count(id: string): number {
    return this.#sockets.get(id)?.length ?? 0
  }

  /** One small object per session, its methods shared on the prototype (no closures per session). */
  bridgeFor(id: string): ToolBridge {
    return new SessionBridge(this, id)
  }

  /** Sends a `tool_call_request` to the first attached client; false when none is attached. */
  request(id: string, call: BridgedCall): boolean {
    const first = this.#sockets.get(id)?.[0]
    return first ? first.sendControl(JSON.stringify({ type: 'tool_call_request', ...call })) : false
  }

  cancel(id: string, executionId: string, reason: string): void {
    const frame = JSON.stringify({ type: 'tool_call_canceled', executionId, reason })
    for (const socket of this.#sockets.get(id) ?? []) socket.sendControl(frame)
  }
}

class SessionBridge implements ToolBridge {
  readonly #hub: BridgeHub
  readonly #id: string

  constructor(hub: BridgeHub, id: string) {
    this.#hub = hub
    this.#id = id
  }

  attachedCount(): number {
    return this.#hub.count(this.#id)
  }

  request(call: BridgedCall): boolean {
    return this.#hub.request(this.#id, call)
  }

  cancel(executionId: string, reason: string): void {
    this.#hub.cancel(this.#id, executionId, reason)
  }
}
