// The name of the tool that reads a pack's Skill, in a module of its own: the library's
// entry (src/lib/index.ts) exports it without loading the tool lists' renderers.
export const READ_SKILL_TOOL = "hcp__read_skill";
