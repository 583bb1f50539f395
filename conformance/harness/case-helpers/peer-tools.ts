/** Case helpers: peer tools. Shared by the cases of every section through case-helpers/index.ts. */


export const peerEdgeScenario = (...steps: unknown[]) => `scenario:${JSON.stringify({ name: 'edges-peers', steps: [...steps, { type: 'text', text: '{{toolResult}}' }] })}`
