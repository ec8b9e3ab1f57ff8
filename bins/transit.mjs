#!/usr/bin/env node
// transit — journey planner over a small, fixed, fake city network.
// Zero dependencies (node: builtins only). Never prompts. Read-only.
//
//   transit plan <from> <to> [--at HH:MM]          fastest journey (fewest minutes, then changes)
//   transit departures <station> [--at HH:MM] [--limit N]
//   transit stops [--line LINE]                    stations, optionally of one line
//   transit lines                                  lines with their stops and headways
//
// Options: --json (or env TRANSIT_OUTPUT=json) prints exactly one JSON value on stdout.
// Time: --at HH:MM, else env TRANSIT_NOW (HH:MM), else the local clock.
// Exit codes: 0 ok, 1 usage / unknown station or line / no route.

const USAGE = `usage: transit <command> [args] [--json]
commands:
  plan <from> <to> [--at HH:MM]
  departures <station> [--at HH:MM] [--limit N]
  stops [--line LINE]
  lines
env: TRANSIT_OUTPUT=json, TRANSIT_NOW=HH:MM`;

// ---------- the network (deterministic) ----------
const STATIONS = {
  airport: 'Airport',
  central: 'Central',
  harbor: 'Harbor',
  museum: 'Museum',
  market: 'Market Square',
  university: 'University',
  stadium: 'Stadium',
  park: 'City Park',
  oldtown: 'Old Town',
  riverside: 'Riverside',
  hospital: 'Hospital',
  zoo: 'Zoo',
};

// minutes between consecutive stops; first train 05:00 from each end, last departure 23:30
const LINES = {
  red: { name: 'Red line', mode: 'metro', headway: 6, hop: 3, stops: ['airport', 'central', 'market', 'university', 'stadium'] },
  blue: { name: 'Blue line', mode: 'metro', headway: 8, hop: 2, stops: ['harbor', 'museum', 'central', 'park', 'hospital'] },
  green: { name: 'Green line', mode: 'tram', headway: 10, hop: 4, stops: ['oldtown', 'market', 'park', 'riverside', 'zoo'] },
  '12': { name: 'Bus 12', mode: 'bus', headway: 15, hop: 5, stops: ['harbor', 'oldtown', 'riverside', 'stadium'] },
};
const FIRST = 5 * 60;
const LAST = 23 * 60 + 30;
const CHANGE_MIN = 3; // walking time at a change

class CliError extends Error {
  constructor(message, exitCode = 1) { super(message); this.exitCode = exitCode; }
}

// ---------- argv ----------
function parseArgv(argv) {
  const withValue = new Set(['--at', '--limit', '--line']);
  const pos = [];
  const opts = {};
  let rest = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (rest) { pos.push(a); continue; }
    if (a === '--') { rest = true; continue; }
    if (a.startsWith('-')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(0, eq) : a;
      if (name === '--json' || name === '--help' || name === '-h') { opts[name] = true; continue; }
      if (!withValue.has(name)) throw new CliError(`unknown option: ${name}\n${USAGE}`);
      if (eq > 0) opts[name] = a.slice(eq + 1);
      else if (i + 1 < argv.length) opts[name] = argv[++i];
      else throw new CliError(`${name} needs a value`);
      continue;
    }
    pos.push(a);
  }
  return { pos, opts };
}

const hhmm = (m) => `${String(Math.floor(m / 60) % 24).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
function parseTime(s, what) {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(String(s));
  if (!m) throw new CliError(`bad ${what} "${s}": use HH:MM, e.g. 08:30`);
  return Number(m[1]) * 60 + Number(m[2]);
}
function startTime(opts) {
  if (opts['--at'] !== undefined) return parseTime(opts['--at'], '--at');
  if (process.env.TRANSIT_NOW) return parseTime(process.env.TRANSIT_NOW, 'TRANSIT_NOW');
  const d = new Date();
  return d.getHours() * 60 + d.getMinutes();
}
const norm = (s) => String(s).toLowerCase().replace(/[^a-z0-9]/g, '');
function station(s) {
  if (s === undefined || s === '') throw new CliError('missing station');
  const k = norm(s);
  for (const [id, name] of Object.entries(STATIONS)) if (id === k || norm(name) === k) return id;
  throw new CliError(`unknown station: ${s} (see: transit stops)`);
}
function line(s) {
  const k = String(s).toLowerCase();
  if (LINES[k]) return k;
  for (const [id, l] of Object.entries(LINES)) if (norm(l.name) === norm(s)) return id;
  throw new CliError(`unknown line: ${s} (see: transit lines)`);
}

// Next departure from stop index i of line l, travelling in direction dir (+1 / -1), at or after t.
function nextDeparture(l, i, dir, t) {
  const L = LINES[l];
  const fromEnd = dir > 0 ? i : L.stops.length - 1 - i;
  const offset = fromEnd * L.hop;
  // trains leave the terminus at FIRST + k*headway, k >= 0, up to LAST
  const k = Math.max(0, Math.ceil((t - offset - FIRST) / L.headway));
  const dep = FIRST + k * L.headway + offset;
  if (FIRST + k * L.headway > LAST) return null;
  return dep;
}

// Earliest-arrival search (Dijkstra over stations; ties broken by fewer changes, then line id).
function plan(from, to, t0) {
  const best = new Map([[from, { t: t0, changes: -1, prev: null }]]);
  const done = new Set();
  for (;;) {
    let cur = null;
    for (const [s, v] of best) {
      if (done.has(s)) continue;
      if (!cur || v.t < cur[1].t || (v.t === cur[1].t && v.changes < cur[1].changes) || (v.t === cur[1].t && v.changes === cur[1].changes && s < cur[0])) cur = [s, v];
    }
    if (!cur) return null;
    const [s, v] = cur;
    if (s === to) break;
    done.add(s);
    for (const l of Object.keys(LINES).sort()) {
      const L = LINES[l];
      const i = L.stops.indexOf(s);
      if (i < 0) continue;
      for (const dir of [1, -1]) {
        const onSameLine = v.prev && v.prev.line === l && v.prev.dir === dir;
        const ready = v.t + (v.prev && !onSameLine ? CHANGE_MIN : 0);
        const dep = onSameLine ? v.prev.arrive : nextDeparture(l, i, dir, ready);
        if (dep === null) continue;
        for (let j = i + dir, n = 1; j >= 0 && j < L.stops.length; j += dir, n++) {
          const s2 = L.stops[j];
          const arrive = dep + n * L.hop;
          const changes = v.changes + (onSameLine ? 0 : 1);
          const old = best.get(s2);
          if (done.has(s2)) continue;
          if (!old || arrive < old.t || (arrive === old.t && changes < old.changes)) {
            best.set(s2, { t: arrive, changes, prev: { station: s, line: l, dir, depart: dep, arrive, board: onSameLine ? v.prev.board : s, boardAt: onSameLine ? v.prev.boardAt : dep, stops: (onSameLine ? v.prev.stops : 0) + n } });
          }
        }
      }
    }
  }
  // Walk back: each best entry's prev describes the leg that ends there (merged per line).
  const legs = [];
  let s = to;
  while (s !== from) {
    const p = best.get(s).prev;
    const L = LINES[p.line];
    legs.unshift({
      line: p.line,
      line_name: L.name,
      mode: L.mode,
      from: p.board,
      to: s,
      towards: p.dir > 0 ? L.stops[L.stops.length - 1] : L.stops[0],
      depart: hhmm(p.boardAt),
      arrive: hhmm(p.arrive),
      stops: p.stops,
    });
    s = p.board;
  }
  const arrive = best.get(to).t;
  const firstDep = legs.length ? parseTime(legs[0].depart, 'time') : t0;
  return {
    from, to,
    at: hhmm(t0),
    depart: hhmm(firstDep),
    arrive: hhmm(arrive),
    wait_min: firstDep - t0,
    duration_min: arrive - firstDep,
    changes: Math.max(0, legs.length - 1),
    legs,
  };
}

// ---------- commands ----------
const commands = {
  plan(pos, opts) {
    if (pos.length !== 2) throw new CliError(`plan takes <from> <to>\n${USAGE}`);
    const from = station(pos[0]);
    const to = station(pos[1]);
    const t0 = startTime(opts);
    if (from === to) {
      return { data: { from, to, at: hhmm(t0), depart: hhmm(t0), arrive: hhmm(t0), wait_min: 0, duration_min: 0, changes: 0, legs: [] }, text: `you are already at ${STATIONS[from]}` };
    }
    const r = plan(from, to, t0);
    if (!r) throw new CliError(`no route from ${from} to ${to} after ${hhmm(t0)} (service runs ${hhmm(FIRST)}-${hhmm(LAST)})`);
    const text = [
      `${STATIONS[from]} -> ${STATIONS[to]}: depart ${r.depart}, arrive ${r.arrive} (${r.duration_min} min after ${r.wait_min} min wait, ${r.changes} change${r.changes === 1 ? '' : 's'})`,
      ...r.legs.map((l) => `  ${l.depart} ${l.line_name} towards ${STATIONS[l.towards]}: ${STATIONS[l.from]} -> ${STATIONS[l.to]} (${l.stops} stop${l.stops === 1 ? '' : 's'}), arrive ${l.arrive}`),
    ].join('\n');
    return { data: r, text };
  },

  departures(pos, opts) {
    if (pos.length !== 1) throw new CliError(`departures takes one <station>\n${USAGE}`);
    const s = station(pos[0]);
    const t = startTime(opts);
    let limit = 5;
    if (opts['--limit'] !== undefined) {
      if (!/^\d{1,3}$/.test(opts['--limit']) || Number(opts['--limit']) < 1) throw new CliError(`bad --limit "${opts['--limit']}": use a positive integer`);
      limit = Number(opts['--limit']);
    }
    const all = [];
    for (const l of Object.keys(LINES).sort()) {
      const L = LINES[l];
      const i = L.stops.indexOf(s);
      if (i < 0) continue;
      for (const dir of [1, -1]) {
        if ((dir > 0 && i === L.stops.length - 1) || (dir < 0 && i === 0)) continue;
        let after = t;
        for (let n = 0; n < limit; n++) {
          const dep = nextDeparture(l, i, dir, after);
          if (dep === null) break;
          all.push({ time: hhmm(dep), minutes: dep, line: l, line_name: L.name, towards: dir > 0 ? L.stops[L.stops.length - 1] : L.stops[0] });
          after = dep + 1;
        }
      }
    }
    all.sort((a, b) => a.minutes - b.minutes || a.line.localeCompare(b.line) || a.towards.localeCompare(b.towards));
    const list = all.slice(0, limit).map(({ minutes: _m, ...d }) => d);
    const text = list.length
      ? list.map((d) => `${d.time}  ${d.line_name.padEnd(10)} towards ${STATIONS[d.towards]}`).join('\n')
      : `no more departures from ${STATIONS[s]} today`;
    return { data: { station: s, at: hhmm(t), departures: list }, text };
  },

  stops(pos, opts) {
    if (pos.length) throw new CliError(`stops takes no arguments (use --line)\n${USAGE}`);
    let ids = Object.keys(STATIONS).sort();
    let l = null;
    if (opts['--line'] !== undefined) {
      l = line(opts['--line']);
      ids = LINES[l].stops.slice();
    }
    const list = ids.map((id) => ({
      id,
      name: STATIONS[id],
      lines: Object.keys(LINES).sort().filter((k) => LINES[k].stops.includes(id)),
    }));
    const text = list.map((s) => `${s.id.padEnd(12)} ${s.name.padEnd(15)} ${s.lines.join(', ')}`).join('\n');
    return { data: l ? { line: l, stops: list } : { stops: list }, text };
  },

  lines(pos) {
    if (pos.length) throw new CliError(`lines takes no arguments\n${USAGE}`);
    const list = Object.keys(LINES).sort().map((id) => {
      const L = LINES[id];
      return { id, name: L.name, mode: L.mode, every_min: L.headway, stops: L.stops.slice() };
    });
    const text = list.map((l) => `${l.id.padEnd(6)} ${l.name.padEnd(10)} every ${l.every_min} min: ${l.stops.map((s) => STATIONS[s]).join(' - ')}`).join('\n');
    return { data: { lines: list, service: { first: hhmm(FIRST), last: hhmm(LAST) } }, text };
  },
};

const OPTIONS = { plan: ['--at'], departures: ['--at', '--limit'], stops: ['--line'], lines: [] };

function main(argv) {
  let json = process.env.TRANSIT_OUTPUT === 'json';
  try {
    const { pos, opts } = parseArgv(argv);
    if (opts['--json']) json = true;
    if (opts['--help'] || opts['-h']) {
      process.stdout.write((json ? JSON.stringify({ usage: USAGE }) : USAGE) + '\n');
      return 0;
    }
    const [cmd, ...rest] = pos;
    if (cmd === undefined) throw new CliError(`missing command\n${USAGE}`);
    if (!Object.hasOwn(commands, cmd)) throw new CliError(`unknown command: ${cmd}\n${USAGE}`);
    for (const k of Object.keys(opts)) {
      if (k !== '--json' && !OPTIONS[cmd].includes(k)) throw new CliError(`option ${k} does not apply to "${cmd}"`);
    }
    const r = commands[cmd](rest, opts);
    process.stdout.write((json ? JSON.stringify(r.data) : r.text) + '\n');
    return 0;
  } catch (e) {
    if (!(e instanceof CliError)) {
      process.stderr.write(`transit: internal error: ${e && e.message}\n`);
      return 70;
    }
    process.stderr.write(`transit: ${e.message}\n`);
    return e.exitCode;
  }
}

process.exitCode = main(process.argv.slice(2));
