import { fail } from '../../errors/app-error.js';
import { HTTP_ERRORS } from '../../errors/http-error-codes.js';
import { unsafeTextDetails } from '../../errors/unsafe-text.js';
import type { App } from '../app-types.js';

function refuse(details: ReturnType<typeof unsafeTextDetails>) {
  return fail(HTTP_ERRORS.INVALID_CHARACTERS, 'The request contains text that cannot be accepted (U+0000 or an unpaired surrogate).', details);
}

/**
 * Refuses, with 400 before any handler or database sees them, NUL characters and lone
 * surrogates anywhere in headers, path parameters, the query string and parsed bodies (a JSON
 * body nested too deeply never gets this far: json-body.ts refuses it before parsing). Headers are checked first (onRequest: authentication reads them);
 * the rest in preValidation, i.e. after authentication and before schema validation.
 */
export function registerTextSafety(app: App): void {
  app.addHook('onRequest', (req, _reply, done) => {
    const headers: Record<string, unknown> = {};
    let suspicious = false;
    for (const [k, v] of Object.entries(req.headers)) {
      // Header values are latin-1 on the wire: only NUL (which inject or a lax proxy can pass) matters.
      if ((typeof v === 'string' && v.includes('\u0000')) || (Array.isArray(v) && v.some((x) => x.includes('\u0000')))) {
        headers[k] = '\u0000';
        suspicious = true;
      }
    }
    done(suspicious ? refuse(unsafeTextDetails(headers, 'headers')) : undefined);
  });

  app.addHook('preValidation', (req, _reply, done) => {
    const details = [...unsafeTextDetails(req.params, 'params'), ...unsafeTextDetails(req.query, 'querystring'), ...unsafeTextDetails(req.body, 'body')];
    done(details.length > 0 ? refuse(details) : undefined);
  });
}
