import type { HandlerTable } from '../handler-types.ts';

// Transitional placeholder.
export const handlers: HandlerTable = {};
