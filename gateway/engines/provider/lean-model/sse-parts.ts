/**
 * The response body of a streamed chat completion, read as a Node stream (utf-8 strings), its SSE
 * events split by `eventsource-parser` and mapped to stream parts, all in one pump: one web-stream
 * hop (`streamParts`, the model's doStream) where the SDK model has five (body, text decoder, SSE
 * parser, JSON parse, mapping), or none (`pumpParts` into the lean call's queue, lean-call.ts).
 * Backpressure: the socket pauses while the reader is behind.
 */
import { APICallError } from 'ai'
import { createParser } from 'eventsource-parser'
import type { IncomingMessage } from 'node:http'
import { ChunkMapper, type MapperOptions } from './chunk-mapper.ts'
import { abortReason } from './http-post.ts'
import type { StreamPart } from './types.ts'

export interface BodyContext {
  url: string
  values: unknown
  responseHeaders: Record<string, string>
  signal?: AbortSignal
  /** Silence between body chunks that fails the stream (undici's bodyTimeout). */
  timeoutMs: number
}

/** Where the parts go: a ReadableStream's controller, or the lean call's queue (lean-call.ts). */
export interface PartSink {
  enqueue(part: StreamPart): void
  error(error: unknown): void
  close(): void
  /** True while the reader is behind: the socket pauses until `resume()`. */
  full(): boolean
}

export interface PartPump {
  /** The reader caught up: the socket reads again. */
  resume(): void
  /** The reader is gone: the response is dropped. */
  cancel(): void
}

/** Reads `response` into `sink`: SSE events split, chunks mapped, part by part, errors as the SDK's. */
export function pumpParts(response: IncomingMessage, mapping: MapperOptions, ctx: BodyContext, sink: PartSink): PartPump {
  let settled = false
  let onAbort: (() => void) | undefined
  let stall: { read(): void; stop(): void } | undefined
  const settle = () => {
    settled = true
    stall?.stop()
    if (onAbort) ctx.signal?.removeEventListener('abort', onAbort)
  }
  const fail = (error: unknown) => {
    if (settled) return
    settle()
    sink.error(error)
    response.destroy()
  }
  const pump: PartPump = {
    resume() {
      if (response.isPaused()) response.resume()
    },
    cancel() {
      settle()
      response.destroy()
    },
  }
  const mapper = new ChunkMapper((part) => sink.enqueue(part), mapping)
  const parser = createParser({ onEvent: (event) => mapper.data(event.data) })
  onAbort = () => fail(abortReason(ctx.signal!))
  if (ctx.signal?.aborted) {
    onAbort()
    return pump
  }
  ctx.signal?.addEventListener('abort', onAbort, { once: true })
  response.setEncoding('utf8')
  response.on('data', (text: string) => {
    if (settled) return
    stall!.read()
    try {
      parser.feed(text)
    } catch (error) {
      return fail(error)
    }
    if (sink.full()) response.pause()
  })
  response.on('end', () => {
    if (settled) return
    try {
      mapper.end()
    } catch (error) {
      return fail(error)
    }
    settle()
    sink.close()
  })
  // A body cut short: the SDK's retryable "Failed to process successful response".
  const cut = (cause: unknown) => fail(new APICallError({
    message: 'Failed to process successful response', cause, statusCode: response.statusCode, url: ctx.url,
    responseHeaders: ctx.responseHeaders, requestBodyValues: ctx.values, isRetryable: true,
  }))
  response.on('error', cut)
  stall = stallWatch(ctx.timeoutMs, () => cut(new Error('Body Timeout Error')))
  response.on('close', () => {
    if (!response.complete) cut(new Error('terminated'))
  })
  return pump
}

/**
 * Calls `onStall` once no body chunk arrived for `timeoutMs` (undici's bodyTimeout), judged on a
 * coarse clock, a quarter of the timeout: so between `timeoutMs` and 1.25 × that. A socket timeout
 * would re-arm its timer on every read, one per delta of a paced stream, a cost on every delta
 * for a check that matters once.
 */
function stallWatch(timeoutMs: number, onStall: () => void): { read(): void; stop(): void } {
  let reads = 0
  let seen = 0
  let quietSince = Date.now()
  const timer = setInterval(() => {
    if (reads !== seen) {
      seen = reads
      quietSince = Date.now()
    } else if (Date.now() - quietSince >= timeoutMs) {
      clearInterval(timer)
      onStall()
    }
  }, Math.max(1, Math.ceil(timeoutMs / 4)))
  timer.unref()
  return { read: () => { reads++ }, stop: () => clearInterval(timer) }
}

export function streamParts(response: IncomingMessage, mapping: MapperOptions, ctx: BodyContext): ReadableStream<StreamPart> {
  let pump: PartPump | undefined
  return new ReadableStream<StreamPart>({
    start(controller) {
      pump = pumpParts(response, mapping, ctx, {
        enqueue: (part) => controller.enqueue(part),
        error: (error) => controller.error(error),
        close: () => controller.close(),
        full: () => (controller.desiredSize ?? 1) <= 0,
      })
    },
    pull() {
      pump?.resume()
    },
    cancel() {
      pump?.cancel()
    },
  })
}
