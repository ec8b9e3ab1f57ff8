// The audit record's decision (src/runtime/audit.ts decisionOf): what the
// runtime answered decides it in one place, for exec's record (execRecord) as
// for hcpx mcp's and the library's (src/mcp/front.ts). A call cancelled before
// it started ran nothing: decision `cancelled`, never `ran`; a call cancelled
// while it ran stays `ran` (its result `cancelled` says how it ended). Before the
// fix every `cancelled` was `ran`. And every code of the error table
// (src/util/codes.ts) is classified by where it is made (src/runtime/audit-codes.ts):
// before anything of the command started (`refused`), once it had (`ran`), or
// on both sides (`started: false` on the ones made before); a new code in none
// of the lists fails here. Before that fix bin_denied, binding_too_short,
// binding_missing and too_many_tools were `ran`.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadPack, loadProject } from "../../src/pack/load";
import { runAdapter, type AdapterCall } from "../../src/runtime/adapters/index";
import { decisionOf, execRecord } from "../../src/runtime/audit";
import { MARKED, PRE_RUN, RAN } from "../../src/runtime/audit-codes";
import { StopSignal } from "../../src/runtime/cancel";
import { failure } from "../../src/runtime/envelope";
import { execute } from "../../src/runtime/execute";
import { cancelled } from "../../src/runtime/wrap";
import { ERRORS } from "../../src/util/codes";
import { fxPack, project } from "./support";
import { runHcpx, tmp } from "../support/hcpx";

const ECHO = [{ verb_key: "echo", summary: "echo", cli: ["echo", "x"], args: {} }];

function scratch(confirm = false) {
  const p = project({
    packs: [fxPack("echo", "argv-echo.mjs", ECHO, {}, { echo: { operation: "write", land: "local", confirm } })],
  });
  return { p, project: loadProject({ config: p.config, user: false }) };
}

const decided = (env: { ok: boolean; error?: { code: string } }) =>
  decisionOf(env.ok ? "ok" : env.error!.code, env.error);

describe("decisionOf: a cancelled call that never started is `cancelled`, one that ran is `ran`", () => {
  it("the cancelled envelopes, as the runtime makes them", () => {
    expect(decided(cancelled("p v", undefined, false))).toBe("cancelled");
    expect(decided(cancelled("p v", undefined, true))).toBe("ran");
    // runAdapter's own: finished before it could be stopped
    expect(decided(failure("cancelled", "p v was cancelled while it ran", { finished: true }))).toBe("ran");
    // a `cancelled` that does not say it never started may have run: `ran`
    expect(decisionOf("cancelled")).toBe("ran");
    expect(decisionOf("ok")).toBe("ran");
    expect(decisionOf("confirm_declined")).toBe("declined");
  });

  it("an input the person declined or the client cannot answer ran nothing: `declined`, `refused`; a round of questions `input_asked` (not `ran`)", () => {
    expect(decisionOf("input_declined")).toBe("declined");
    expect(decisionOf("input_unavailable")).toBe("refused");
    // a round of input questions went back instead of a result: nothing ran (before: `ran`)
    expect(decisionOf("input_required")).toBe("input_asked");
  });

  it("hcpx exec's record: a call cancelled before its bin started is `cancelled`; its envelope says it never started", async () => {
    const { project: proj } = scratch();
    const stop = new StopSignal();
    stop.abort("SIGTERM");
    const t0 = Date.now();
    const env = await execute(proj, { pack: "echo", verb: "echo", kv: [] }, { signal: stop });
    expect(env).toMatchObject({ ok: false, error: { code: "cancelled", started: false } });
    const rec = execRecord("echo", "echo", [], env, t0);
    expect({ decision: rec.decision, result: rec.result }).toEqual({ decision: "cancelled", result: "cancelled" });
  });

  it("a gated write cancelled before its question is asked: no one is asked, `cancelled` (no `withdrawn` answer of a question never put)", async () => {
    const { project: proj } = scratch(true);
    const stop = new StopSignal();
    stop.abort("SIGTERM");
    const asked: string[] = [];
    const env = await execute(
      proj,
      { pack: "echo", verb: "echo", kv: [] },
      { signal: stop, askPerson: async (q) => (asked.push(q.message), "withdrawn") },
    );
    expect(asked).toEqual([]);
    expect(env).toMatchObject({ ok: false, error: { code: "cancelled", started: false } });
  });

  it("a call cancelled while it ran is `ran` (runAdapter, the one way to every adapter)", async () => {
    const { p, project: proj } = scratch();
    const pack = loadPack(join(p.dir, "packs", "echo"));
    const ac = new AbortController();
    const call: AdapterCall = {
      pack,
      project: proj,
      cmd: pack.commands[0]!,
      values: {},
      literal: undefined,
      env: {},
      signal: ac.signal,
    };
    const ran = await runAdapter(call, {
      wrap: { load: async () => ({ run: async () => (ac.abort("SIGTERM"), { ok: true, data: null }) }) },
    });
    expect(execRecord("echo", "echo", [], ran, Date.now()).decision).toBe("ran");
    // and one cancelled before runAdapter started it
    const never = await runAdapter(call, {
      wrap: { load: async () => ({ run: async () => ({ ok: true, data: 1 }) }) },
    });
    expect(execRecord("echo", "echo", [], never, Date.now()).decision).toBe("cancelled");
  });
});

/** The codes decided by the confirm and input flows, not by where they are made. */
const OWN: Record<string, string> = {
  not_granted: "not_granted",
  confirm_required: "confirm_required",
  confirm_declined: "declined",
  input_declined: "declined",
};

/**
 * Codes no call answers once its pack is read: the other commands' (adopt, generate, pack, lint, grant,
 * doctor, mcp --http's start), and the config's and the packs' own, which execute() never answers (it says
 * bad_pack) and src/mcp/front.ts records as `refused` whatever the code, the pack not read yet.
 */
const NOT_A_CALL = new Set(
  (
    "usage unknown_host bad_shell bad_pattern bad_id matches_nothing bin_not_found bin_mismatch config_exists " +
    "not_a_pack missing_file not_a_file not_utf8 not_a_directory unreadable_file file_too_large io_error read_only " +
    "write_failed bad_json bad_json5 bad_json_shape bad_toml bad_toml_value bad_yaml yaml_unsupported yaml_ambiguous " +
    "toml_unsupported not_an_object not_a_list duplicate_key too_deep bidi_control too_large schema unknown_key " +
    "reserved_key skill_frontmatter skill_name tool_name tool_name_collision input_decl reserved_arg host_text_unsafe " +
    "drift out_of_date bad_ledger ledger_entry_ignored journal_entry_ignored manifest_entry_ignored nested_config " +
    "sandbox_setting_ignored bad_manifest bad_markers bad_plan_path bad_descriptor bad_template no_host_engine " +
    "no_scope no_servers_target host_conflict host_variable changed_by_user changed_since_adopt bad_gitignore_block " +
    "no_hosts_detected no_user_config host_will_not_use block_not_read bad_host_setting host_home mcp_command_missing " +
    "mcp_command_not_on_path mcp_config_not_found changed_during_plan not_ours recorded_command symlink_refused " +
    "outside_base unsafe_file hard_linked locked policy_widened end_of_life foreign_file bad_lock_file all_adds_hosts " +
    "remote_unsupported remote_unreachable remote_unauthorized bad_source ambiguous_source fetch_failed " +
    "integrity_mismatch hash_mismatch unsafe_archive bad_lock pack_differs pack_edited install_broken exists " +
    "dir_exists id_changed review_required lint_failed verb_exists bad_document openapi_import unknown_server " +
    "not_importable mcp_connect_failed mcp_list_failed mcp_import no_tools exit skill_out_of_date still_granted " +
    "still_denied granted_by_wildcard not_found unhealthy warnings lint_errors lint_warnings broken_packs review " +
    "failed server_config_required not_loopback address_in_use address_unavailable principal_overlap " +
    "unknown_principal bad_state_key"
  ).split(" "),
);

describe("decisionOf over the error table: each code by where it is made", () => {
  const lists = () => ({
    pre_run: [...PRE_RUN],
    ran: [...RAN],
    marked: [...MARKED],
    own: Object.keys(OWN),
    not_a_call: [...NOT_A_CALL],
  });

  it("every code of the error table is in exactly one list, and the lists hold only its codes", () => {
    const all = Object.values(lists()).flat();
    const codes = Object.keys(ERRORS);
    expect(codes.filter((c) => !all.includes(c))).toEqual([]);
    expect(all.filter((c, i) => all.indexOf(c) !== i)).toEqual([]);
    expect(all.filter((c) => !codes.includes(c))).toEqual([]);
  });

  it("made before anything started: `refused`; once it started: `ran`; on both sides: as `started` says", () => {
    const got = (codes: string[], error?: { started: boolean }) =>
      Object.fromEntries(codes.map((c) => [c, decisionOf(c, error && { code: c, ...error })]));
    const { pre_run, ran, marked } = lists();
    expect(got(pre_run)).toEqual(Object.fromEntries(pre_run.map((c) => [c, "refused"])));
    expect(got(ran)).toEqual(Object.fromEntries(ran.map((c) => [c, "ran"])));
    // a `started: false` on a code made once it started changes nothing
    expect(got(ran, { started: false })).toEqual(Object.fromEntries(ran.map((c) => [c, "ran"])));
    expect(got(marked)).toEqual(Object.fromEntries(marked.map((c) => [c, "ran"])));
    expect(got(marked, { started: false })).toEqual(
      Object.fromEntries(marked.map((c) => [c, c === "cancelled" ? "cancelled" : "refused"])),
    );
    expect(got(Object.keys(OWN))).toEqual(OWN);
  });

  it("the codes that were `ran` before the fix, and those that stay `ran`", () => {
    const pre = ["bin_denied", "binding_too_short", "binding_missing", "too_many_tools"];
    expect(Object.fromEntries(pre.map((c) => [c, decisionOf(c)]))).toEqual(
      Object.fromEntries(pre.map((c) => [c, "refused"])),
    );
    expect(decisionOf("spawn_failed", { code: "spawn_failed", started: false })).toBe("refused");
    expect(decisionOf("mcp_error", { code: "mcp_error", started: false })).toBe("refused");
    // the kernel's denial is told after the bin ran; a spawn_failed without the mark may be execute()'s catch-all
    for (const c of ["sandbox_denied", "spawn_failed", "mcp_error", "timeout", "http_error", "composite_error"])
      expect([c, decisionOf(c, { code: c })]).toEqual([c, "ran"]);
  });

  it("the runtime's own envelopes: a bin not in sandbox.bins, a missing bin, a Binding value too short", async () => {
    const p = project({
      packs: [
        fxPack("bare", "argv-echo.mjs", ECHO, { wrap: { bin: "nosuchbin" } }, { echo: { operation: "read" } }),
        fxPack("gone", "no-such-file.mjs", ECHO, {}, { echo: { operation: "read" } }),
        fxPack("short", "argv-echo.mjs", ECHO, { binding: { env: ["HCPX_T_TOKEN"] } }, { echo: { operation: "read" } }),
      ],
    });
    const proj = loadProject({ config: p.config, user: false });
    const call = async (pack: string) => {
      const env = await execute(proj, { pack, verb: "echo", kv: [] }, { env: { HCPX_T_TOKEN: "ab" } });
      return [env.ok ? "ok" : env.error.code, execRecord(pack, "echo", [], env, Date.now()).decision];
    };
    expect(await call("bare")).toEqual(["bin_denied", "refused"]);
    expect(await call("gone")).toEqual(["spawn_failed", "refused"]);
    expect(await call("short")).toEqual(["binding_too_short", "refused"]);
  });

  it("hcpx exec --json of a bin not in sandbox.bins: the envelope says bin_denied, the audit record `refused`", async () => {
    const p = project({
      packs: [fxPack("bare", "argv-echo.mjs", ECHO, { wrap: { bin: "nosuchbin" } }, { echo: { operation: "read" } })],
    });
    const state = tmp("hcpx-audit-bin-denied-");
    const r = await runHcpx(["exec", "bare", "echo", "--json"], {
      cwd: p.dir,
      env: { HOME: state, XDG_STATE_HOME: state },
    });
    expect([r.code, JSON.parse(r.stdout).error.code]).toEqual([1, "bin_denied"]);
    const lines = readFileSync(join(state, "hcpx", "audit.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(lines.map((l) => JSON.parse(l) as { decision: string; result: string })).toMatchObject([
      { via: "exec", pack: "bare", verb: "echo", decision: "refused", result: "bin_denied" },
    ]);
  });
});
