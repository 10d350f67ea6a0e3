import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.ts';

describe('DATABASE_URL', () => {
  it('selects PostgreSQL for a postgres:// or postgresql:// URL, and keeps the SQLite file otherwise', () => {
    const none = loadConfig({ DATA_DIR: '/srv/data' });
    expect(none.databaseUrl).toBeNull();
    expect(none.databaseFile).toBe(join('/srv/data', 'service.db'));
    for (const url of ['postgres://u:p@db:5432/service', 'postgresql://db/service', 'POSTGRES://db/x']) {
      const config = loadConfig({ DATABASE_URL: url });
      expect(config.databaseUrl, url).toBe(url);
      expect(config.databaseFile).toBe(join('./data', 'service.db'));
    }
    // A path is SQLite's file, as DATABASE_FILE would be.
    expect(loadConfig({ DATABASE_URL: '/var/lib/service/service.db' })).toMatchObject({
      databaseUrl: null,
      databaseFile: '/var/lib/service/service.db',
    });
    expect(loadConfig({ DATABASE_POOL_MAX: '25' }).databasePoolMax).toBe(25);
  });

  it('stops start-up on a URL of another scheme instead of opening a new file by that name', () => {
    for (const value of ['sqlite:./dev.db', 'file:./service.db', 'mysql://db/service']) {
      expect(() => loadConfig({ DATABASE_URL: value }), value).toThrow(/DATABASE_URL: expected a postgres:\/\//);
    }
  });
});
