// OpenAPI at GitHub's size (goals, issue 11): `hcpx pack from-openapi` of
// GitHub's 13 MB document (1,223 operations) ≤ 3 s and ≤ 250 MB peak RSS;
// `hcpx lint` of the imported pack ≤ 1 s, also with a problem on every command
// (each problem is located in the file: the positions are cached once per
// text); `hcpx exec` of one of its commands against a small openapi pack.
// The document comes from scripts/install-openapi-docs.sh (skipped without it).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { fmt, median, table } from "./lib.mjs";
import { openapiDocsDir } from "../test/openapi/docs-dir.mjs";

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));
const HCPX = join(REPO, "dist", "hcpx.cjs"); // the bin (package.json)
// the real home (bench/run.mjs points HOME at a scratch dir): where scripts/install-openapi-docs.sh installs
const DOCS = openapiDocsDir(userInfo().homedir);
const GITHUB = join(DOCS, "node_modules/@octokit/openapi/generated/api.github.com.json");

/** Run hcpx; wall time and the child's peak RSS (a preload reports it). */
function timed(args, cwd, env = {}) {
  const out = join(cwd, `.rss-${Math.random().toString(36).slice(2)}`);
  const pre = join(cwd, ".rss-preload.cjs");
  writeFileSync(
    pre,
    `process.on("exit", () => require("fs").writeFileSync(${JSON.stringify(out)}, String(process.resourceUsage().maxRSS)));\n`,
  );
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["--require", pre, HCPX, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: "1", ...env },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - t0;
  const rssKb = existsSync(out) ? Number(readFileSync(out, "utf8")) : NaN;
  return { ms, rssMb: rssKb / 1024, code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export default async function () {
  if (!existsSync(GITHUB)) {
    console.log(`skipped: GitHub's document is not installed (run scripts/install-openapi-docs.sh; looked in ${DOCS})`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "oabench-"));
  const imports = [];
  for (let i = 0; i < 3; i++) {
    const r = timed(["pack", "from-openapi", GITHUB, "--id", "github", "--force", "--json"], dir);
    if (r.code !== 0) throw new Error(`import failed: ${r.stdout}${r.stderr}`);
    imports.push(r);
  }
  const commands = JSON.parse(imports[0].stdout).data.commands.length;
  const lints = [];
  for (let i = 0; i < 3; i++) lints.push(timed(["lint", "packs/github", "--json"], dir));
  // lint --json: the result is in data, or in error.details when lint fails
  const lintPacks = (stdout) => {
    const e = JSON.parse(stdout);
    return (e.ok ? e.data : e.error.details).packs;
  };
  const lintErrors = lintPacks(lints[0].stdout)[0].problems.filter((p) => p.severity === "error").length;
  // a problem on every command: a policy without rows (one missing-row problem per command)
  const many = mkdtempSync(join(tmpdir(), "oabench-many-"));
  spawnSync("cp", ["-r", join(dir, "packs"), many]);
  writeFileSync(join(many, "packs/github/policy.json"), "{ rows: {} }\n");
  const manyLints = [];
  for (let i = 0; i < 3; i++) manyLints.push(timed(["lint", "packs/github", "--json"], many));
  const manyProblems = lintPacks(manyLints[0].stdout)[0].problems.length;
  // exec: one GitHub command against a local server, and the todo example pack
  const server = createServer((_q, s) => {
    s.writeHead(200, { "content-type": "application/json" });
    s.end('{"ok":true}');
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}`;
  writeFileSync(
    join(dir, "hcp.config.json5"),
    JSON.stringify({
      packs: ["./packs/github", join(REPO, "packs/todo")],
      grants: { allow: ["github.meta.root", "todo.list"] },
    }),
  );
  const runExec = (pack, verb, env) =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const c = spawnAsync([HCPX, "exec", pack, verb, "--json"], dir, env);
      c.on("close", () => resolve(performance.now() - t0));
    });
  const gh = [];
  const todo = [];
  for (let i = 0; i < 7; i++) {
    gh.push(await runExec("github", "meta.root", { HCP_GITHUB_BASE_URL: url }));
    todo.push(await runExec("todo", "list", { HCP_TODO_BASE_URL: url, TODO_TOKEN: "x" }));
  }
  server.close();
  const m = (xs, k) => median(xs.map((x) => x[k]));
  console.log(
    table([
      ["what", "median", "goal"],
      [
        `import GitHub (13 MB, ${commands} commands)`,
        `${fmt(m(imports, "ms"))}, ${m(imports, "rssMb").toFixed(0)} MB RSS`,
        "≤ 3 s, ≤ 250 MB",
      ],
      [`lint the GitHub pack (${lintErrors} errors)`, fmt(m(lints, "ms")), "≤ 1 s"],
      [`lint with ${manyProblems} problems`, fmt(m(manyLints, "ms")), "≤ 1 s"],
      ["exec github meta.root (1.5 MB surface)", fmt(median(gh.slice(2))), `todo.list: ${fmt(median(todo.slice(2)))}`],
    ]),
  );
}

function spawnAsync(args, cwd, env) {
  return spawn(process.execPath, args, { cwd, env: { ...process.env, NO_COLOR: "1", ...env }, stdio: "ignore" });
}
