/** Minimal typings for the `quantum-circuit` devDependency (used by tests/simulation and bench/sim.ts). */
declare module 'quantum-circuit' {
  export default class QuantumCircuit {
    constructor(numQubits?: number);
    numQubits: number;
    state: Record<string, { re: number; im: number }>;
    addGate(name: string, column: number, wires: number | number[], options?: { params?: Record<string, number | string> }): void;
    run(initialValues?: unknown, options?: unknown): void;
  }
}
