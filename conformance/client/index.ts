/** The kit's protocol-7 client: REST + session WebSocket, from protocol 7's documented shapes. */
export { ApiError, Protocol7Client, SessionConnection, type ClientOptions } from './client.ts'
export { LiveText, type TurnText } from './live-text.ts'
export type * from './shapes.ts'
