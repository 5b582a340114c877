OPENQASM 2.0;
include "qelib1.inc";
// A Bell pair: measuring gives 00 or 11, about half the time each.
qreg q[2];
creg c[2];
h q[0];
cx q[0],q[1];
measure q -> c;
