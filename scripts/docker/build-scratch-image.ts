/**
 * `npx tsx scripts/docker/build-scratch-image.ts`: builds (or finds) the FROM-scratch test image of
 * this checkout and prints its tag on stdout, e.g. to run
 * `npx mqsim conform --target "docker:$(npx tsx scripts/docker/build-scratch-image.ts)?network=host&port=auto&cmd=serve+--port+{port}"`.
 * Progress goes to stderr.
 */
import { ensureScratchImage, pruneOldScratchImages } from './scratch-image.ts';

const image = await ensureScratchImage({ log: (line) => process.stderr.write(`${line}\n`) });
for (const tag of await pruneOldScratchImages(image.tag)) process.stderr.write(`removed the older test image ${tag}\n`);
process.stdout.write(`${image.tag}\n`);
