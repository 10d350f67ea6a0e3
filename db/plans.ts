const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/**
 * The plans every database is seeded with; `free` has no API access, and a new workspace gets `pro`.
 * `storageBytes` bounds the media library (the sum of the workspace's stored files), apart from the
 * five features `GET /me` reports under `features`.
 */
export const SEEDED_PLANS = [
  {
    name: 'free',
    postsPerMonth: 30,
    platformsLimit: 2,
    apiAccess: false,
    monthlyAiCredits: 50,
    analyticsHistoryDays: 7,
    storageBytes: 500 * MIB,
  },
  {
    name: 'starter',
    postsPerMonth: 300,
    platformsLimit: 3,
    apiAccess: true,
    monthlyAiCredits: 500,
    analyticsHistoryDays: 30,
    storageBytes: 5 * GIB,
  },
  {
    name: 'pro',
    postsPerMonth: 1500,
    platformsLimit: 10,
    apiAccess: true,
    monthlyAiCredits: 2500,
    analyticsHistoryDays: 90,
    storageBytes: 25 * GIB,
  },
  {
    name: 'business',
    postsPerMonth: 20000,
    platformsLimit: 25,
    apiAccess: true,
    monthlyAiCredits: 25000,
    analyticsHistoryDays: 365,
    storageBytes: 250 * GIB,
  },
] as const;

export type PlanName = (typeof SEEDED_PLANS)[number]['name'];
export const PLAN_NAMES = SEEDED_PLANS.map((p) => p.name) as [PlanName, ...PlanName[]];
