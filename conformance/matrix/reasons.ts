/**
 * The spec's reasons a cell of the matrix does not apply, shared by the part modules. Each cites
 * the clauses that make it so; `{clause}` stands for the clause the cell belongs to.
 */
export const NA = {
  noApprovalsOnProvider: "engine capability interactiveApprovals is false for provider (engine-capability-record.1, embedding-rules.17): a provider session never waits on a permission",
  cliRunsItsTools: 'a CLI engine runs its own tools on the host: deferred execution and the tool bridge serve the provider engine (what-the-service-does.5, embedding-rules.6, embedding-rules.14, websocket-framing.3)',
  cliNeverParks: 'a CLI session never parks: the CLI engines keep their own stores and go dormant, only a session resting on a deferred execution parks (embedding-rules.14, session-status-values.2)',
  providerOnly: '{clause} is about the provider engine only: it names `provider`, its grants, its scratch filesystem or its deferred executions',
  cliOnly: '{clause} is about an engine running against a host directory (hostCwd): the provider engine has none (createsessionrequest.2)',
  primaryOnly: '{clause} names `cli_primary` (its config directory) only',
  secondaryOnly: '{clause} names `cli_secondary` (its home directory) only',
  noMcpActionsOnSecondary: 'engine capability mcpServerActions is false for cli_secondary (engine-capability-record.1): the route answers 501, checked under errors',
  noProducedFilesOnProvider: 'the provider engine writes no host files (embedding-rules.6: no host files), so it announces no file_produced',
  parkedWakesOnAttach: 'a command needs an attach, and an attach wakes a parked session first (session-status-values.6): the command meets a woken session',
  noRateLimitsOnProvider: 'rate_limit and plan_info describe a subscription plan behind a CLI engine; a provider session spends an API key (events.8, events.9: never for an API-key session)',
} as const
