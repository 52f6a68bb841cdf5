import type { Cluster } from '../cluster/cluster.ts';

// Transitional placeholder until this part is implemented.
export class Users {
  constructor(private readonly cluster: Cluster) {}
}
