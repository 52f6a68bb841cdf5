/**
 * `npm run deps`, last step: no two folders import each other, a folder and its own subfolder
 * included. dependency-cruiser's folder rule (.dependency-cruiser-folders.cjs) sees a loop between
 * sibling folders, but not a parent whose index imports a child that imports the parent's shared
 * types back; the fix for that is a `core/` folder below both (docs/design.md). Reads the JSON of
 * `depcruise … --config .dependency-cruiser-folders.cjs --output-type json` (tests already left out)
 * on stdin and exits 1, naming an import each way, when a pair is found.
 */
import { text } from 'node:stream/consumers';
import { folderPairs, type CruisedModule } from './folder-pairs-of.ts';

const { modules } = JSON.parse(await text(process.stdin)) as { modules: CruisedModule[] };
const pairs = folderPairs(modules);
for (const p of pairs) {
  process.stderr.write(`folders import each other: ${p.a} ⇄ ${p.b}\n  ${p.aToB}\n  ${p.bToA}\n`);
}
if (pairs.length > 0) process.exit(1);
process.stdout.write(`✔ no two folders import each other (${modules.length} modules)\n`);
