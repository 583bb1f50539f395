/**
 * agent-session-client: the typed client of the agent session gateway's whole protocol (7), for
 * Node 22 and browsers, on the global `fetch` and `WebSocket` only. The wire types are the
 * gateway's own (gateway/protocol), re-exported here.
 */
export { GatewayClient, type GatewayClientOptions, type PermissionAnswer, type RequestOptions, type SdkSessionsQuery } from './rest.ts'
export {
  HandleClosedError, SessionHandle, type AttachedFrame, type AttachOptions, type EventWaitOptions, type HandleListeners, type HandleState,
  type ReconnectOptions, type ToolCallAnswer, type ToolCallHandler, type ToolCallRequest,
} from './session-handle.ts'
export { GatewayError, isGatewayError, type ClientErrorCode } from './errors.ts'
export { TimeoutError, type WaitOptions } from './waits.ts'
export { buildTranscript, emptyTranscript, reduceTranscript, type ToolExecution, type TranscriptRow, type TranscriptState } from './transcript.ts'
export type { QueueWatch, QueueWatchOptions } from './queue-watch.ts'
export type { Download, FetchLike, RequestInitLike, ResponseLike, SignalLike, UploadBody, WebSocketFactory, WebSocketLike } from './transport.ts'
export * from '../gateway/protocol/index.ts'
