import { QrailApiError } from '../api.ts';

/** Every failure as the API said it: its message, its code and the request id to quote to support. */
export function ErrorBanner({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  if (error instanceof QrailApiError) {
    const details = error.problems;
    return (
      <div class="error" role="alert">
        <strong>{error.serverMessage}</strong>
        <div class="error-meta">
          code <code>{error.code}</code>
          {error.requestId !== undefined && (
            <>
              {' '}
              · request <code>{error.requestId}</code>
            </>
          )}
        </div>
        {details.length > 0 && (
          <ul>
            {details.slice(0, 20).map((d, i) => (
              <li key={i}>
                <code>{d.path}</code> {d.message}
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  }
  return (
    <div class="error" role="alert">
      <strong>{error instanceof Error ? error.message : typeof error === 'string' ? error : 'Something went wrong.'}</strong>
    </div>
  );
}
