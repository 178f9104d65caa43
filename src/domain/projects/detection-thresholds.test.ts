import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { databaseTargets } from '../../../test/helpers/database.js';
import type { DatabaseHandle } from '../../storage/database.js';
import { BUILT_IN_DETECTION_THRESHOLDS } from './detection-defaults.js';
import { findDetectionThresholds } from './detection-thresholds.repository.js';

for (const target of databaseTargets()) {
  describe(`detection thresholds in force for an order on ${target.name}`, () => {
    let handle: DatabaseHandle;
    const org = randomUUID();
    const bare = randomUUID();
    const [tuned, halfTuned, inherits] = [randomUUID(), randomUUID(), randomUUID()];
    before(async () => {
      handle = await target.open();
      await handle.db.insertInto('organizations').values([
        { id: org, name: 'Tuned org', object_flag_threshold: 0.7, weighted_confidence_threshold: 0.4 },
        { id: bare, name: 'Bare org', object_flag_threshold: null, weighted_confidence_threshold: null },
      ]).execute();
      await handle.db.insertInto('projects').values([
        { id: tuned, organization_id: org, name: 'Tuned', object_flag_threshold: 0.9, weighted_confidence_threshold: 0.8 },
        { id: halfTuned, organization_id: org, name: 'Half', object_flag_threshold: 0.2, weighted_confidence_threshold: null },
        { id: inherits, organization_id: bare, name: 'Plain', object_flag_threshold: null, weighted_confidence_threshold: null },
      ]).execute();
    });
    after(() => handle.close());

    it('resolves each threshold project → organization → built-in', async () => {
      assert.deepEqual(await findDetectionThresholds(handle.db, org, tuned), { object_flag_threshold: 0.9, weighted_confidence_threshold: 0.8 });
      assert.deepEqual(await findDetectionThresholds(handle.db, org, halfTuned), { object_flag_threshold: 0.2, weighted_confidence_threshold: 0.4 });
      assert.deepEqual(await findDetectionThresholds(handle.db, org, null), { object_flag_threshold: 0.7, weighted_confidence_threshold: 0.4 });
      assert.deepEqual(await findDetectionThresholds(handle.db, bare, inherits), { ...BUILT_IN_DETECTION_THRESHOLDS });
    });

    it("never takes another organization's project", async () => {
      assert.deepEqual(await findDetectionThresholds(handle.db, bare, tuned), { ...BUILT_IN_DETECTION_THRESHOLDS });
    });
  });
}
