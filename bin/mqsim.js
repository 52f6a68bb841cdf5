#!/usr/bin/env node
// Entry point of the `mqsim` CLI. The sources are TypeScript run through tsx's loader, so a fresh
// clone needs no build step: `npm ci && npx mqsim --help` works.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../scripts/cli/main.ts');
await main(process.argv);
