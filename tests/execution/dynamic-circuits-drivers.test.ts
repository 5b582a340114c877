/**
 * Dynamic circuits through the execution drivers (issue 22 item 5): the simulator driver runs
 * conditioned gates exactly, the emulated driver with the device's calibrated noise (gate noise
 * only where a conditioned gate is applied, readout error seen by the condition), and the IonQ
 * writers refuse a conditioned gate instead of dropping its condition.
 */
import { describe, expect, it } from 'vitest';
import { circuit, conditioned, gate, measure } from '../../src/circuits/ir.js';
import { deviceProfile } from '../../src/devices/device-catalogue.js';
import { emulatedDriver, simulatorDriver } from '../../src/execution/drivers/local-drivers.js';
import { toIonqInput } from '../../src/execution/adapters/ionq-circuit.js';
import { toIonqNativeInput } from '../../src/execution/adapters/ionq-native.js';

/** Active reset of qubit 0 after ry(1.9), then a second measurement: 0 on every shot without noise. */
const activeReset = circuit(1, 2, [gate('ry', [0], [1.9]), measure(0, 0), conditioned(gate('x', [0]), { clbits: [0], value: 1 }), measure(0, 1)]);
const secondBitOnes = (counts: Record<string, number>): number => Object.entries(counts).reduce((a, [k, v]) => a + (k[0] === '1' ? v : 0), 0);

describe('dynamic circuits in the local drivers', () => {
  it('the simulator driver runs a conditioned circuit exactly: active reset always reads 0', async () => {
    const out = await simulatorDriver().submit({ jobId: 'j1', device: deviceProfile('p2-local-simulator')!, circuit: activeReset, shots: 5000, seed: 4 });
    expect(out.state).toBe('completed');
    if (out.state !== 'completed') return;
    expect(secondBitOnes(out.result.counts)).toBe(0);
    expect(Object.values(out.result.counts).reduce((a, b) => a + b, 0)).toBe(5000);
    expect(out.result.probabilitiesKind).toBe('estimated');
  });

  it('the emulated driver applies the calibrated noise: readout errors of the measurement the condition reads leave some 1s', async () => {
    const device = deviceProfile('p2-grid-9')!;
    const ro = device.calibration!.readout_error[0]!;
    const shots = 40_000;
    const out = await emulatedDriver().submit({ jobId: 'j2', device, circuit: activeReset, shots, seed: 4 });
    expect(out.state).toBe('completed');
    if (out.state !== 'completed') return;
    const ones = secondBitOnes(out.result.counts) / shots;
    // A wrong report of c0 applies (or skips) the x wrongly, and the second readout can flip too:
    // roughly 2·ro plus gate noise; clearly above 0, clearly below a coin toss.
    expect(ones).toBeGreaterThan(ro / 2);
    expect(ones).toBeLessThan(0.25);
    expect(out.result.meta).toMatchObject({ simulator: expect.stringContaining('noisy') });
  });
});

describe('dynamic circuits and IonQ', () => {
  const dyn = circuit(2, 1, [gate('h', [0]), measure(0, 0), conditioned(gate('x', [1]), { clbits: [0], value: 1 })]);
  it('neither IonQ writer drops a condition: both refuse the circuit', () => {
    expect(() => toIonqInput(dyn)).toThrow(/conditioned on measured bits/);
    expect(() => toIonqNativeInput(dyn)).toThrow(/conditioned on measured bits/);
  });
});
