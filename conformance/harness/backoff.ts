/**
 * Judges measured retry waits against the spec's words, exactly where the words are exact.
 * A wait is measured between two arrivals at the kit (a webhook delivery, a job
 * event), so it carries the delivery latency of both ends: every bound below tolerates half the
 * base delay of jitter, and the shape of the growth is read from the *difference* between
 * successive waits, in which a constant per-attempt overhead cancels. Nothing here bounds how fast
 * the machine is: a slow target only lengthens every wait alike.
 */

/** Successive differences of arrival times (ms). */
export function waitsBetween(arrivals: number[]): number[] {
  return arrivals.slice(1).map((at, i) => at - arrivals[i])
}

/**
 * "queued with delay `retryDelayMs` … doubled each retry" (job-status.7, limits.12): the first
 * retry waits `base`, the next `2 × base`, and so on. The waits must each be at least half their
 * due delay, and each must exceed the one before by the one before's due delay (doubling: d, 2d,
 * 4d, so the differences are d, 2d, …) within half the base. A constant delay (differences 0), a
 * delay tripled, or doubling that starts at 2d (differences 2d) all fail.
 * Returns what is wrong, or undefined.
 */
export function doublingProblem(waits: number[], base: number): string | undefined {
  const slack = base / 2
  const due = waits.map((_, i) => base * 2 ** i)
  const short = waits.findIndex((w, i) => w < due[i] - slack)
  if (short >= 0) return `wait ${short + 1} was ${Math.round(waits[short])} ms, under its due ${due[short]} ms (less ${slack} ms jitter)`
  for (let i = 1; i < waits.length; i++) {
    const growth = waits[i] - waits[i - 1]
    const expected = due[i] - due[i - 1]
    if (Math.abs(growth - expected) > slack) return `wait ${i + 1} exceeds wait ${i} by ${Math.round(growth)} ms; doubling makes it ${expected} ms longer (± ${slack} ms jitter)`
  }
  return undefined
}

/**
 * "retried with exponential backoff", from a "base retry delay" (queue-options.9-10, limits.13,
 * events.23-24): the spec does not give the factor, so the kit demands what every exponential
 * backoff from `base` does: the first wait is at least the base (less half of it for jitter) and
 * each wait exceeds the one before by at least half the base. A constant delay fails; doubling
 * (base, 2·base) passes with half the base to spare for jitter.
 */
export function exponentialProblem(waits: number[], base: number): string | undefined {
  const slack = base / 2
  if (waits.length && waits[0] < base - slack) return `the first retry came ${Math.round(waits[0])} ms after the failed attempt, under the base ${base} ms (less ${slack} ms jitter)`
  for (let i = 1; i < waits.length; i++) {
    const growth = waits[i] - waits[i - 1]
    if (growth < slack) return `wait ${i + 1} (${Math.round(waits[i])} ms) is not longer than wait ${i} (${Math.round(waits[i - 1])} ms) by at least ${slack} ms: not exponential`
  }
  return undefined
}

/**
 * Judges a noisy timing in up to `rounds` fresh measurements, passing at the first round the judge
 * accepts. A wait measured at the kit carries both processes' scheduling delays, which a loaded
 * machine can stretch past any tolerance drawn from the timer (seen: a 150 ms base arriving
 * 192 ms late); a conforming target then still passes a later round, while a target whose delays
 * do not grow fails every round (its waits differ only by jitter, which would have to favour it by
 * half the base each time). Returns the problem of the last round when none passed, with every
 * round's waits.
 */
export async function judgeInRounds(rounds: number, measure: (round: number) => Promise<number[]>, judge: (waits: number[]) => string | undefined): Promise<string | undefined> {
  const tried: number[][] = []
  let problem: string | undefined
  for (let round = 0; round < rounds; round++) {
    const waits = await measure(round)
    tried.push(waits.map(Math.round))
    problem = judge(waits)
    if (problem === undefined) return undefined
  }
  return `${problem} (waits per round: ${JSON.stringify(tried)})`
}

/**
 * Below this base, a wait's jitter at the kit (both ends' scheduling, the network) is as large as
 * the growth being judged, so one lucky round could pass a constant delay: judge medians instead.
 */
export const JITTER_PROOF_BASE_MS = 100

/**
 * Judges `rounds` fresh measurements by the median of each wait across them: a constant delay's
 * waits differ only by jitter, whose median is about zero however lucky one round is, while a
 * growing delay keeps its growth. Returns the problem with every round's waits, or undefined.
 */
export async function judgeByMedian(rounds: number, measure: (round: number) => Promise<number[]>, judge: (waits: number[]) => string | undefined): Promise<string | undefined> {
  const tried: number[][] = []
  for (let round = 0; round < rounds; round++) tried.push(await measure(round))
  const length = Math.min(...tried.map((w) => w.length))
  const medians = Array.from({ length }, (_, i) => median(tried.map((w) => w[i])))
  const problem = judge(medians)
  return problem === undefined ? undefined : `${problem} (median waits ${JSON.stringify(medians.map(Math.round))}; waits per round: ${JSON.stringify(tried.map((w) => w.map(Math.round)))})`
}

/**
 * The one way the cases judge retry waits from a base delay: with a base the jitter cannot hide,
 * the first of three rounds that passes wins (a loaded machine cannot fail a conforming target);
 * with a smaller one, the median of fifteen rounds: one lucky round cannot pass a constant delay,
 * and jitter as large as the base moves the median past half the base in a few runs in a hundred
 * (kit-truth.test.ts measures both rates). Rounds of a small base are short.
 */
export function judgeRetryWaits(base: number, measure: (round: number) => Promise<number[]>, judge: (waits: number[]) => string | undefined): Promise<string | undefined> {
  return base >= JITTER_PROOF_BASE_MS ? judgeInRounds(3, measure, judge) : judgeByMedian(SMALL_BASE_ROUNDS, measure, judge)
}

const SMALL_BASE_ROUNDS = 15

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
