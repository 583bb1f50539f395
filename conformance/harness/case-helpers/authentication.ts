/** Case helpers: authentication. Shared by the cases of every section through case-helpers/index.ts. */


export const UNKNOWN_ID = '00000000-0000-4000-8000-00000000dead'

export const SUBROUTES: Array<[string, string, unknown?]> = [
  ['GET', ''], ['PATCH', '', { title: 'x' }], ['DELETE', ''], ['GET', '/files'], ['GET', '/produced'], ['GET', '/mcp'],
  ['POST', '/mcp/x', { action: 'reconnect' }], ['GET', '/project/icon'], ['POST', '/permissions/r1', { behavior: 'allow' }],
  ['GET', '/attachments/a1'],
]
