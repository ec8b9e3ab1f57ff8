// "Did you mean …?" for a name the user mistyped: a host, a pack id, a verb.
// Optimal string alignment distance (a swap of two neighbours counts once);
// a candidate is close when it is within a third of the name's length (at
// least 1), or when one is a prefix of the other.

function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidates closest to `name`, best first (at most 3). */
export function closest(name: string, candidates: Iterable<string>): string[] {
  const n = name.toLowerCase();
  const max = Math.max(1, Math.floor(n.length / 3));
  const scored: [string, number][] = [];
  for (const c of new Set(candidates)) {
    if (c === name) continue;
    const l = c.toLowerCase();
    const dist = distance(n, l);
    if (dist <= max || (n.length >= 3 && (l.startsWith(n) || n.startsWith(l)))) scored.push([c, dist]);
  }
  return scored
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 3)
    .map(([c]) => c);
}

/** `did you mean 'x'? ` (or `'x' or 'y'`), or "" when nothing is close. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const c = closest(name, candidates);
  if (c.length === 0) return "";
  return `did you mean ${c.map((x) => `'${x}'`).join(" or ")}? `;
}
