// What openProject() (src/lib/index.ts) needs and `import("hcpx")` does not: the packs'
// loader and validation, the tool lists' renderer, the projection builder (with the YAML
// parser the Skills need, ~250 KB), the one tool-call front of `hcpx mcp` and a pack's Binding
// names (a failed confirm callback's message is redacted with them). One module,
// imported once a project is opened: one dynamic import, not one a module (each goes
// through Node's ESM loader again).
export { loadPacks, loadProject } from "../../pack/load";
export { useValidationCache } from "../../pack/validcache";
export { toolList } from "../../projection/tools";
export { buildProjection, DEFAULT_SKILLS_PATH } from "../../projection/build";
export { McpFront } from "../../mcp/front";
export { bindingNames } from "../../runtime/execute";
