import type { ClientState } from './mqtt-model.ts';
import type { MqttBrokerDeps } from './peer-parts.ts';

/**
 * ACL check of a client's publish or subscribe: a Deny decision refuses it (no rule, or Allow,
 * lets it through). Superusers of the tenant bypass ACL, as on the real server.
 */
export function aclDenial(
  deps: Pick<MqttBrokerDeps, 'users' | 'acl'>,
  client: ClientState,
  topic: string,
  action: 'Publish' | 'Subscribe',
): string | undefined {
  const username = client.last.username;
  if (username && deps.users.get(client.tenant, username)?.is_superuser) return undefined;
  const decision = deps.acl.decide({
    tenant: client.tenant,
    clientId: client.clientId,
    ...(username ? { username } : {}),
    ip: client.last.ip,
    topic,
    action,
  });
  if (decision !== 'Deny') return undefined;
  return `${action.toLowerCase()} to ${topic} denied by ACL (decision Deny for client ${client.clientId} of tenant ${client.tenant})`;
}
