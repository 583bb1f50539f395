/**
 * The response body of a streamed chat completion, read as a Node stream (utf-8 strings), its SSE
 * events split by `eventsource-parser` and mapped to stream parts, all in one ReadableStream
 * source: one web-stream hop where the SDK model has five (body, text decoder, SSE parser, JSON
 * parse, mapping). Backpressure: the socket pauses while the reader is behind.
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

export function streamParts(response: IncomingMessage, mapping: MapperOptions, ctx: BodyContext): ReadableStream<StreamPart> {
  let settled = false
  let onAbort: (() => void) | undefined
  const settle = () => {
    settled = true
    if (onAbort) ctx.signal?.removeEventListener('abort', onAbort)
  }
  return new ReadableStream<StreamPart>({
    start(controller) {
      const fail = (error: unknown) => {
        if (settled) return
        settle()
        controller.error(error)
        response.destroy()
      }
      const mapper = new ChunkMapper((part) => controller.enqueue(part), mapping)
      const parser = createParser({ onEvent: (event) => mapper.data(event.data) })
      onAbort = () => fail(abortReason(ctx.signal!))
      if (ctx.signal?.aborted) return onAbort()
      ctx.signal?.addEventListener('abort', onAbort, { once: true })
      response.setEncoding('utf8')
      response.on('data', (text: string) => {
        if (settled) return
        try {
          parser.feed(text)
        } catch (error) {
          return fail(error)
        }
        if ((controller.desiredSize ?? 1) <= 0) response.pause()
      })
      response.on('end', () => {
        if (settled) return
        try {
          mapper.end()
        } catch (error) {
          return fail(error)
        }
        settle()
        controller.close()
      })
      // A body cut short: the SDK's retryable "Failed to process successful response".
      const cut = (cause: unknown) => fail(new APICallError({
        message: 'Failed to process successful response', cause, statusCode: response.statusCode, url: ctx.url,
        responseHeaders: ctx.responseHeaders, requestBodyValues: ctx.values, isRetryable: true,
      }))
      response.on('error', cut)
      response.setTimeout(ctx.timeoutMs, () => cut(new Error('Body Timeout Error')))
      response.on('close', () => {
        if (!response.complete) cut(new Error('terminated'))
      })
    },
    pull() {
      if (response.isPaused()) response.resume()
    },
    cancel() {
      settle()
      response.destroy()
    },
  })
}
