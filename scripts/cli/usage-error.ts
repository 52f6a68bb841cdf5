import { InvalidArgumentError } from 'commander';

/** A mistake in how the CLI was called: printed without a stack, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function parseIntOption(name: string, min: number, max: number): (value: string) => number {
  return (value: string) => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}.`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}.`);
    return n;
  };
}

export function parseChoice<T extends string>(name: string, choices: readonly T[]): (value: string) => T {
  return (value: string) => {
    const hit = choices.find((c) => c.toLowerCase() === value.toLowerCase());
    if (!hit) throw new InvalidArgumentError(`${name} must be one of ${choices.join(', ')}.`);
    return hit;
  };
}
