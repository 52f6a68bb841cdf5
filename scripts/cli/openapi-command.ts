import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Command } from 'commander';
import { API } from '../../contract/index.ts';
import type { ApiContract } from '../../contract/core/types.ts';
import { toOpenApi } from '../../contract/to-openapi.ts';

export interface OpenapiCommandOptions {
  out?: string;
  server?: string;
}

/** Runs `mqsim openapi`: the contract (`api`, the built-in one by default) as an OpenAPI 3.1 JSON document, to stdout or a file. */
export function runOpenapiCommand(
  options: OpenapiCommandOptions,
  stdout: (text: string) => void = (t) => process.stdout.write(t),
  api: ApiContract = API,
): void {
  const doc = toOpenApi(api.endpoints, options.server ? { serverUrl: options.server } : {});
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  if (options.out) {
    mkdirSync(dirname(options.out), { recursive: true });
    writeFileSync(options.out, text);
    process.stderr.write(`wrote ${options.out} (${api.endpoints.length} operations)\n`);
  } else {
    stdout(text);
  }
}

/** Adds `mqsim openapi`'s options, help text and action to `cmd` (named and described by the CLI's command table). */
export function configureOpenapiCommand(cmd: Command): Command {
  return cmd
    .option('--out <file>', 'write the document to this file instead of stdout')
    .option('--server <url>', 'servers[0].url of the document', 'http://127.0.0.1:58080')
    .addHelpText(
      'after',
      `
Examples:
  $ mqsim openapi > mqsim-openapi.json
  $ mqsim openapi --out reports/openapi.json --server http://broker:58080`,
    )
    .action((options: OpenapiCommandOptions) => runOpenapiCommand(options));
}
