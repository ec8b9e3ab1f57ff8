// calc operations, shared by the composite pack (./index.mjs, in-process) and the wrap
// bin (bins/calc.mjs, one process per call), so both return identical data.
// Every function takes already-typed args and returns plain JSON data, or throws.

export class CalcError extends Error {
  constructor(message, code = 'bad_args') {
    super(message);
    this.code = code;
  }
}

const tidy = (x) => (Number.isFinite(x) ? Number(x.toPrecision(12)) : x);

function num(v, name) {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new CalcError(`${name} must be a finite number`);
  return n;
}

export function ping() {
  return { pong: true };
}

export function add({ a, b }) {
  return { sum: tidy(num(a, 'a') + num(b, 'b')) };
}

// values: numbers separated by commas and/or spaces, e.g. "1, 2, 3.5"
export function stats({ values }) {
  if (typeof values !== 'string' || !values.trim()) throw new CalcError('values must list numbers, e.g. "1, 2, 3.5"');
  const xs = values.split(/[\s,;]+/).filter(Boolean).map((s) => {
    const n = Number(s);
    if (!Number.isFinite(n)) throw new CalcError(`not a number: ${s}`);
    return n;
  });
  if (xs.length > 10000) throw new CalcError('at most 10000 values');
  const sorted = xs.slice().sort((p, q) => p - q);
  const sum = xs.reduce((s, x) => s + x, 0);
  const mean = sum / xs.length;
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length;
  return {
    count: xs.length,
    sum: tidy(sum),
    mean: tidy(mean),
    median: tidy(median),
    min: sorted[0],
    max: sorted[sorted.length - 1],
    stddev: tidy(Math.sqrt(variance)),
  };
}

// unit -> [dimension, factor to the base unit]
const UNITS = {
  mm: ['length', 0.001], cm: ['length', 0.01], m: ['length', 1], km: ['length', 1000],
  in: ['length', 0.0254], ft: ['length', 0.3048], mi: ['length', 1609.344],
  g: ['mass', 0.001], kg: ['mass', 1], oz: ['mass', 0.028349523125], lb: ['mass', 0.45359237],
  ml: ['volume', 0.001], l: ['volume', 1], gal: ['volume', 3.785411784],
  c: ['temperature', null], f: ['temperature', null], k: ['temperature', null],
};
export const UNIT_NAMES = Object.keys(UNITS);

function toKelvin(v, u) {
  if (u === 'c') return v + 273.15;
  if (u === 'f') return (v - 32) * 5 / 9 + 273.15;
  return v;
}
function fromKelvin(v, u) {
  if (u === 'c') return v - 273.15;
  if (u === 'f') return (v - 273.15) * 9 / 5 + 32;
  return v;
}

export function convert({ value, from, to }) {
  const v = num(value, 'value');
  const f = UNITS[from];
  const t = UNITS[to];
  if (!f) throw new CalcError(`unknown unit: ${from} (one of ${UNIT_NAMES.join(', ')})`);
  if (!t) throw new CalcError(`unknown unit: ${to} (one of ${UNIT_NAMES.join(', ')})`);
  if (f[0] !== t[0]) throw new CalcError(`cannot convert ${f[0]} (${from}) to ${t[0]} (${to})`);
  const result = f[0] === 'temperature' ? fromKelvin(toKelvin(v, from), to) : (v * f[1]) / t[1];
  return { value: v, from, to, result: tidy(result) };
}
