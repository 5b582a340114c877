import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { App } from '../../src/http/app-types.js';
import { bell } from './helpers.js';

/** Analysis, the optimizer's device hint and execution list the same devices (issue 24: one list). */
describe('one device list for analyze, optimize and execution', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('every device execution lists is known to /v1/circuits/analyze and to the optimizer, including the remote IonQ device', async () => {
    const execIds = (
      await Promise.all(['provider-one', 'provider-two'].map(async (p) => (await app.inject({ method: 'GET', url: `/v1/execute/${p}/devices` })).json().data.devices as Array<{ id: string }>))
    )
      .flat()
      .map((d) => d.id);
    expect(execIds).toContain('p2-ionq-qpu');
    const analysis = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', payload: { circuit: bell, devices: execIds } });
    expect(analysis.statusCode).toBe(200);
    expect(
      analysis
        .json()
        .data.compatibility.flatMap((p: { devices: Array<{ device: string }> }) => p.devices.map((d) => d.device))
        .sort(),
    ).toEqual([...execIds].sort());
    const opt = await app.inject({ method: 'POST', url: '/v1/circuits/optimize', payload: { circuit: bell, backend_hint: 'provider-two', device: 'p2-ionq-qpu' } });
    expect(opt.statusCode).toBe(200);
    expect(opt.json().data).toMatchObject({ device: 'p2-ionq-qpu' });
  });
});
