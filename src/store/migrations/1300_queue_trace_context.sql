-- The W3C traceparent of the request that queued an item, when tracing is on: the worker's span
-- continues that trace (docs/operations.md#traces). Null when tracing is off.
ALTER TABLE jobs ADD COLUMN traceparent text CHECK (traceparent IS NULL OR length(traceparent) <= 64);
ALTER TABLE execution_jobs ADD COLUMN traceparent text CHECK (traceparent IS NULL OR length(traceparent) <= 64);
