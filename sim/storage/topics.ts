import type { Cluster } from '../cluster/cluster.ts';

// Transitional placeholder until this part is implemented.
export class Topics {
  constructor(private readonly cluster: Cluster) {}
}
