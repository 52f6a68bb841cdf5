import type { Cluster } from '../cluster/cluster.ts';

// Transitional placeholder until this part is implemented.
export class Schemas {
  constructor(private readonly cluster: Cluster) {}
}
