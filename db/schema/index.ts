export * from './accounts.ts';
export * from './content.ts';
export * from './events.ts';
export * from './idempotency.ts';
export * from './publishing.ts';
export * from './webhooks.ts';
export * from './campaigns.ts';
export * from './brand-profiles.ts';
