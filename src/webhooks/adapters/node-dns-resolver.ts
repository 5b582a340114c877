import { lookup } from 'node:dns/promises';
import type { HostResolver } from '../ports.js';

/** The system resolver (getaddrinfo, as connections use it): every address, in its order. */
export const nodeDnsResolver: HostResolver = {
  async resolve(host) {
    try {
      return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA' || code === 'EAI_NONAME' || code === 'EAI_AGAIN') return [];
      throw e;
    }
  },
};
