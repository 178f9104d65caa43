import assert from 'node:assert/strict';
import { it } from 'node:test';
import { refusedRange } from './address-guard.js';

it('refuses loopback, metadata, private, CGNAT and IPv4-mapped addresses', () => {
  for (const address of ['127.0.0.1', '127.8.9.10', '169.254.169.254', '10.0.0.1', '10.255.255.255', '172.16.0.1', '192.168.1.1', '100.64.0.1', '100.100.100.200', '0.0.0.0', '255.255.255.255', '224.0.0.1', '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', '::ffff:127.0.0.1', '::ffff:169.254.169.254', '::ffff:8.8.8.8', '64:ff9b::7f00:1', '2002:7f00:1::']) {
    assert.notEqual(refusedRange(address), null, address);
  }
});

it('allows public unicast addresses of both families', () => {
  for (const address of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4007:80f::200e']) {
    assert.equal(refusedRange(address), null, address);
  }
});

it('refuses what is no address', () => {
  assert.equal(refusedRange('not-an-ip'), 'invalid');
});
