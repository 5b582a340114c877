/**
 * Examples of the OpenAPI document, by operationId: requests and answers of the flows that
 * docs/api-guide.md walks through (and its test replays), shown whole where the guide abbreviates.
 * Each is checked against its schema by Redocly's lint and by tests/foundation/openapi-document.test.ts.
 */

import { CIRCUITS_ERRORS } from '../../circuits/error-codes.js';
import { HTTP_ERRORS } from '../../errors/http-error-codes.js';

type Examples = Record<string, { summary: string; value: unknown }>;

export interface OperationExamples {
  readonly request?: Examples;
  readonly responses?: Readonly<Record<string, Examples>>;
}

const BELL = {
  schema: '0.2',
  num_qubits: 2,
  num_clbits: 2,
  gates: [
    { op: 'h', qubits: [0] },
    { op: 'cx', qubits: [0, 1] },
  ],
  measurements: [
    { qubit: 0, clbit: 0 },
    { qubit: 1, clbit: 1 },
  ],
};
const NORMALIZED_BELL = { ...BELL, metadata: {} };
const GHZ3 = {
  schema: '0.2',
  num_qubits: 3,
  num_clbits: 3,
  gates: [
    { op: 'h', qubits: [0] },
    { op: 'cx', qubits: [0, 1] },
    { op: 'cx', qubits: [1, 2] },
  ],
  measurements: [
    { qubit: 0, clbit: 0 },
    { qubit: 1, clbit: 1 },
    { qubit: 2, clbit: 2 },
  ],
};
const QASM2_BELL = {
  format: 'qasm2',
  source: 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nrz(pi/8) q[1];\nmeasure q -> c;',
};

const meta = (requestId: string) => ({ version: '0.1.0', request_id: requestId, processing_time_ms: 1.7 });
const ok = (data: unknown, requestId = '0b6f5d5e-8f59-4a55-9d0e-2f1f5a1c3b7e') => ({ status: 'ok', data, meta: meta(requestId) });

const USER = { user_id: '9d3c2a56-1c8e-4c59-b2a4-6f1f3f0e9a11', account_id: '5f0a1e2b-7c3d-4e8f-9a0b-1c2d3e4f5a6b', email: 'ada@example.com', created_at: '2026-01-05T09:00:00.000Z' };
const WALLET = { available: '10.000000', held: '0.000000', total: '10.000000', currency: 'USD', as_of: '2026-01-05T09:05:00.000Z' };
const JOB_ID = '3e8c2f4a-0b1d-4c5e-8f6a-7b8c9d0e1f2a';

export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExamples>> = {
  registerUser: {
    request: { ada: { summary: 'A new user', value: { email: 'ada@example.com', password: 'a long passphrase' } } },
    responses: {
      '201': { created: { summary: 'The user and its account', value: ok(USER) } },
      '400': {
        invalid: {
          summary: 'Every problem, each at its JSON path',
          value: {
            status: 'error',
            error: {
              code: HTTP_ERRORS.VALIDATION_FAILED.code,
              message: 'Request body failed validation.',
              details: [
                { in: 'body', path: '/extra', code: 'UNKNOWN_PROPERTY', message: 'is not an allowed property' },
                { in: 'body', path: '/email', code: 'BAD_FORMAT', message: 'must match format "email"' },
                { in: 'body', path: '/password', code: 'TOO_SHORT', message: 'must NOT have fewer than 8 characters' },
              ],
            },
            meta: meta('guide-register-1'),
          },
        },
      },
    },
  },
  login: {
    request: { ada: { summary: 'Email and password', value: { email: 'ada@example.com', password: 'a long passphrase' } } },
    responses: {
      '200': {
        session: {
          summary: 'A bearer session token (shown once)',
          value: ok({
            token: 'qrs_J3x8bq0N7yT2kL5mR9vC4wE1zH6pA0sD3fG8jK2lQ7u',
            token_type: 'Bearer',
            session_id: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
            expires_at: '2026-01-06T09:00:00.000Z',
            absolute_expires_at: '2026-01-19T09:00:00.000Z',
            user: USER,
          }),
        },
      },
    },
  },
  validateCircuit: {
    request: {
      bell: { summary: 'A Bell pair, wire format 0.2', value: { circuit: BELL } },
      qasm: { summary: 'OpenQASM 2 in, OpenQASM 3 out', value: { output_format: 'qasm3', circuit: QASM2_BELL } },
    },
    responses: {
      '200': {
        valid: {
          summary: 'Valid: normalized, with a summary',
          value: ok({
            valid: true,
            errors: [],
            warnings: [],
            circuit: NORMALIZED_BELL,
            summary: { input_format: 'json-0.2', num_qubits: 2, num_clbits: 2, operation_count: 4, gate_count: 2, two_qubit_count: 1, measurement_count: 2, depth: 3 },
          }),
        },
        invalid: {
          summary: 'Invalid: still a 200, every problem at its path',
          value: ok({
            valid: false,
            errors: [
              { path: '/circuit/gates/0/op', code: 'UNKNOWN_GATE', message: "unknown gate 'hadamard' (see GET /v1/circuits/schema for the catalogue)" },
              { path: '/circuit/gates/1/qubits/1', code: 'QUBIT_OUT_OF_RANGE', message: 'qubit 2 is out of range: the circuit has 2 qubits (0..1)' },
            ],
            warnings: [],
          }),
        },
      },
    },
  },
  analyzeCircuit: {
    request: {
      bell: {
        summary: 'Analyze for one device',
        value: { circuit: { ...BELL, gates: [...BELL.gates, { op: 't', qubits: [1] }] }, devices: ['p2-grid-9'] },
      },
    },
    responses: {
      '400': {
        qasm: {
          summary: 'An OpenQASM problem with its line and column',
          value: {
            status: 'error',
            error: {
              code: CIRCUITS_ERRORS.CIRCUIT_INVALID.code,
              message: "The circuit is not valid (1 problem): unknown gate 'foo'",
              details: [{ path: '/circuit/source', code: 'UNKNOWN_GATE', message: "unknown gate 'foo'", line: 4, column: 1 }],
            },
            meta: meta('b7e1c2d3-4f5a-4b6c-8d7e-9f0a1b2c3d4e'),
          },
        },
      },
    },
  },
  optimizeCircuit: {
    request: {
      optimizable: {
        summary: 'Redundant on purpose (13 gates → 4)',
        value: {
          profile: 'balanced',
          circuit: {
            schema: '0.2',
            num_qubits: 3,
            num_clbits: 3,
            gates: [
              { op: 'h', qubits: [0] },
              { op: 'h', qubits: [0] },
              { op: 'x', qubits: [1] },
              { op: 'cx', qubits: [0, 1] },
              { op: 'cx', qubits: [0, 1] },
              { op: 'rz', qubits: [2], params: ['pi/4'] },
              { op: 'rz', qubits: [2], params: ['pi/4'] },
              { op: 't', qubits: [0] },
              { op: 'tdg', qubits: [0] },
              { op: 'h', qubits: [1] },
              { op: 'cx', qubits: [1, 2] },
              { op: 's', qubits: [2] },
              { op: 'sdg', qubits: [2] },
            ],
            measurements: [
              { qubit: 0, clbit: 0 },
              { qubit: 1, clbit: 1 },
              { qubit: 2, clbit: 2 },
            ],
          },
        },
      },
    },
  },
  analyzeCoupling: {
    request: {
      qualitative: {
        summary: 'Structure only, three pairs',
        value: {
          mode: 'qualitative',
          circuit: {
            schema: '0.2',
            num_qubits: 4,
            gates: [
              { op: 'h', qubits: [0] },
              { op: 'h', qubits: [1] },
              { op: 'cx', qubits: [0, 2] },
              { op: 'cx', qubits: [1, 3] },
              { op: 'cx', qubits: [2, 3] },
            ],
          },
          pairs: [
            [0, 1],
            [0, 2],
            [2, 3],
          ],
        },
      },
      measured: { summary: 'From the final state of a Bell pair', value: { mode: 'measured', circuit: { schema: '0.2', num_qubits: 2, gates: BELL.gates } } },
    },
  },
  compareCoupling: {
    request: {
      routed: {
        summary: 'A Bell pair before and after routing with one SWAP',
        value: {
          before: {
            schema: '0.2',
            num_qubits: 3,
            gates: [
              { op: 'h', qubits: [0] },
              { op: 'h', qubits: [1] },
              { op: 'cx', qubits: [0, 2] },
            ],
          },
          after: {
            schema: '0.2',
            num_qubits: 4,
            gates: [
              { op: 'h', qubits: [0] },
              { op: 'h', qubits: [1] },
              { op: 'swap', qubits: [0, 1] },
              { op: 'cx', qubits: [1, 2] },
            ],
          },
          qubit_map: [1, 0, 2],
        },
      },
    },
  },
  runOnProviderOne: {
    request: { bell: { summary: 'A seeded Bell pair, safe to retry', value: { client_token: 'guide-p1-bell', shots: 1000, seed: 7, circuit: BELL } } },
  },
  runOnProviderTwo: {
    request: {
      qasm3: {
        summary: 'The local simulator, OpenQASM 3',
        value: {
          client_token: 'guide-p2-ghz',
          shots: 500,
          seed: 7,
          circuit: { format: 'qasm3', source: 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[3] q;\nbit[3] c;\nh q[0];\ncx q[0], q[1];\ncx q[1], q[2];\nc = measure q;' },
        },
      },
      hardware: { summary: 'Hardware: answered 409 with the quote → hold → continue steps', value: { client_token: 'guide-grid-direct', device: 'p2-grid-9', shots: 1000, circuit: GHZ3 } },
    },
  },
  continueHeldJob: {
    request: { ghz: { summary: 'The circuit of a held p2-grid-9 run', value: { client_token: 'guide-grid-1', seed: 42, circuit: GHZ3 } } },
  },
  createPaymentIntent: {
    request: { card: { summary: 'Top up with the sandbox test card', value: { amount: '10.00', payment_method: 'pm_card_visa' } } },
  },
  quoteHardwareRun: {
    request: { grid: { summary: '1000 shots on p2-grid-9', value: { provider: 'provider-two', device: 'p2-grid-9', shots: 1000 } } },
    responses: {
      '200': {
        quote: {
          summary: 'total = tasks × (per task + shots × per shot)',
          value: ok({
            quote_id: '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
            provider: 'provider-two',
            device: 'p2-grid-9',
            shots: 1000,
            tasks: 1,
            price_per_task: '0.300000',
            price_per_shot: '0.000900',
            total: '1.200000',
            currency: 'USD',
            valid_until: '2026-01-05T09:15:00.000Z',
            created_at: '2026-01-05T09:05:00.000Z',
          }),
        },
      },
    },
  },
  placeHardwareHold: {
    request: { quote: { summary: 'Hold a quote’s amount', value: { quote_id: '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d' } } },
  },
  getWallet: {
    responses: { '200': { funded: { summary: 'After a 10.00 top-up', value: ok(WALLET) } } },
  },
  updateSpendControls: {
    request: { limits: { summary: 'Daily limit, per-job maximum, hold expiry', value: { daily_limit: '25', per_job_max: '5', hold_expiry_seconds: 1800 } } },
  },
  createCheckoutSession: {
    request: { topUp: { summary: 'A hosted checkout of 20.00', value: { amount: '20.00', success_url: 'https://app.example/paid' } } },
  },
  createAgentCredential: {
    request: { agent: { summary: 'An agent that reads and submits jobs', value: { name: 'ci agent', scopes: ['jobs:read', 'jobs:write'] } } },
  },
  issueAccessToken: {
    responses: {
      '200': {
        token: {
          summary: 'A Jobs access token (JWT)',
          value: { access_token: 'eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.eyJhdWQiOiJxcmFpbC1qb2JzIn0.c2ln', token_type: 'Bearer', expires_in: 900, scope: 'jobs:read jobs:write' },
        },
      },
      '401': { badClient: { summary: 'Unknown client or wrong secret', value: { error: 'invalid_client', error_description: 'Client authentication failed.' } } },
    },
  },
  runAccountJob: {
    request: {
      bell: {
        summary: 'A Bell pair on the simulator, at most 0.01 USD',
        value: { capability_id: 'circuit.simulate', idempotency_key: 'guide-bell-0001', max_total_price: '0.01', request: { shots: 1000, seed: 11, circuit: BELL } },
      },
    },
    responses: {
      '409': {
        reused: {
          summary: 'The same key with another body',
          value: {
            error: {
              code: HTTP_ERRORS.IDEMPOTENCY_KEY_REUSED.code,
              message: 'This idempotency key was already used with another capability_id, request or max_total_price.',
              details: { idempotency_key: 'guide-bell-0001', job_id: JOB_ID },
            },
            request_id: 'd4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f7a',
          },
        },
      },
    },
  },
  getAccountBalance: {
    responses: {
      '200': {
        balance: {
          summary: 'After one job',
          value: {
            account_id: USER.account_id,
            currency: 'USD',
            payment_rail: 'account_core_balance',
            available: '28.799890',
            held: '0.000000',
            total: '28.799890',
            as_of: '2026-01-05T09:30:00.000Z',
          },
        },
      },
    },
  },
  createChatReply: {
    request: { qubit: { summary: 'One question', value: { messages: [{ role: 'user', content: 'What is a qubit?' }], max_tokens: 100 } } },
  },
  synthesizeSpeech: {
    request: { hello: { summary: 'British English, a little faster', value: { text: 'Hello from qrail.', voice: 'en-gb', speed: 1.1 } } },
  },
};
