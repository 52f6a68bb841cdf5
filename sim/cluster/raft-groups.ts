import type { Cluster } from '../cluster/cluster.ts';

// Transitional placeholder until this part is implemented.
export class RaftGroups {
  constructor(private readonly cluster: Cluster) {}
}
