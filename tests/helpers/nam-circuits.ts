/**
 * The Nam et al. circuits the tests use: the fifteen first vendored (at most 900 gates, 24 qubits).
 * tests/fixtures/benchmarks/nam holds thirteen more, up to 4,285 gates, for `npm run bench:opt` only:
 * proving or optimizing those would take the test suite minutes.
 */
export const NAM_TEST_CIRCUITS: readonly string[] = [
  'adder_8',
  'barenco_tof_10',
  'barenco_tof_3',
  'barenco_tof_4',
  'barenco_tof_5',
  'csla_mux_3',
  'gf2^4_mult',
  'mod5_4',
  'mod_mult_55',
  'rc_adder_6',
  'tof_10',
  'tof_3',
  'tof_4',
  'tof_5',
  'vbe_adder_3',
];
