import Ajv2020 from 'ajv/dist/2020.js';
import { endpointById } from '../../fixtures/contract/index.ts';

const ajv = new Ajv2020.default({ strict: false, allErrors: true });

/**
 * Test helper: the schema problems of `data` against the response schema of contract endpoint `id`
 * ('' when it matches). For list endpoints `data` is one record.
 */
export function contractProblems(id: string, data: unknown): string {
  const schema = endpointById(id).response.data;
  if (!schema) return '';
  const validate = ajv.compile(schema);
  return validate(data) ? '' : ajv.errorsText(validate.errors);
}
