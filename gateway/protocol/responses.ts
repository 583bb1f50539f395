/**
 * Response bodies of the routes whose shapes the other protocol modules do not already name
 * (sessions.*, profiles.*, engine-session-stores-and-host-files.*, jobs-and-queue.*). The spec
 * leaves most of these "not shown": the fields below are what this gateway sends, written once
 * here so the typed client (agent-session-client) and the kit read the same shapes. Index
 * signatures keep a field another gateway adds visible instead of a type error.
 */
import type { JobInfo, QueueStats } from './jobs.ts'

/** `GET /sessions/:id/files`: the scratch-filesystem deliverables. */
export interface ListSessionFilesResponse {
  files: Array<{ path: string; bytes: number; [key: string]: unknown }>
}

/** `GET /sessions/:id/produced`: host files the engine announced with `file_produced`. */
export interface ListProducedFilesResponse {
  files: Array<{ fileId: string; path: string; mediaType?: string; bytes?: number; [key: string]: unknown }>
}

/** `GET /sessions/:id/mcp` and `POST /sessions/:id/mcp/:name` (env and headers stripped). */
export interface McpServersResponse {
  servers: Array<{ name: string; status: string; [key: string]: unknown }>
}

export type McpServerAction = 'reconnect' | 'enable' | 'disable'

/** `GET /sdk-sessions`: the engine's own resumable sessions. */
export interface ListSdkSessionsResponse {
  sdkSessions: Array<{ sessionId?: string; cwd?: string; [key: string]: unknown }>
}

export interface ListHostRootsResponse {
  roots: Array<{ path: string; name: string }>
  canWrite: boolean
}

export interface HostDirEntry {
  name: string
  path: string
  type: string
  bytes?: number
  modifiedAt?: number
}

export interface ListHostDirResponse {
  path: string
  entries: HostDirEntry[]
  truncated?: true
}

export interface FindHostFilesResponse {
  base: string
  matches: Array<{ path: string; name: string; relative: string }>
  truncated: boolean
}

export interface ReadHostFileResponse {
  path: string
  content: string
  encoding: 'utf8' | 'base64'
  bytes: number
  /** sha256 of the bytes, the `expectedHash` of a later write. */
  hash: string
  modifiedAt: number
}

export interface WriteHostFileRequest {
  path: string
  content: string
  encoding?: 'utf8' | 'base64'
  /** Required when the path exists (engine-session-stores-and-host-files: always conditional). */
  expectedHash?: string
}

export interface WriteHostFileResponse {
  path: string
  bytes: number
  hash: string
  modifiedAt: number
}

export interface ListJobsResponse {
  jobs: JobInfo[]
}

export interface JobResponse {
  job: JobInfo
}

export interface QueueStatsResponse {
  stats: QueueStats
}
