import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.ts';

describe('TRUST_PROXY', () => {
  it('is off by default and takes true, a number of hops, or addresses, subnets and range names', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8 ,fd00::/8,192.0.2.7' }).trustProxy).toEqual([
      'loopback',
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.7',
    ]);
  });

  it('stops start-up on anything else, naming the variable', () => {
    for (const value of ['yes', '10.0.0.0/33', 'proxy.example.com', '10.0.0.1/8/2', ',']) {
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(/TRUST_PROXY: expected false, true/);
    }
  });
});
