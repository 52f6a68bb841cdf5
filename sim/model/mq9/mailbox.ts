/** An mq9 mailbox: an address in a tenant that holds messages until read, acknowledged or expired. */
export interface Mailbox {
  tenant: string;
  mail_address: string;
  desc: string;
  /** Seconds; 0 means no expiry. */
  ttl: number;
  /** Virtual Unix ms (the API shows mq9 times in milliseconds). */
  create_time: number;
}
