import { relative, sep } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { LONGEST_FIRST } from './test-tiers.ts';

/** A test file's path from the project root, with forward slashes, as test-tiers.ts lists it. */
const pathOf = (spec: TestSpecification): string => relative(spec.project.config.root, spec.moduleId).split(sep).join('/');

/**
 * Vitest's order (failed first, then longest by the last run's durations, when it has them), except
 * that the files of LONGEST_FIRST (scripts/test-tiers.ts) start first, in that order: a fresh clone has
 * no durations, and a long file found last would otherwise run alone at the end of the run.
 */
export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const at = LONGEST_FIRST.indexOf(pathOf(spec));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    // Array.prototype.sort is stable: the files not listed keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
