import type { Cluster } from '../cluster/cluster.ts';

// Transitional placeholder until this part is implemented.
export class ConsumerOffsets {
  constructor(private readonly cluster: Cluster) {}
}
