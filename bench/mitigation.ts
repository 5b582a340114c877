/**
 * Error mitigation on the emulated noisy devices (issue #35 item 12): a 5-qubit GHZ state through
 * the real planning, translation and emulated driver, raw against mitigated in the same run.
 * Readout mitigation on p2-grid-9 (ibm_fez-grade gates, large readout errors) and ZNE (global folding,
 * scales 1, 3, 5) on p2-ion-11 and p2-grid-9, each extrapolation. Final line: JSON figures.
 */
import { measureMitigation } from '../src/execution/mitigation/mitigation-demo.js';

const SHOTS = Number(process.env['BENCH_SHOTS'] ?? 20_000);
const round = (x: number) => Number(x.toFixed(4));

const t0 = performance.now();
const readout = await measureMitigation('p2-grid-9', SHOTS, 7, 'richardson', { zne: false });
console.error(
  `p2-grid-9 readout: TVD to ideal ${readout.tvd_raw.toFixed(4)} → ${readout.tvd_mitigated.toFixed(4)} (gate-noise floor ${readout.tvd_floor.toFixed(4)}); readout part ${readout.tvd_readout_raw.toFixed(4)} → ${readout.tvd_readout_mitigated.toFixed(4)}`,
);
const zne: Record<string, unknown>[] = [];
for (const device of ['p2-ion-11', 'p2-grid-9'])
  for (const extrapolation of ['linear', 'richardson', 'exponential'] as const)
    for (const withReadout of [false, true]) {
      const f = await measureMitigation(device, SHOTS, 11, extrapolation, { readout: withReadout });
      console.error(
        `${device} zne ${extrapolation}${withReadout ? '+readout' : ''}: ⟨XXXXX⟩ ${f.xxxxx_raw.toFixed(4)} → ${f.xxxxx_zne.toFixed(4)} ± ${f.zne_stderr.toFixed(4)} (error ÷${f.zne_error_ratio.toFixed(2)})`,
      );
      zne.push({ device, extrapolation, readout: withReadout, raw: round(f.xxxxx_raw), mitigated: round(f.xxxxx_zne), stderr: round(f.zne_stderr), error_ratio: round(f.zne_error_ratio) });
    }
const headline = zne.find((z) => z['device'] === 'p2-ion-11' && z['extrapolation'] === 'richardson' && z['readout'] === true)!;
console.log(
  JSON.stringify({
    bench: 'mitigation',
    shots: SHOTS,
    readout_device: 'p2-grid-9',
    tvd_ideal_raw: round(readout.tvd_raw),
    tvd_ideal_mitigated: round(readout.tvd_mitigated),
    tvd_ideal_ratio: round(readout.tvd_ratio),
    tvd_gate_noise_floor: round(readout.tvd_floor),
    tvd_readout_raw: round(readout.tvd_readout_raw),
    tvd_readout_mitigated: round(readout.tvd_readout_mitigated),
    tvd_readout_ratio: round(readout.tvd_readout_ratio),
    zne_device: 'p2-ion-11',
    zne_headline: 'richardson, readout-mitigated per scale',
    zne_error_ratio: headline['error_ratio'],
    zne,
    target_ratio: 3,
    // Issue #35 item 12: the distance to the ideal distribution falls ≥ 3× (the readout part alone falls far more).
    readout_within_target: readout.tvd_ratio >= 3,
    zne_within_target: (headline['error_ratio'] as number) >= 3,
    seconds: round((performance.now() - t0) / 1000),
  }),
);
