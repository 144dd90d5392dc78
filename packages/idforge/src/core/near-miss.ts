/**
 * Near misses of a name a user typed: the CLI's "did you mean" for flags, commands and layouts,
 * and the service's for query parameters and settings. One distance for all of them, so a
 * typo is recognised alike wherever it is made.
 */

/** Edit distance counting a swap of two neighbours as one edit (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The words of `words` closest to `word`: within an edit distance of one per three letters (a
 * typo, a swapped pair), every one at the smallest distance, so a typo as close to two words
 * names both ("sqe": seq or sql); or the one word it begins; none when no word is close.
 */
export function closest(word: string, words: readonly string[]): string[] {
  let best: string[] = [];
  let bestDistance = Math.max(1, Math.ceil(word.length / 3)) + 1;
  for (const w of words) {
    const d = editDistance(word, w);
    if (d < bestDistance) [best, bestDistance] = [[w], d];
    else if (d === bestDistance && best.length > 0) best.push(w);
  }
  if (best.length > 0) return best.sort();
  const starts = words.filter((w) => word.length >= 3 && w.startsWith(word));
  return starts.length === 1 ? starts : [];
}
