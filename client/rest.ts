/**
 * GatewayClient: every REST route of the spec (endpoints.*) with typed requests and responses, and
 * `attach()` for a session's WebSocket (session-handle.ts). Errors are GatewayError with the
 * spec's status and code. In a browser give `baseUrl: '/v1'` and no token: the tab's login cookie
 * is its credential (embedding-rules.1, authentication.2); in Node give an absolute URL and a token.
 */
import type {
  CreateJobRequest, CreateSessionRequest, FindHostFilesResponse, GetProfileResponse, JobInfo, ListHostDirResponse,
  ListHostRootsResponse, ListProducedFilesResponse, ListProfilesResponse, ListSdkSessionsResponse, ListSessionFilesResponse,
  McpServerAction, McpServersResponse, MessageAttachment, ProfileConfig, ProfileInfo, QueueStats, ReadHostFileResponse,
  ResolvePermissionRequest, ResolvePermissionResponse, SessionInfo, StoredToolResult, SubmitExecutionResultRequest,
  SubmitExecutionResultResponse, UpdateSessionRequest, WriteHostFileRequest, WriteHostFileResponse,
} from '../gateway/protocol/index.ts'
import { GatewayError } from './errors.ts'
import { openQueueWatch, type QueueWatch, type QueueWatchOptions } from './queue-watch.ts'
import { SessionHandle, type AttachOptions } from './session-handle.ts'
import { globalFetch, globalWebSocket, resolveUrl, webSocketUrl, type Download, type FetchLike, type ResponseLike, type SignalLike, type UploadBody, type WebSocketFactory } from './transport.ts'

export interface GatewayClientOptions {
  /** The gateway's URL with its route prefix: `http://127.0.0.1:8787/v1`, or `/v1` in a same-origin browser tab. */
  baseUrl: string
  /** A bearer token (Node, operator tools). A browser tab sends its cookie instead and holds no key. */
  token?: string
  /** Extra headers on every REST call (never on a browser's WebSocket handshake, which cannot carry any). */
  headers?: Record<string, string>
  /** Defaults to the global `fetch`. */
  fetch?: FetchLike
  /** Defaults to the global `WebSocket`. */
  webSocket?: WebSocketFactory
}

export interface RequestOptions {
  signal?: SignalLike
}

/** Permission answers: allow (optionally with edited input) or deny (optionally with a message). */
export type PermissionAnswer = { behavior: 'allow'; updatedInput?: unknown } | { behavior: 'deny'; message?: string; interrupt?: boolean }

export interface SdkSessionsQuery { profile?: string; dir?: string; limit?: number; offset?: number }

const enc = encodeURIComponent

export class GatewayClient {
  readonly baseUrl: string
  #token: string | undefined
  #headers: Record<string, string>
  #fetch: FetchLike
  #webSocket: WebSocketFactory

  constructor(options: GatewayClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.#token = options.token
    this.#headers = { ...options.headers }
    this.#fetch = options.fetch ?? globalFetch()
    this.#webSocket = options.webSocket ?? globalWebSocket
  }

  // --- sessions (sessions.*) -------------------------------------------------------------

  async listSessions(options?: RequestOptions): Promise<SessionInfo[]> {
    return (await this.json<{ sessions: SessionInfo[] }>('GET', '/sessions', undefined, options)).sessions
  }

  /** `POST /sessions` (201); the session is stamped with the caller's scope. */
  async createSession(request: CreateSessionRequest = {}, options?: RequestOptions): Promise<SessionInfo> {
    return (await this.json<{ session: SessionInfo }>('POST', '/sessions', request, options)).session
  }

  async getSession(id: string, options?: RequestOptions): Promise<SessionInfo> {
    return (await this.json<{ session: SessionInfo }>('GET', `/sessions/${enc(id)}`, undefined, options)).session
  }

  /** `PATCH /sessions/:id`; `title: null` clears a title set before (updatesessionrequest.1). */
  async updateSession(id: string, request: UpdateSessionRequest, options?: RequestOptions): Promise<SessionInfo> {
    return (await this.json<{ session: SessionInfo }>('PATCH', `/sessions/${enc(id)}`, request, options)).session
  }

  /** `DELETE /sessions/:id`: closes and removes; answers the closed session. */
  async deleteSession(id: string, options?: RequestOptions): Promise<SessionInfo> {
    return (await this.json<{ session: SessionInfo }>('DELETE', `/sessions/${enc(id)}`, undefined, options)).session
  }

  async listSessionFiles(id: string, options?: RequestOptions): Promise<ListSessionFilesResponse['files']> {
    return (await this.json<ListSessionFilesResponse>('GET', `/sessions/${enc(id)}/files`, undefined, options)).files
  }

  /** A scratch-filesystem deliverable (`file_delivered.path`). */
  downloadSessionFile(id: string, path: string, options?: RequestOptions): Promise<Download> {
    return this.download(`/sessions/${enc(id)}/files/${path.split('/').filter(Boolean).map(enc).join('/')}`, options)
  }

  /** `POST /sessions/:id/attachments?name=`: raw bytes, the media type as content-type; use the id in `sendMessage`. */
  async uploadAttachment(id: string, body: UploadBody, file: { name: string; mediaType?: string }, options?: RequestOptions): Promise<MessageAttachment> {
    const mediaType = file.mediaType ?? (typeof body === 'object' && 'type' in body && typeof body.type === 'string' && body.type ? body.type : 'application/octet-stream')
    const bytes = typeof body === 'string' || body instanceof ArrayBuffer || ArrayBuffer.isView(body) ? body : await body.arrayBuffer()
    const res = await this.request('POST', `/sessions/${enc(id)}/attachments?name=${enc(file.name)}`, { body: bytes, contentType: mediaType, signal: options?.signal })
    return (await this.#parse<{ attachment: MessageAttachment }>('POST', `/sessions/${id}/attachments`, res)).attachment
  }

  downloadAttachment(id: string, attachmentId: string, options?: RequestOptions): Promise<Download> {
    return this.download(`/sessions/${enc(id)}/attachments/${enc(attachmentId)}`, options)
  }

  async mcpServers(id: string, options?: RequestOptions): Promise<McpServersResponse['servers']> {
    return (await this.json<McpServersResponse>('GET', `/sessions/${enc(id)}/mcp`, undefined, options)).servers
  }

  async mcpServerAction(id: string, name: string, action: McpServerAction, options?: RequestOptions): Promise<McpServersResponse['servers']> {
    return (await this.json<McpServersResponse>('POST', `/sessions/${enc(id)}/mcp/${enc(name)}`, { action }, options)).servers
  }

  async listProducedFiles(id: string, options?: RequestOptions): Promise<ListProducedFilesResponse['files']> {
    return (await this.json<ListProducedFilesResponse>('GET', `/sessions/${enc(id)}/produced`, undefined, options)).files
  }

  downloadProducedFile(id: string, fileId: string, options?: RequestOptions): Promise<Download> {
    return this.download(`/sessions/${enc(id)}/produced/${enc(fileId)}`, options)
  }

  projectIcon(id: string, options?: RequestOptions): Promise<Download> {
    return this.download(`/sessions/${enc(id)}/project/icon`, options)
  }

  /** The whole tool_result a `truncateResults=1` replay cut short (protocol 7's result route). */
  toolResult(id: string, seq: number, toolUseId: string, options?: RequestOptions & { imageRefs?: boolean }): Promise<StoredToolResult> {
    return this.json('GET', `/sessions/${enc(id)}/events/${seq}/result?toolUseId=${enc(toolUseId)}${options?.imageRefs ? '&imageRefs=1' : ''}`, undefined, options)
  }

  /** `POST /sessions/:id/permissions/:requestId`, naming the request by its `id` (a request object or the id). */
  resolvePermission(id: string, request: string | { id: string }, answer: PermissionAnswer, options?: RequestOptions): Promise<ResolvePermissionResponse> {
    const body: ResolvePermissionRequest = answer
    return this.json('POST', `/sessions/${enc(id)}/permissions/${enc(typeof request === 'string' ? request : request.id)}`, body, options)
  }

  /** `POST /executions/:executionId/result`: a deferred (or bridged) tool's result, from anywhere. */
  submitExecutionResult(executionId: string, result: SubmitExecutionResultRequest, options?: RequestOptions): Promise<SubmitExecutionResultResponse> {
    return this.json('POST', `/executions/${enc(executionId)}/result`, result, options)
  }

  /** Attaches to a session's WebSocket; resolves once the gateway's `attached` frame arrived. */
  async attach(sessionId: string, options: AttachOptions = {}): Promise<SessionHandle> {
    const handle = new SessionHandle({
      sessionId,
      url: webSocketUrl(resolveUrl(this.baseUrl, `/sessions/${enc(sessionId)}/ws`)),
      headers: this.#token ? { authorization: `Bearer ${this.#token}` } : {},
      webSocket: this.#webSocket,
      check: () => this.getSession(sessionId),
    }, options)
    await handle.ready
    return handle
  }

  // --- profiles (profiles.*) -------------------------------------------------------------

  listProfiles(options?: RequestOptions): Promise<ListProfilesResponse> {
    return this.json('GET', '/profiles', undefined, options)
  }

  getProfile(name: string, options?: RequestOptions): Promise<GetProfileResponse> {
    return this.json('GET', `/profiles/${enc(name)}`, undefined, options)
  }

  /** Needs a `profileStore` on the gateway (else 404) and `canManageProfiles` (else 403). */
  async createProfile(profile: ProfileConfig, options?: RequestOptions): Promise<ProfileInfo> {
    return (await this.json<{ profile: ProfileInfo }>('POST', '/profiles', profile, options)).profile
  }

  /** A merge of the given fields into a managed profile. */
  async updateProfile(name: string, patch: Partial<Omit<ProfileConfig, 'name'>>, options?: RequestOptions): Promise<ProfileInfo> {
    return (await this.json<{ profile: ProfileInfo }>('PATCH', `/profiles/${enc(name)}`, patch, options)).profile
  }

  async deleteProfile(name: string, options?: RequestOptions): Promise<void> {
    const res = await this.request('DELETE', `/profiles/${enc(name)}`, { signal: options?.signal })
    await this.#parse('DELETE', `/profiles/${name}`, res)
  }

  // --- engine session stores and host files (operators only) -------------------------------

  listSdkSessions(query: SdkSessionsQuery = {}, options?: RequestOptions): Promise<ListSdkSessionsResponse> {
    return this.json('GET', `/sdk-sessions${queryString(query)}`, undefined, options)
  }

  hostRoots(options?: RequestOptions): Promise<ListHostRootsResponse> {
    return this.json('GET', '/fs/roots', undefined, options)
  }

  listHostDir(path: string, options?: RequestOptions): Promise<ListHostDirResponse> {
    return this.json('GET', `/fs/list${queryString({ path })}`, undefined, options)
  }

  findHostFiles(path: string, q: string, options?: RequestOptions & { limit?: number }): Promise<FindHostFilesResponse> {
    return this.json('GET', `/fs/find${queryString({ path, q, limit: options?.limit })}`, undefined, options)
  }

  readHostFile(path: string, options?: RequestOptions): Promise<ReadHostFileResponse> {
    return this.json('GET', `/fs/read${queryString({ path })}`, undefined, options)
  }

  /** Always conditional: pass `expectedHash` (from a read) to replace, none to create. */
  writeHostFile(request: WriteHostFileRequest, options?: RequestOptions): Promise<WriteHostFileResponse> {
    return this.json('PUT', '/fs/write', request, options)
  }

  // --- jobs and queue (only when the gateway has a queue; else 404) ---------------------------

  async listJobs(options?: RequestOptions): Promise<JobInfo[]> {
    return (await this.json<{ jobs: JobInfo[] }>('GET', '/jobs', undefined, options)).jobs
  }

  async createJob(request: CreateJobRequest, options?: RequestOptions): Promise<JobInfo> {
    return (await this.json<{ job: JobInfo }>('POST', '/jobs', request, options)).job
  }

  async getJob(id: string, options?: RequestOptions): Promise<JobInfo> {
    return (await this.json<{ job: JobInfo }>('GET', `/jobs/${enc(id)}`, undefined, options)).job
  }

  /** `DELETE /jobs/:id`: cancels; answers the job as canceling left it. */
  async cancelJob(id: string, options?: RequestOptions): Promise<JobInfo> {
    return (await this.json<{ job: JobInfo }>('DELETE', `/jobs/${enc(id)}`, undefined, options)).job
  }

  async queueStats(options?: RequestOptions): Promise<QueueStats> {
    return (await this.json<{ stats: QueueStats }>('GET', '/queue', undefined, options)).stats
  }

  /** `WS /queue/ws`: `queue_attached`, then job events and stats. No replay: re-list jobs on connect. */
  watchQueue(options: QueueWatchOptions): Promise<QueueWatch> {
    return openQueueWatch(webSocketUrl(resolveUrl(this.baseUrl, '/queue/ws')), this.#token ? { authorization: `Bearer ${this.#token}` } : {}, this.#webSocket, options)
  }

  // --- the transport ---------------------------------------------------------------------

  /** A JSON call: the parsed 2xx body, or a GatewayError. */
  async json<T>(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<T> {
    const res = await this.request(method, path, { body: body === undefined ? undefined : JSON.stringify(body), contentType: body === undefined ? undefined : 'application/json', signal: options?.signal })
    return this.#parse<T>(method, path.split('?')[0], res)
  }

  /** The raw answer, whatever its status: for a caller that judges statuses itself. */
  request(method: string, path: string, init: { body?: string | ArrayBuffer | ArrayBufferView; contentType?: string; signal?: SignalLike } = {}): Promise<ResponseLike> {
    const headers: Record<string, string> = { accept: 'application/json', ...this.#headers }
    if (this.#token) headers.authorization = `Bearer ${this.#token}`
    if (init.contentType) headers['content-type'] = init.contentType
    return this.#fetch(resolveUrl(this.baseUrl, path), { method, headers, body: init.body, credentials: 'same-origin', signal: init.signal })
  }

  async download(path: string, options?: RequestOptions): Promise<Download> {
    const res = await this.request('GET', path, { signal: options?.signal })
    if (res.status < 200 || res.status > 299) await this.#parse('GET', path, res)
    const disposition = res.headers.get('content-disposition') ?? ''
    const name = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1] ?? /filename="([^"]*)"/i.exec(disposition)?.[1]
    return {
      bytes: new Uint8Array(await res.arrayBuffer()),
      mediaType: res.headers.get('content-type') ?? 'application/octet-stream',
      ...(name === undefined ? {} : { fileName: safeDecode(name) }),
    }
  }

  async #parse<T>(method: string, path: string, res: ResponseLike): Promise<T> {
    const text = await res.text()
    let body: unknown = text
    try {
      body = text ? JSON.parse(text) : undefined
    } catch {
      // not JSON: the text is the body
    }
    if (res.status < 200 || res.status > 299) throw GatewayError.fromAnswer(method, path, res.status, body)
    return body as T
  }
}

function queryString(query: { [key: string]: string | number | undefined } | SdkSessionsQuery): string {
  const params = Object.entries(query).filter(([, v]) => v !== undefined).map(([k, v]) => `${enc(k)}=${enc(String(v))}`)
  return params.length ? `?${params.join('&')}` : ''
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}
