// A minimal, lint-clean wrap pack written into a temp dir; each test mutates one
// thing to make it bad. JSON is written 2-space indented, so lines are stable.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmp } from "../support/hcpx";

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function baseSurface(): Json {
  return {
    hcp: "1.1",
    id: "mini",
    version: "0.1.0",
    description: "Mini: items to show, add and delete",
    kind: "wrap",
    wrap: { bin: "./bin.mjs", argv_template: ["{{verb}}"], json_flag: "--json", output: "json" },
    commands: [
      {
        verb_key: "show",
        summary: "Show one item",
        cli: ["mini", "show", "{{id}}"],
        args: { id: { type: "string", required: true, description: "Item id" } },
      },
      {
        verb_key: "item.add",
        summary: "Add an item",
        cli: ["mini", "item", "add", "{{name}}"],
        args: { name: { type: "string", required: true }, note: { type: "string", flag: "--note" } },
      },
      {
        verb_key: "item.delete",
        summary: "Delete an item",
        cli: ["mini", "item", "delete", "{{id}}"],
        args: { id: { type: "string", required: true } },
      },
    ],
  };
}

export function basePolicy(): Json {
  return {
    rows: {
      show: { operation: "read" },
      "item.add": { operation: "write", land: "local" },
      "item.delete": { operation: "write", land: "remote", confirm: true },
    },
  };
}

export interface SkillParts {
  name?: string;
  description?: string;
  leads?: string[] | string | null;
  rows?: string[];
  frontmatter?: string; // raw frontmatter replaces name/description/leads
}

export function skillRow(verb: string, summary: string, rw: string): string {
  return `| \`${verb}\` | ${summary} | ${rw} |`;
}

export function baseRows(): string[] {
  return [
    skillRow("show", "Show one item", "read"),
    skillRow("item.add", "Add an item", "write"),
    skillRow("item.delete", "Delete an item", "write, confirm"),
  ];
}

export function skillText(p: SkillParts = {}): string {
  const fm =
    p.frontmatter ??
    [
      `name: ${p.name ?? "mini"}`,
      `description: ${JSON.stringify(p.description ?? "Mini pack: show, add and delete items. Use it in tests.")}`,
      ...(p.leads === null
        ? []
        : typeof p.leads === "string"
          ? [`leads: ${JSON.stringify(p.leads)}`]
          : ["leads:", ...(p.leads ?? ["mini: items for tests."]).map((l) => `  - ${JSON.stringify(l)}`)]),
    ].join("\n");
  const rows = p.rows ?? baseRows();
  return `---\n${fm}\n---\n\n# mini\n\n## Hot path\n\n| verb | what it does | read/write |\n|---|---|---|\n${rows.join("\n")}\n`;
}

export interface MiniOptions {
  surface?: (s: Json) => void;
  policy?: (p: Json) => void;
  skill?: SkillParts;
  /** raw file contents (override the generated ones); null = do not write the file */
  raw?: Record<string, string | Buffer | null>;
  /** parent dir (default: a fresh temp dir); the pack goes into <parent>/<name> */
  parent?: string;
  name?: string;
}

/** Write a pack; returns its directory. */
export function miniPack(o: MiniOptions = {}): string {
  const parent = o.parent ?? tmp("hcpx-lint-");
  const dir = join(parent, o.name ?? "mini");
  mkdirSync(dir, { recursive: true });
  const s = baseSurface();
  o.surface?.(s);
  const p = basePolicy();
  o.policy?.(p);
  const files: Record<string, string | Buffer | null> = {
    "surface.json": JSON.stringify(s, null, 2) + "\n",
    "policy.json": JSON.stringify(p, null, 2) + "\n",
    "SKILL.md": skillText(o.skill),
    "bin.mjs": "#!/usr/bin/env node\nconsole.log('{}');\n",
    ...o.raw,
  };
  for (const [f, text] of Object.entries(files)) if (text !== null) writeFileSync(join(dir, f), text);
  return dir;
}
