/**
 * "Did you mean": the closest known name within a small edit distance (or a case-only difference).
 * A pure rule shared by the gateway's configuration loader and the kit's manifest check, here
 * because gateway/protocol is the one module both may import.
 */
export function closest(word: string, options: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Infinity
  for (const option of options) {
    const d = option.toLowerCase() === word.toLowerCase() ? 0 : distance(word, option)
    if (d < bestDistance) [best, bestDistance] = [option, d]
  }
  return bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined
}

/** Levenshtein distance. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = row
  }
  return prev[b.length]
}
