import type { TSchema } from 'typebox';
import { CircuitV01Schema, CircuitV02Schema, QasmInputSchema } from '../../circuits/wire-schema.js';
import { AttemptView, SpendControlsView, WalletView } from '../routes/billing/schemas.js';
import { CertificateOperationSchema, CircuitAnalysisSchema, CircuitProblemSchema } from '../routes/circuits/schemas.js';
import { CouplingData } from '../routes/coupling/schemas.js';
import { CapabilitiesSchema, DeviceSchema, ExecutionJobSchema, ExecutionResultsSchema, HeldTasksSchema, ReasonSchema, TranslationSchema } from '../routes/execution/schemas.js';
import { BalanceSchema, CatalogEntrySchema, JobQuoteSchema, JobReceiptSchema, JobRequestExampleSchema, JobResultSchema, JobSchema, JobTagsSchema, JsonSchemaSchema } from '../routes/jobs/schemas.js';
import { CredentialScopeSchema } from '../routes/credentials/schemas.js';
import { errorComponentSchemas } from './error-schemas.js';

/**
 * The shared schemas routes refer to by `$id` (Type.Ref), registered once on the root instance:
 * they are the document's components (Meta is registered with the envelope).
 */
export const API_COMPONENTS: readonly TSchema[] = [
  CircuitV02Schema,
  CircuitV01Schema,
  QasmInputSchema,
  CircuitProblemSchema,
  CircuitAnalysisSchema,
  CertificateOperationSchema,
  CouplingData,
  ReasonSchema,
  ExecutionResultsSchema,
  TranslationSchema,
  ExecutionJobSchema,
  HeldTasksSchema,
  DeviceSchema,
  CapabilitiesSchema,
  WalletView,
  SpendControlsView,
  AttemptView,
  JobQuoteSchema,
  JobReceiptSchema,
  JobTagsSchema,
  JobResultSchema,
  JobSchema,
  BalanceSchema,
  JsonSchemaSchema,
  JobRequestExampleSchema,
  CatalogEntrySchema,
  CredentialScopeSchema,
  ...errorComponentSchemas(),
];
